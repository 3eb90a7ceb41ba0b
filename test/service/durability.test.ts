import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { WorldInput } from "../../src/service/index.js";
import { convergeCommand } from "../support/converge-command.js";
import { startServeProcess, type ServeProcess } from "../support/serve-process.js";

/**
 * docs/manual/embedded-service.md, "Durability": with --state-file a write is acknowledged only once it is on disk,
 * and a restart after kill -9 loses no acknowledged write. The service runs as a real child process
 * (`converge serve`), is killed with SIGKILL in the middle of a burst of concurrent writes, and a new
 * process on the same state file must hold every write that was answered 200.
 */

const MANAGEMENT = "111111111111";
const MANAGEMENT_TOKEN = "admin-token";
const MEMBERS = Array.from({ length: 100 }, (_, i) => String(200_000_000_000 + i));
const CONTACT_TYPES = ["BILLING", "OPERATIONS", "SECURITY"] as const;
const OPT_IN_REGIONS = ["af-south-1", "ap-east-1", "eu-south-1", "me-south-1"];
const BURST_CONNECTIONS = 32;
const INTEGRATIONS_API = "durable001";
const ROUTES_API = "durable002";
const GATEWAY_WRITES = 120;
/** Quick-created APIs whose managed $default routes the UpdateRoute writes patch, one each. */
const UPDATE_APIS = Array.from({ length: 40 }, (_, i) => `durupd${String(i).padStart(4, "0")}`);
/** The kill lands once this many writes were answered: well inside the burst. */
const KILL_AFTER_ANSWERS = 200;

const world: WorldInput = {
  organization: {
    managementAccountId: MANAGEMENT,
    memberAccountIds: MEMBERS,
    delegatedAdminAccountIds: [],
    allFeaturesEnabled: true,
    trustedAccess: true,
  },
  accounts: [MANAGEMENT, ...MEMBERS],
  identities: [{ token: MANAGEMENT_TOKEN, accountId: MANAGEMENT, allow: ["*"] }],
  regions: [
    { regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" },
    { regionName: "eu-west-1", optStatus: "ENABLED_BY_DEFAULT" },
    ...OPT_IN_REGIONS.map((regionName) => ({ regionName, optStatus: "DISABLED" as const })),
  ],
  // Enabling settles at once, so that an acknowledged EnableRegion reads back exactly ENABLED.
  regionTransitionMs: 0,
  apis: [
    { apiId: INTEGRATIONS_API, accountId: MANAGEMENT, name: "durable-integrations", protocolType: "HTTP" },
    { apiId: ROUTES_API, accountId: MANAGEMENT, name: "durable-routes", protocolType: "HTTP", target: "https://backend.example/default" },
    ...UPDATE_APIS.map((apiId) => ({ apiId, accountId: MANAGEMENT, name: apiId, protocolType: "HTTP" as const, target: `https://${apiId}.example/` })),
  ],
};

interface Answer {
  readonly status: number;
  readonly json: unknown;
}

/**
 * One write of the burst: how to send it, and how to check a restarted service for it.
 * `verify` returns a description of what is wrong, or undefined. An acknowledged write must be there
 * exactly; an unacknowledged one may be absent or there exactly, never anything else.
 */
interface DurableWrite {
  readonly label: string;
  send(client: Pool): Promise<Answer>;
  verify(client: Pool, acknowledged: boolean): Promise<string | undefined>;
}

/**
 * A kind of durable write the burst exercises. Every write a family produces targets its own key,
 * so "the last acknowledged value" is the only value it can have.
 *
 * The gateway's writes (CreateIntegration, CreateRoute, UpdateRoute) are families like the account's.
 */
interface WriteFamily {
  readonly name: string;
  /** Reads done before the burst (e.g. finding IDs), so that the burst holds only writes. */
  prepare?(client: Pool): Promise<void>;
  writes(): DurableWrite[];
}

async function get(client: Pool, path: string): Promise<Answer> {
  const response = await client.request({ method: "GET", path, headers: { authorization: `Bearer ${MANAGEMENT_TOKEN}` } });
  const text = await response.body.text();
  return { status: response.statusCode, json: text.length > 0 ? JSON.parse(text) : undefined };
}

/** A gateway write is there exactly once (acknowledged), or at most once (not acknowledged). */
async function verifyListed(client: Pool, path: string, label: string, matches: (item: Record<string, unknown>) => boolean, acknowledged: boolean): Promise<string | undefined> {
  const read = await get(client, `${path}?maxResults=500`);
  if (read.status !== 200) return `${label}: listing answered ${read.status}`;
  const found = ((read.json as { items: Array<Record<string, unknown>> }).items).filter(matches);
  if (found.length > 1) return `${label} is there ${found.length} times: expected once`;
  if (acknowledged && found.length === 0) return `${label} was acknowledged but is missing after the restart`;
  return undefined;
}

async function post(client: Pool, path: string, body: unknown, headers: Record<string, string> = {}, method: "POST" | "PATCH" = "POST"): Promise<Answer> {
  const response = await client.request({
    method,
    path,
    headers: { authorization: `Bearer ${MANAGEMENT_TOKEN}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: text.length > 0 ? JSON.parse(text) : undefined };
}

const alternateContactWrites: WriteFamily = {
  name: "PutAlternateContact",
  writes: () => MEMBERS.flatMap((account, a) => CONTACT_TYPES.map((type, t): DurableWrite => {
    const contact = {
      AlternateContactType: type,
      EmailAddress: `contact-${a}-${t}@example.com`,
      Name: `Contact ${a}/${t}`,
      PhoneNumber: `+1 555 ${String(a * 3 + t).padStart(4, "0")}`,
      Title: `Title ${type.toLowerCase()} ${a}`,
    };
    const key = { AccountId: account, AlternateContactType: type };
    return {
      label: `PutAlternateContact ${account}/${type}`,
      // Half of the writes use form B, so that both routes reach the same journal.
      send: (client) => a % 2 === 0
        ? post(client, "/putAlternateContact", { ...key, ...contact })
        : post(client, "/", { ...key, ...contact }, { "x-svc-target": "AccountService_20210201.PutAlternateContact" }),
      async verify(client, acknowledged) {
        const read = await post(client, "/getAlternateContact", key);
        if (read.status === 404 && !acknowledged) return undefined;
        if (read.status !== 200) return `GetAlternateContact ${account}/${type} answered ${read.status} ${JSON.stringify(read.json)}: expected 200${acknowledged ? "" : " or 404"}`;
        const stored = (read.json as { AlternateContact?: unknown }).AlternateContact;
        if (JSON.stringify(stored) !== JSON.stringify(contact)) return `${account}/${type} holds ${JSON.stringify(stored)}: expected ${JSON.stringify(contact)}`;
        return undefined;
      },
    };
  })),
};

const regionOptInWrites: WriteFamily = {
  name: "EnableRegion",
  writes: () => MEMBERS.flatMap((account) => OPT_IN_REGIONS.map((region): DurableWrite => ({
    label: `EnableRegion ${account}/${region}`,
    send: (client) => post(client, "/enableRegion", { AccountId: account, RegionName: region }),
    async verify(client, acknowledged) {
      const read = await post(client, "/getRegionOptStatus", { AccountId: account, RegionName: region });
      const status = (read.json as { RegionOptStatus?: unknown } | undefined)?.RegionOptStatus;
      const allowed = acknowledged ? ["ENABLED"] : ["ENABLED", "DISABLED"];
      if (read.status !== 200 || !allowed.includes(status as string)) {
        return `GetRegionOptStatus ${account}/${region} answered ${read.status} ${JSON.stringify(read.json)}: expected 200 with RegionOptStatus ${allowed.join(" or ")}`;
      }
      return undefined;
    },
  }))),
};

const createIntegrationWrites: WriteFamily = {
  name: "CreateIntegration",
  writes: () => Array.from({ length: GATEWAY_WRITES }, (_, i): DurableWrite => {
    const uri = `https://backend-${i}.example/api`;
    const label = `CreateIntegration ${INTEGRATIONS_API} ${uri}`;
    return {
      label,
      send: (client) => post(client, `/v2/apis/${INTEGRATIONS_API}/integrations`, { integrationType: "HTTP_PROXY", integrationUri: uri, integrationMethod: "ANY", payloadFormatVersion: "1.0", timeoutInMillis: 1000 + i }),
      verify: (client, acknowledged) => verifyListed(client, `/v2/apis/${INTEGRATIONS_API}/integrations`, label,
        (item) => item.integrationUri === uri && item.timeoutInMillis === 1000 + i, acknowledged),
    };
  }),
};

const createRouteWrites: WriteFamily = {
  name: "CreateRoute",
  writes: () => Array.from({ length: GATEWAY_WRITES }, (_, i): DurableWrite => {
    const routeKey = `GET /durable/${i}`;
    const label = `CreateRoute ${ROUTES_API} ${routeKey}`;
    return {
      label,
      send: (client) => post(client, `/v2/apis/${ROUTES_API}/routes`, { routeKey, authorizationType: "JWT", authorizerId: `auth${i}` }),
      verify: (client, acknowledged) => verifyListed(client, `/v2/apis/${ROUTES_API}/routes`, label,
        (item) => item.routeKey === routeKey && item.authorizerId === `auth${i}`, acknowledged),
    };
  }),
};

/** One PATCH of the managed $default route of each of UPDATE_APIS. */
const defaultRouteIds = new Map<string, string>();
async function defaultRoute(client: Pool, apiId: string) {
  return ((await get(client, `/v2/apis/${apiId}/routes`)).json as { items: Array<{ routeId: string; routeKey: string; operationName?: string }> })
    .items.find((route) => route.routeKey === "$default")!;
}
const updateRouteWrites: WriteFamily = {
  name: "UpdateRoute",
  async prepare(client) {
    for (const apiId of UPDATE_APIS) defaultRouteIds.set(apiId, (await defaultRoute(client, apiId)).routeId);
  },
  writes: () => UPDATE_APIS.map((apiId): DurableWrite => {
    const operationName = `durable-update-${apiId}`;
    const label = `UpdateRoute ${apiId} $default operationName`;
    return {
      label,
      send: (client) => post(client, `/v2/apis/${apiId}/routes/${defaultRouteIds.get(apiId)}`, { operationName }, {}, "PATCH"),
      async verify(client, acknowledged) {
        const name = (await defaultRoute(client, apiId)).operationName;
        if (acknowledged && name !== operationName) return `${label} was acknowledged but operationName is ${JSON.stringify(name)} after the restart`;
        if (name !== undefined && name !== operationName) return `${label}: operationName is ${JSON.stringify(name)}, a value never sent`;
        return undefined;
      },
    };
  }),
};

const WRITE_FAMILIES: ReadonlyArray<WriteFamily> = [alternateContactWrites, regionOptInWrites, createIntegrationWrites, createRouteWrites, updateRouteWrites];

/** The writes of every family, interleaved so that the kill interrupts each family. */
function burstWrites(): Array<DurableWrite & { readonly family: string }> {
  const lists = WRITE_FAMILIES.map((family) => family.writes().map((write) => ({ ...write, family: family.name })));
  const out: Array<DurableWrite & { readonly family: string }> = [];
  for (let i = 0; out.length < lists.reduce((sum, list) => sum + list.length, 0); i += 1) {
    for (const list of lists) if (i < list.length) out.push(list[i]!);
  }
  return out;
}

/** undici error codes of a request whose connection died, or could not be made, once the service was killed. */
const CONNECTION_LOST = new Set(["UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNREFUSED", "ECONNRESET", "EPIPE"]);

/** 200 for account writes and updates, 201 for gateway creates. */
function isSuccess(status: number | undefined): boolean {
  return status === 200 || status === 201;
}

interface BurstOutcome {
  readonly write: DurableWrite & { readonly family: string };
  /** The HTTP status of the answer, or undefined when the connection died first. */
  readonly status: number | undefined;
}

/**
 * Fires every write at once over BURST_CONNECTIONS connections and SIGKILLs the service as soon as
 * KILL_AFTER_ANSWERS answers came back. Resolves once every write was answered or failed.
 */
async function burstThenKill(service: ServeProcess): Promise<BurstOutcome[]> {
  const client = new Pool(service.url, { connections: BURST_CONNECTIONS });
  let answered = 0;
  for (const family of WRITE_FAMILIES) await family.prepare?.(client);
  try {
    return await Promise.all(burstWrites().map(async (write): Promise<BurstOutcome> => {
      let status: number | undefined;
      try {
        status = (await write.send(client)).status;
      } catch (error) {
        // No answer because the connection died with the process: such a write was never acknowledged.
        if (CONNECTION_LOST.has((error as { code?: unknown }).code as string)) return { write, status: undefined };
        throw error;
      }
      answered += 1;
      if (answered === KILL_AFTER_ANSWERS) service.child.kill("SIGKILL");
      return { write, status };
    }));
  } finally {
    await client.destroy();
  }
}

/** Checks every write against a running service; returns every problem found. */
async function verifyAll(url: string, outcomes: ReadonlyArray<BurstOutcome>): Promise<string[]> {
  const client = new Pool(url, { connections: 16 });
  try {
    const problems = await Promise.all(outcomes.map(({ write, status }) => write.verify(client, isSuccess(status))));
    return problems.filter((problem): problem is string => problem !== undefined);
  } finally {
    await client.close();
  }
}

let directory: string;
let worldFile: string;
let stateFile: string;
const running: ServeProcess[] = [];

async function serve(): Promise<ServeProcess> {
  const service = await startServeProcess({ worldFile, stateFile });
  running.push(service);
  return service;
}

beforeAll(() => {
  convergeCommand();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop("SIGKILL")));
  await rm(directory, { recursive: true, force: true });
});

async function freshDirectory(): Promise<void> {
  directory = await mkdtemp(join(tmpdir(), "converge-durability-"));
  worldFile = join(directory, "world.json");
  stateFile = join(directory, "state.jsonl");
  await writeFile(worldFile, JSON.stringify(world));
}

/** Runs the burst on a fresh service, kills it, and checks that the kill really cut the burst. */
async function killedBurst(): Promise<BurstOutcome[]> {
  const first = await serve();
  const outcomes = await burstThenKill(first);
  const exit = await first.exited;
  expect(exit.signal, "the first service must die of the SIGKILL").toBe("SIGKILL");

  const acknowledged = outcomes.filter((o) => isSuccess(o.status));
  const unanswered = outcomes.filter((o) => o.status === undefined);
  const otherAnswers = outcomes.filter((o) => o.status !== undefined && !isSuccess(o.status)).map((o) => `${o.write.label}: ${o.status}`);
  expect(otherAnswers, "every answered write of the burst must succeed").toEqual([]);
  expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_ANSWERS);
  expect(unanswered.length, "the kill must land in the middle of the burst").toBeGreaterThan(0);
  for (const family of WRITE_FAMILIES) {
    expect(acknowledged.some((o) => o.write.family === family.name), `some ${family.name} writes acknowledged before the kill`).toBe(true);
  }
  return outcomes;
}

describe("converge serve --state-file", () => {
  it("keeps every acknowledged write after kill -9 in the middle of a burst of concurrent writes", async () => {
    await freshDirectory();
    const outcomes = await killedBurst();

    const second = await serve();
    expect(await verifyAll(second.url, outcomes)).toEqual([]);
  });

  it("starts cleanly on a state file that ends in a torn line, and keeps appending after it", async () => {
    await freshDirectory();
    const outcomes = await killedBurst();

    const TORN_MARKER = "torn-tail-marker";
    // A write cut off by the crash: a partial journal line with no newline.
    const torn = `{"m":[["contacts","${MEMBERS[0]}/BILLING",{"AlternateContactType":"BILLING","EmailAddress":"${TORN_MARKER}`;
    await appendFile(stateFile, torn);

    const second = await serve();
    expect(await verifyAll(second.url, outcomes)).toEqual([]);
    const own = { AlternateContactType: "SECURITY", EmailAddress: "after-torn@example.com", Name: "After", PhoneNumber: "+1 555 0000", Title: "After the torn line" };
    const client = new Pool(second.url);
    try {
      expect((await post(client, "/putAlternateContact", own)).status).toBe(200);
    } finally {
      await client.close();
    }
    expect(await second.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    const journal = await readFile(stateFile, "utf8");
    expect(journal.includes(TORN_MARKER), "the torn tail is dropped before new lines are appended").toBe(false);
    expect(journal.endsWith("\n"), "the journal ends in a complete line").toBe(true);

    const third = await serve();
    expect(await verifyAll(third.url, outcomes)).toEqual([]);
    const reader = new Pool(third.url);
    try {
      const read = await post(reader, "/getAlternateContact", { AlternateContactType: "SECURITY" });
      expect(read).toEqual({ status: 200, json: { AlternateContact: own } });
    } finally {
      await reader.close();
    }
  });

  it("prints the listening line, exits with code 0 on SIGTERM, and keeps what it acknowledged", async () => {
    await freshDirectory();
    const first = await serve();
    expect(first.listeningLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const contact = { AlternateContactType: "BILLING", EmailAddress: "billing@example.com", Name: "Billing", PhoneNumber: "+1 555 0100", Title: "Billing lead" };
    const client = new Pool(first.url);
    try {
      expect((await post(client, "/putAlternateContact", { AccountId: MEMBERS[7], ...contact })).status).toBe(200);
    } finally {
      await client.close();
    }

    expect(await first.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(first.stderr()).not.toMatch(/unexpected error/);

    const second = await serve();
    const reader = new Pool(second.url);
    try {
      const read = await post(reader, "/getAlternateContact", { AccountId: MEMBERS[7], AlternateContactType: "BILLING" });
      expect(read).toEqual({ status: 200, json: { AlternateContact: contact } });
    } finally {
      await reader.close();
    }
  });
});
