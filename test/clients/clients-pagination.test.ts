import { beforeAll, describe, expect, test } from "vitest";
import { collect, paginate, type Clients } from "../../src/clients/index.js";
import { seededWorld } from "./client-fixtures.js";
import { useWorld } from "../support/world.js";

const ITEMS = 57;
const PAGE_SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const STATUSES = ["ENABLED_BY_DEFAULT", "ENABLED", "DISABLED", "ENABLING", "DISABLING"] as const;
const REGION_NAMES = Array.from({ length: ITEMS }, (_, index) => `zone-${String(index).padStart(2, "0")}`);

/** Asserts that `ids` holds every one of `expected` exactly once, in order. */
function expectEveryItemOnce(ids: ReadonlyArray<string>, expected: ReadonlyArray<string>): void {
  expect(ids).toHaveLength(ITEMS);
  expect(new Set(ids).size).toBe(ITEMS);
  expect(ids).toEqual(expected);
}

describe(`pagination over ${ITEMS} items`, () => {
  const world = useWorld({
    world: seededWorld({ regions: REGION_NAMES.map((regionName, index) => ({ regionName, optStatus: STATUSES[index % STATUSES.length]! })) }),
  });
  const { service, clients } = world;
  let standalone: Clients;
  let apiId: string;
  let routeIds: string[];
  let integrationIds: string[];
  let apiIds: string[];

  beforeAll(async () => {
    standalone = world.clientsAs("standalone-token");
    apiId = (await clients.gateway.createApi({ name: "paged", protocolType: "HTTP" })).apiId;
    routeIds = [];
    integrationIds = [];
    for (let index = 0; index < ITEMS; index += 1) {
      routeIds.push((await clients.gateway.createRoute(apiId, { routeKey: `GET /items/${index}` })).routeId);
      integrationIds.push((await clients.gateway.createIntegration(apiId, { integrationType: "HTTP_PROXY", integrationUri: `https://backend.example/${index}`, integrationMethod: "ANY", payloadFormatVersion: "1.0" })).integrationId);
    }
    // the standalone account owns exactly these APIs
    apiIds = [];
    for (let index = 0; index < ITEMS; index += 1) apiIds.push((await standalone.gateway.createApi({ name: `api-${index}`, protocolType: "HTTP" })).apiId);
  });

  /** Runs `list` and answers the ids it yielded and how many requests of `operation` it sent. */
  async function listed(operation: string, list: () => AsyncIterable<string>): Promise<{ ids: string[]; requests: number }> {
    const before = service.requests.count({ operation });
    const ids: string[] = [];
    for await (const id of list()) ids.push(id);
    return { ids, requests: service.requests.count({ operation }) - before };
  }

  test.each(PAGE_SIZES)("ListRegions with pages of %i yields every Region exactly once, sorted by name", async (pageSize) => {
    const { ids, requests } = await listed("ListRegions", async function* () {
      for await (const region of clients.account.listRegions({}, { pageSize })) yield region.RegionName;
    });
    expectEveryItemOnce(ids, REGION_NAMES);
    expect(requests).toBe(Math.ceil(ITEMS / pageSize));
  });

  test.each(PAGE_SIZES)("GetRoutes with pages of %i yields every route exactly once", async (pageSize) => {
    const { ids, requests } = await listed("GetRoutes", async function* () {
      for await (const route of clients.gateway.routes(apiId, { pageSize })) yield route.routeId;
    });
    expectEveryItemOnce(ids, routeIds);
    expect(requests).toBe(Math.ceil(ITEMS / pageSize));
  });

  test.each(PAGE_SIZES)("GetIntegrations with pages of %i yields every integration exactly once", async (pageSize) => {
    const { ids, requests } = await listed("GetIntegrations", async function* () {
      for await (const integration of clients.gateway.integrations(apiId, { pageSize })) yield integration.integrationId;
    });
    expectEveryItemOnce(ids, integrationIds);
    expect(requests).toBe(Math.ceil(ITEMS / pageSize));
  });

  test.each(PAGE_SIZES)("GetApis with pages of %i yields every API exactly once", async (pageSize) => {
    const { ids, requests } = await listed("GetApis", async function* () {
      for await (const api of standalone.gateway.apis({ pageSize })) yield api.apiId;
    });
    expectEveryItemOnce(ids, apiIds);
    expect(requests).toBe(Math.ceil(ITEMS / pageSize));
  });

  test("ListRegions with a filter pages through only the matching Regions", async () => {
    const disabled = await collect(clients.account.listRegions({ RegionOptStatusContains: ["DISABLED"] }, { pageSize: 4 }));
    expect(disabled.map((region) => region.RegionName)).toEqual(REGION_NAMES.filter((_, index) => STATUSES[index % STATUSES.length] === "DISABLED"));
    expect(disabled.every((region) => region.RegionOptStatus === "DISABLED")).toBe(true);
  });

  test("iteration is lazy: breaking after the first item sends one page request", async () => {
    const before = service.requests.count({ operation: "GetRoutes" });
    for await (const route of clients.gateway.routes(apiId, { pageSize: 5 })) {
      expect(route.routeId).toBe(routeIds[0]);
      break;
    }
    expect(service.requests.count({ operation: "GetRoutes" }) - before).toBe(1);

    const regionsBefore = service.requests.count({ operation: "ListRegions" });
    for await (const region of clients.account.listRegions({}, { pageSize: 2 })) {
      expect(region.RegionName).toBe(REGION_NAMES[0]);
      break;
    }
    expect(service.requests.count({ operation: "ListRegions" }) - regionsBefore).toBe(1);
  });

  test("iteration is lazy: the next page is fetched only when its first item is asked for", async () => {
    const before = service.requests.count({ operation: "GetIntegrations" });
    const iterator = clients.gateway.integrations(apiId, { pageSize: 5 });
    const sent = () => service.requests.count({ operation: "GetIntegrations" }) - before;
    expect(sent()).toBe(0);
    for (let index = 0; index < 5; index += 1) expect((await iterator.next()).value).toMatchObject({ integrationId: integrationIds[index] });
    expect(sent()).toBe(1);
    expect((await iterator.next()).value).toMatchObject({ integrationId: integrationIds[5] });
    expect(sent()).toBe(2);
    await iterator.return(undefined);
    expect(sent()).toBe(2);
  });

  test("items created and deleted between pages never make a surviving item skip or repeat", async () => {
    const mutable = (await clients.gateway.createApi({ name: "mutable", protocolType: "HTTP" })).apiId;
    const original: string[] = [];
    for (let index = 0; index < 20; index += 1) original.push((await clients.gateway.createRoute(mutable, { routeKey: `GET /m/${index}` })).routeId);
    const seen: string[] = [];
    let step = 0;
    for await (const route of clients.gateway.routes(mutable, { pageSize: 3 })) {
      seen.push(route.routeId);
      step += 1;
      // delete the route just seen and, once, one not yet seen; add new routes early on
      await clients.gateway.deleteRoute(mutable, route.routeId);
      if (step === 4) await clients.gateway.deleteRoute(mutable, original[10]!);
      if (step <= 5) await clients.gateway.createRoute(mutable, { routeKey: `POST /new/${step}` });
      if (step > 100) throw new Error("the listing does not end");
    }
    const survivors = original.filter((id) => id !== original[10]);
    expect(seen.filter((id) => original.includes(id))).toEqual(survivors);
    expect(seen).toHaveLength(survivors.length + 5);
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe("paginate", () => {
  test("stops at the first page without a token (absent or empty) and never asks again", async () => {
    const tokens: Array<string | undefined> = [];
    const pages = [{ items: [1, 2], nextToken: "a" }, { items: [], nextToken: "b" }, { items: [3], nextToken: "" }, { items: [99] }];
    const items = await collect(paginate(async (token) => {
      tokens.push(token);
      return pages[tokens.length - 1]!;
    }));
    expect(items).toEqual([1, 2, 3]);
    expect(tokens).toEqual([undefined, "a", "b"]);
  });

  test("rejects with the page's error and stops", async () => {
    let calls = 0;
    const failing = paginate<number>(async () => {
      calls += 1;
      if (calls === 2) throw new Error("page 2 failed");
      return { items: [calls], nextToken: "more" };
    });
    const seen: number[] = [];
    await expect((async () => {
      for await (const item of failing) seen.push(item);
    })()).rejects.toThrow("page 2 failed");
    expect({ seen, calls }).toEqual({ seen: [1], calls: 2 });
  });
});
