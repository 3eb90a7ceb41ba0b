import { beforeAll, describe, expect, it } from "vitest";
import { createApi, createIntegration, createRoute, expectBadRequest, expectStatus, inBatches } from "../support/gateway.js";
import { call } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld, withAdministrators } from "../support/worlds.js";

/**
 * Pagination of GetIntegrations, GetRoutes and GetApis (docs/manual/embedded-service.md: pagination): opaque,
 * tamper-evident, keyset tokens. A lister paging with maxResults k while another client creates and
 * deletes sees every surviving item exactly once and never an item twice.
 */

/** A second identity in the lister's account: "another client" that writes while the lister pages. */
const WRITER_TOKEN = "writer-token";
const PAGE_SIZES = [1, 2, 3, 4, 5, 6, 7];
const MAX_PAGES = 500;

const { service } = useWorld({ world: withAdministrators(testWorld(), [WRITER_TOKEN]) });

type Kind = "integrations" | "routes";
let routeKeyCounter = 0;

/** Creates one item of `kind` in a WebSocket API (any route key, no payloadFormatVersion needed) and returns its ID. */
async function createItem(kind: Kind, apiId: string, token?: string): Promise<string> {
  if (kind === "integrations") return (await createIntegration(service, apiId, "WEBSOCKET", { description: "paged" }, token)).integrationId;
  return (await createRoute(service, apiId, { routeKey: `key${++routeKeyCounter}` }, token)).routeId;
}

interface Page {
  readonly ids: string[];
  readonly nextToken: string | undefined;
}

async function getPage(path: string, query: Record<string, string | undefined>, token?: string): Promise<Page & { status: number }> {
  const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const result = await call(service, `${path}${params.size > 0 ? `?${params}` : ""}`, { method: "GET", ...(token ? { token } : {}) });
  expectStatus(result, 200);
  const items = result.json.items as Array<Record<string, string>>;
  const field = path.endsWith("/integrations") ? "integrationId" : path.endsWith("/routes") ? "routeId" : "apiId";
  return { status: result.status, ids: items.map((item) => item[field]!), nextToken: result.json.nextToken };
}

/** Pages through `path` to the end; `between` runs after each page that has a nextToken. */
async function listAll(path: string, maxResults: number | undefined, between?: (page: Page, index: number) => Promise<void>, token?: string): Promise<Page[]> {
  const pages: Page[] = [];
  let nextToken: string | undefined;
  do {
    const page = await getPage(path, { maxResults: maxResults === undefined ? undefined : String(maxResults), nextToken }, token);
    pages.push(page);
    nextToken = page.nextToken;
    if (nextToken !== undefined) {
      expect(typeof nextToken).toBe("string");
      expect(nextToken.length).toBeGreaterThan(0);
      expect(nextToken.length).toBeLessThanOrEqual(1000);
      await between?.(page, pages.length - 1);
    }
    expect(pages.length, "the listing never ends").toBeLessThan(MAX_PAGES);
  } while (nextToken !== undefined);
  return pages;
}

/** A small deterministic PRNG, so that a failure reproduces. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe.each<{ kind: Kind }>([{ kind: "integrations" }, { kind: "routes" }])("Get$kind pagination", ({ kind }) => {
  const STATIC_COUNT = 14;
  let staticApi: string;
  let staticIds: string[];

  beforeAll(async () => {
    staticApi = (await createApi(service, "WEBSOCKET")).apiId;
    staticIds = [];
    for (let i = 0; i < STATIC_COUNT; i += 1) staticIds.push(await createItem(kind, staticApi));
  });

  it.each([...PAGE_SIZES, 13, 14, 15, 500, undefined])("lists every item of a static listing exactly once with maxResults %s, in full pages", async (k) => {
    const pages = await listAll(`/v2/apis/${staticApi}/${kind}`, k);
    const seen = pages.flatMap((page) => page.ids);
    expect(seen).toHaveLength(STATIC_COUNT);
    expect(new Set(seen)).toEqual(new Set(staticIds));
    const size = k ?? 100;
    expect(pages).toHaveLength(Math.ceil(STATIC_COUNT / size));
    for (const page of pages.slice(0, -1)) expect(page.ids).toHaveLength(size);
    expect(pages.at(-1)!.ids.length).toBeGreaterThan(0);
    expect(pages.at(-1)!.nextToken).toBeUndefined();
  });

  it.each(PAGE_SIZES)("sees every surviving item exactly once with maxResults %i while another client creates and deletes", async (k) => {
    const apiId = (await createApi(service, "WEBSOCKET")).apiId;
    const initial = await inBatches(20, 4, () => createItem(kind, apiId));
    const live = new Set(initial);
    const created = new Set<string>();
    const deletedAt = new Map<string, number>(); // id -> index of the first page requested after its deletion
    const random = prng(k * 7919);
    let mutationRounds = 0;
    const seenInPage: Array<{ ids: string[]; index: number }> = [];

    const pages = await listAll(`/v2/apis/${apiId}/${kind}`, k, async (page, index) => {
      seenInPage.push({ ids: page.ids, index });
      if (mutationRounds >= 8) return;
      mutationRounds += 1;
      for (let i = 0; i < 2; i += 1) {
        const id = await createItem(kind, apiId, WRITER_TOKEN);
        live.add(id);
        created.add(id);
      }
      // delete the page's last item (the token's anchor) once, and random live items otherwise
      const victims = mutationRounds === 2 ? [page.ids.at(-1)!] : [[...live][Math.floor(random() * live.size)]!];
      if (mutationRounds % 3 === 0) victims.push([...live].filter((id) => !victims.includes(id))[Math.floor(random() * (live.size - 1))]!);
      for (const victim of victims) {
        const deleted = await call(service, `/v2/apis/${apiId}/${kind}/${victim}`, { method: "DELETE", token: WRITER_TOKEN });
        expectStatus(deleted, 204);
        live.delete(victim);
        deletedAt.set(victim, index + 1);
      }
    });
    seenInPage.push({ ids: pages.at(-1)!.ids, index: pages.length - 1 });

    const seen = pages.flatMap((page) => page.ids);
    expect(new Set(seen).size, "an item was seen twice").toBe(seen.length);
    for (const id of initial) {
      if (!deletedAt.has(id)) expect(seen.filter((s) => s === id), `surviving item ${id}`).toHaveLength(1);
    }
    for (const id of seen) expect(initial.includes(id) || created.has(id)).toBe(true);
    for (const { ids, index } of seenInPage) {
      for (const id of ids) {
        const deletedBefore = deletedAt.get(id);
        if (deletedBefore !== undefined) expect(index, `${id} listed after its deletion`).toBeLessThan(deletedBefore);
      }
    }
    for (const page of pages.slice(0, -1)) expect(page.ids).toHaveLength(k);
    expect(pages.at(-1)!.nextToken).toBeUndefined();
    expect(mutationRounds).toBeGreaterThan(0);
  });

  it("starts over on an empty nextToken", async () => {
    const first = await getPage(`/v2/apis/${staticApi}/${kind}`, { maxResults: "3" });
    const empty = await getPage(`/v2/apis/${staticApi}/${kind}`, { maxResults: "3", nextToken: "" });
    expect(empty.ids).toEqual(first.ids);
    expect(empty.ids).toHaveLength(3);
  });

  it("answers the same page for the same token twice", async () => {
    const first = await getPage(`/v2/apis/${staticApi}/${kind}`, { maxResults: "4" });
    const again1 = await getPage(`/v2/apis/${staticApi}/${kind}`, { maxResults: "4", nextToken: first.nextToken });
    const again2 = await getPage(`/v2/apis/${staticApi}/${kind}`, { maxResults: "4", nextToken: first.nextToken });
    expect(again1.ids).toEqual(again2.ids);
    expect(again1.ids.some((id) => first.ids.includes(id))).toBe(false);
  });

  it("rejects a tampered nextToken with 400", async () => {
    const { nextToken } = await getPage(`/v2/apis/${staticApi}/${kind}`, { maxResults: "2" });
    expect(nextToken).toBeDefined();
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const tampered = [
      flip(nextToken!, 0),
      flip(nextToken!, nextToken!.length - 1),
      `${Buffer.from("1").toString("base64url")}${nextToken!.slice(nextToken!.indexOf("."))}`,
      nextToken!.split(".")[0]!,
      `${nextToken}x`,
      `${nextToken}=`,
      `${nextToken!.replace(".", "=.")}`,
      `x${nextToken}`,
    ];
    for (const token of tampered) {
      if (token === nextToken) continue;
      const result = await call(service, `/v2/apis/${staticApi}/${kind}?nextToken=${encodeURIComponent(token)}`, { method: "GET" });
      expectBadRequest(result, "nextToken");
    }
  });

  it("rejects a nextToken from another API, another listing or another account with 400", async () => {
    const otherApi = (await createApi(service, "WEBSOCKET")).apiId;
    for (let i = 0; i < 3; i += 1) await createItem(kind, otherApi);
    const otherKind: Kind = kind === "integrations" ? "routes" : "integrations";
    for (let i = 0; i < 3; i += 1) await createItem(otherKind, staticApi);
    const fromOtherApi = (await getPage(`/v2/apis/${otherApi}/${kind}`, { maxResults: "1" })).nextToken;
    const fromOtherKind = (await getPage(`/v2/apis/${staticApi}/${otherKind}`, { maxResults: "1" })).nextToken;
    await createApi(service, "HTTP");
    const fromApis = (await getPage("/v2/apis", { maxResults: "1" })).nextToken;
    for (const token of [fromOtherApi, fromOtherKind, fromApis]) {
      expect(token).toBeDefined();
      const result = await call(service, `/v2/apis/${staticApi}/${kind}?nextToken=${encodeURIComponent(token!)}`, { method: "GET" });
      expectBadRequest(result, "nextToken");
    }
  });
});

describe("GetApis pagination", () => {
  const OWNER_TOKEN = "standalone-token";
  const API_COUNT = 11;
  let ownedIds: string[];

  beforeAll(async () => {
    ownedIds = (await inBatches(API_COUNT, 4, () => createApi(service, "HTTP", { token: OWNER_TOKEN }))).map((api) => api.apiId);
  });

  it.each([...PAGE_SIZES, undefined])("lists every API of the caller's account exactly once with maxResults %s", async (k) => {
    const pages = await listAll("/v2/apis", k, undefined, OWNER_TOKEN);
    const seen = pages.flatMap((page) => page.ids);
    expect(seen).toHaveLength(API_COUNT);
    expect(new Set(seen)).toEqual(new Set(ownedIds));
    expect(pages).toHaveLength(Math.ceil(API_COUNT / (k ?? 100)));
    expect(pages.at(-1)!.nextToken).toBeUndefined();
  });

  it("rejects a GetApis nextToken of another account with 400", async () => {
    await createApi(service, "HTTP", { token: "member-token" });
    await createApi(service, "HTTP", { token: "member-token" });
    const { nextToken } = await getPage("/v2/apis", { maxResults: "1" }, "member-token");
    expect(nextToken).toBeDefined();
    expectBadRequest(await call(service, `/v2/apis?nextToken=${encodeURIComponent(nextToken!)}`, { method: "GET" }), "nextToken");
    expectStatus(await call(service, `/v2/apis?nextToken=${encodeURIComponent(nextToken!)}`, { method: "GET", token: "member-token" }), 200);
  });

  it.each(["0", "501", "abc"])("rejects GetApis and GetRoutes with maxResults %s", async (maxResults) => {
    const apiId = (await createApi(service, "HTTP")).apiId;
    expectBadRequest(await call(service, `/v2/apis?maxResults=${maxResults}`, { method: "GET" }), "maxResults");
    expectBadRequest(await call(service, `/v2/apis/${apiId}/routes?maxResults=${maxResults}`, { method: "GET" }), "maxResults");
  });
});
