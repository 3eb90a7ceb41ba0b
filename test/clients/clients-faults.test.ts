import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  ApiError,
  collect,
  createClients,
  createPool,
  Credentials,
  isAmbiguousWrite,
  isApiError,
  GatewayClient,
  Transport,
  type AmbiguousWriteError,
} from "../../src/clients/index.js";
import { inBatches } from "../support/gateway.js";
import { rejectionOf, SEEDED_API_ID, seededWorld, watchPool, type WireExchange } from "./client-fixtures.js";
import { clientsFor, useWorld } from "../support/world.js";

/** An HTTP_PROXY integration whose URI identifies it (its natural key in these tests). */
function proxyIntegration(uri: string) {
  return { integrationType: "HTTP_PROXY" as const, integrationUri: uri, integrationMethod: "ANY", payloadFormatVersion: "1.0" };
}

/**
 * What the reconciler does with a create: on an ambiguous failure, read before creating again, so
 * that the create never duplicates. Returns the object and how many ambiguous failures it met.
 */
async function createWithoutDuplicates<T>(create: () => Promise<T>, find: () => Promise<T | undefined>): Promise<{ created: T; ambiguous: number }> {
  let ambiguous = 0;
  for (let attempt = 1; attempt <= 20; attempt += 1) {
    try {
      return { created: await create(), ambiguous };
    } catch (error) {
      if (!isAmbiguousWrite(error)) throw error;
      ambiguous += 1;
      const found = await find();
      if (found !== undefined) return { created: found, ambiguous };
    }
  }
  throw new Error("the create stayed ambiguous 20 times");
}

describe("clients against a service answering 30% of requests with 500 (errorRate 0.3)", () => {
  const { service, clients } = useWorld({ world: seededWorld(), faults: { errorRate: 0.3, seed: 20_240_601 }, retry: { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 20 } });

  test("every read and idempotent write succeeds; creates are made safe by reading first", async () => {
    const { account, gateway } = clients;
    const rounds = 8;
    let ambiguousCreates = 0;
    let calls = 0;
    const call = async <T>(pending: Promise<T>): Promise<T> => {
      calls += 1;
      return pending;
    };

    for (let round = 0; round < rounds; round += 1) {
      // creates are not idempotent: under errorRate they may be ambiguous, which the helper resolves by reading
      const uri = `https://backend.example/round-${round}`;
      const integration = await createWithoutDuplicates(
        () => gateway.createIntegration(SEEDED_API_ID, proxyIntegration(uri)),
        async () => (await collect(gateway.integrations(SEEDED_API_ID, { pageSize: 2 }))).find((item) => item.integrationUri === uri),
      );
      const routeKey = `GET /round/${round}`;
      const route = await createWithoutDuplicates(
        () => gateway.createRoute(SEEDED_API_ID, { routeKey }),
        async () => (await collect(gateway.routes(SEEDED_API_ID, { pageSize: 2 }))).find((item) => item.routeKey === routeKey),
      );
      const apiName = `chaos-${round}`;
      const api = await createWithoutDuplicates(
        () => gateway.createApi({ name: apiName, protocolType: "HTTP" }),
        async () => (await collect(gateway.apis({ pageSize: 2 }))).find((item) => item.name === apiName),
      );
      ambiguousCreates += integration.ambiguous + route.ambiguous + api.ambiguous;
      const integrationId = integration.created.integrationId;
      const routeId = route.created.routeId;
      const apiId = api.created.apiId;

      // gateway reads
      expect(await call(gateway.getApi(SEEDED_API_ID))).toMatchObject({ apiId: SEEDED_API_ID, name: "seeded", protocolType: "HTTP" });
      expect(await call(gateway.getApi(apiId))).toMatchObject({ apiId, name: apiName });
      expect(await call(gateway.getIntegration(SEEDED_API_ID, integrationId))).toMatchObject({ integrationId, integrationUri: uri, apiGatewayManaged: false });
      expect(await call(gateway.getRoute(SEEDED_API_ID, routeId))).toMatchObject({ routeId, routeKey });
      const routes = await call(collect(gateway.routes(SEEDED_API_ID, { pageSize: 1 })));
      expect(routes.filter((item) => item.routeKey === routeKey).map((item) => item.routeId)).toEqual([routeId]);
      const integrations = await call(collect(gateway.integrations(SEEDED_API_ID, { pageSize: 1 })));
      expect(integrations.filter((item) => item.integrationUri === uri).map((item) => item.integrationId)).toEqual([integrationId]);
      expect((await call(collect(gateway.apis({ pageSize: 1 })))).filter((item) => item.name === apiName).map((item) => item.apiId)).toEqual([apiId]);

      // gateway idempotent writes (updates, deletes), each checked by reading back
      expect(await call(gateway.updateRoute(SEEDED_API_ID, routeId, { target: `integrations/${integrationId}`, operationName: `op${round}` })))
        .toMatchObject({ routeId, target: `integrations/${integrationId}`, operationName: `op${round}` });
      expect(await call(gateway.updateIntegration(SEEDED_API_ID, integrationId, { description: `round ${round}`, timeoutInMillis: 5000 })))
        .toMatchObject({ integrationId, description: `round ${round}`, timeoutInMillis: 5000 });
      expect(await call(gateway.getIntegration(SEEDED_API_ID, integrationId))).toMatchObject({ description: `round ${round}` });
      expect(await call(gateway.deleteRoute(SEEDED_API_ID, routeId))).toBe(true);
      expect(await call(gateway.getRoute(SEEDED_API_ID, routeId))).toBeUndefined();
      expect(await call(gateway.deleteRoute(SEEDED_API_ID, routeId))).toBe(false);
      expect(await call(gateway.deleteIntegration(SEEDED_API_ID, integrationId))).toBe(true);
      expect(await call(gateway.getIntegration(SEEDED_API_ID, integrationId))).toBeUndefined();
      expect(await call(gateway.deleteIntegration(SEEDED_API_ID, integrationId))).toBe(false);
      expect(await call(gateway.deleteApi(apiId))).toBe(true);
      expect(await call(gateway.getApi(apiId))).toBeUndefined();
      expect(await call(gateway.deleteApi(apiId))).toBe(false);

      // account reads and idempotent writes
      const contact = { AlternateContactType: "SECURITY" as const, Name: `Round ${round}`, Title: "CISO", EmailAddress: "sec@example.com", PhoneNumber: "+1 555 0100" };
      await call(account.putAlternateContact(contact));
      await call(account.putAlternateContact(contact));
      expect(await call(account.getAlternateContact({ AlternateContactType: "SECURITY" }))).toEqual(contact);
      const regions = await call(collect(account.listRegions({}, { pageSize: 3 })));
      expect(regions.map((region) => region.RegionName)).toEqual(["af-south-1", "ap-east-1", "ap-south-2", "eu-south-1", "eu-west-1", "me-south-1", "us-east-1", "us-west-2"]);
      expect(await call(account.getRegionOptStatus({ RegionName: "me-south-1" }))).toEqual({ RegionName: "me-south-1", RegionOptStatus: "ENABLED" });
      await call(account.enableRegion({ RegionName: "me-south-1" }));
      await call(account.disableRegion({ RegionName: "af-south-1" }));
      expect(await call(account.getRegionOptStatus({ RegionName: "af-south-1" }))).toEqual({ RegionName: "af-south-1", RegionOptStatus: "DISABLED" });
      expect(await call(account.deleteAlternateContact({ AlternateContactType: "SECURITY" }))).toBe(true);
      expect(await call(account.getAlternateContact({ AlternateContactType: "SECURITY" }))).toBeUndefined();
      expect(await call(account.deleteAlternateContact({ AlternateContactType: "SECURITY" }))).toBe(false);
    }

    // the faults really happened, and often: every one of them was absorbed by a retry
    const injected = service.requests.count({ status: 500 });
    expect(calls).toBe(rounds * 30);
    expect(injected).toBeGreaterThan(rounds * 5);
    console.info(`errorRate 0.3: ${calls} reads/idempotent writes all succeeded; the service injected ${injected} 500s; ${ambiguousCreates} creates were ambiguous and resolved by reading`);
  }, 60_000);
});

describe("clients against a service that loses the answer of every write (dropAfterWriteRate 1)", () => {
  const { service, clients } = useWorld({ world: seededWorld(), faults: { dropAfterWriteRate: 1 } });

  test("rejects a create with AmbiguousWriteError, sends it exactly once, and the object exists on the service", async () => {
    const { gateway } = clients;
    const before = service.requests.count({ operation: "CreateIntegration" });
    const error = await rejectionOf(gateway.createIntegration(SEEDED_API_ID, proxyIntegration("https://backend.example/dropped")));

    expect(isAmbiguousWrite(error)).toBe(true);
    const ambiguous = error as AmbiguousWriteError;
    expect({ code: ambiguous.code, name: ambiguous.name, service: ambiguous.service, operation: ambiguous.operation })
      .toEqual({ code: "CONVERGE_AMBIGUOUS_WRITE", name: "AmbiguousWriteError", service: "apigateway", operation: "CreateIntegration" });
    expect(isApiError(ambiguous.underlying)).toBe(true);
    expect({ status: (ambiguous.underlying as ApiError).status, errorName: (ambiguous.underlying as ApiError).errorName })
      .toEqual({ status: 500, errorName: "InternalServerException" });
    expect(ambiguous.message).toMatch(/may or may not have been applied.*read the live state/);

    // never retried blindly: the service saw this create once
    expect(service.requests.count({ operation: "CreateIntegration" }) - before).toBe(1);
    // and it was applied: exactly one integration with that URI exists
    const live = (await collect(gateway.integrations(SEEDED_API_ID))).filter((item) => item.integrationUri === "https://backend.example/dropped");
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ integrationType: "HTTP_PROXY", integrationMethod: "ANY", apiGatewayManaged: false });
  });

  test("rejects CreateApi and CreateRoute the same way, each sent once and applied once", async () => {
    const { gateway } = clients;
    const apisBefore = service.requests.count({ operation: "CreateApi" });
    const apiError = await rejectionOf(gateway.createApi({ name: "dropped-api", protocolType: "HTTP" }));
    expect(isAmbiguousWrite(apiError)).toBe(true);
    expect(service.requests.count({ operation: "CreateApi" }) - apisBefore).toBe(1);
    expect((await collect(gateway.apis())).filter((api) => api.name === "dropped-api")).toHaveLength(1);

    const routesBefore = service.requests.count({ operation: "CreateRoute" });
    const routeError = await rejectionOf(gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /dropped" }));
    expect(isAmbiguousWrite(routeError)).toBe(true);
    expect(service.requests.count({ operation: "CreateRoute" }) - routesBefore).toBe(1);
    expect((await collect(gateway.routes(SEEDED_API_ID))).filter((route) => route.routeKey === "GET /dropped")).toHaveLength(1);
  });

  test("rejects an idempotent update whose answer is always lost with the last 500 (an ApiError), after maxAttempts attempts", async () => {
    const { gateway } = clients;
    const managed = (await collect(gateway.integrations(SEEDED_API_ID))).find((item) => item.apiGatewayManaged === true)!;
    const before = service.requests.count({ operation: "UpdateIntegration" });
    const error = await rejectionOf(gateway.updateIntegration(SEEDED_API_ID, managed.integrationId, { description: "applied anyway" }));

    expect(isAmbiguousWrite(error)).toBe(false);
    expect(isApiError(error)).toBe(true);
    expect({ status: (error as ApiError).status, operation: (error as ApiError).operation }).toEqual({ status: 500, operation: "UpdateIntegration" });
    expect(service.requests.count({ operation: "UpdateIntegration" }) - before).toBe(4);
    expect(await gateway.getIntegration(SEEDED_API_ID, managed.integrationId)).toMatchObject({ description: "applied anyway" });
  });
});

/**
 * Asserts one throttled retry on the wire: 200, 429, 200; the 429 asked for a wait (x-svc-retry-after-ms)
 * in (above, atMost] with Retry-After 1, and the retry left no sooner than asked (timer rounding allowance: 2 ms).
 */
function expectOneRetryAsAsked(exchanges: ReadonlyArray<WireExchange>, asked: { readonly above: number; readonly atMost: number }): { throttled: WireExchange; askedMs: number; waitedMs: number } {
  expect(exchanges.map((exchange) => exchange.status)).toEqual([200, 429, 200]);
  const throttled = exchanges[1]!;
  const askedMs = Number(throttled.retryAfterMs);
  expect(throttled.retryAfter).toBe("1");
  expect(askedMs).toBeGreaterThan(asked.above);
  expect(askedMs).toBeLessThanOrEqual(asked.atMost);
  const waitedMs = exchanges[2]!.sentAt - throttled.receivedAt!;
  expect(waitedMs).toBeGreaterThanOrEqual(askedMs - 2);
  return { throttled, askedMs, waitedMs };
}

describe("Retry-After", () => {
  // one service per throttle setting (the throttle is per identity and operation)
  const { service: onePerSecond } = useWorld({ world: seededWorld({ throttle: { ratePerSecond: 1, burst: 1 } }) });
  const { service: fourPerSecond } = useWorld({ world: seededWorld({ throttle: { ratePerSecond: 4, burst: 1 } }) });
  const { service: twoPerSecond } = useWorld({ world: seededWorld({ throttle: { ratePerSecond: 2, burst: 1 } }) });

  test("a throttled read waits at least the time the service asked before it is sent again (1 req/s)", async () => {
    const service = onePerSecond;
    const pool = createPool(service.url);
    const exchanges = watchPool(pool);
    const clients = createClients({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool, retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      const firstStarted = performance.now();
      await clients.account.getRegionOptStatus({ RegionName: "us-east-1" });
      const second = await clients.account.getRegionOptStatus({ RegionName: "ap-east-1" });
      const secondDone = performance.now();

      expect(second).toEqual({ RegionName: "ap-east-1", RegionOptStatus: "DISABLED" });
      const { throttled, askedMs, waitedMs } = expectOneRetryAsAsked(exchanges, { above: 900, atMost: 1000 });
      // and the service's own clock agrees: one token a second, so the second call ends >= 1 s after the first began
      expect(secondDone - firstStarted).toBeGreaterThanOrEqual(1000 - 2);
      expect(service.requests.count({ operation: "GetRegionOptStatus", status: 429 })).toBe(1);
      console.info(`Retry-After: the service asked ${askedMs} ms (Retry-After: ${throttled.retryAfter} s); the client waited ${waitedMs.toFixed(1)} ms; both calls took ${(secondDone - firstStarted).toFixed(1)} ms`);
    } finally {
      await clients.close();
      await pool.close();
    }
  });

  test("the retry layer prefers the precise x-svc-retry-after-ms over the whole-second Retry-After (4 req/s)", async () => {
    const service = fourPerSecond;
    const pool = createPool(service.url);
    const exchanges = watchPool(pool);
    // without the adaptive limiter (which may pace the retry further), only the retry layer decides the wait
    const clients = createClients({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool, rateLimit: false, retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      await clients.gateway.getApi(SEEDED_API_ID);
      expect(await clients.gateway.getApi(SEEDED_API_ID)).toMatchObject({ apiId: SEEDED_API_ID });

      const { waitedMs } = expectOneRetryAsAsked(exchanges, { above: 150, atMost: 250 });
      expect(waitedMs).toBeLessThan(900);
    } finally {
      await clients.close();
      await pool.close();
    }
  });

  test("a create answered 429 is retried (the service certainly did not act) and is applied exactly once", async () => {
    const service = twoPerSecond;
    const clients = clientsFor(service);
    try {
      const first = await clients.gateway.createIntegration(SEEDED_API_ID, proxyIntegration("https://backend.example/throttled-1"));
      const second = await clients.gateway.createIntegration(SEEDED_API_ID, proxyIntegration("https://backend.example/throttled-2"));

      expect(second).toMatchObject({ integrationUri: "https://backend.example/throttled-2" });
      expect(service.requests.count({ operation: "CreateIntegration", status: 429 })).toBeGreaterThanOrEqual(1);
      expect(service.requests.count({ operation: "CreateIntegration", status: 201 })).toBe(2);
      const uris = (await collect(clients.gateway.integrations(SEEDED_API_ID))).map((item) => item.integrationUri).filter((uri) => uri?.includes("throttled"));
      expect(uris.sort()).toEqual(["https://backend.example/throttled-1", "https://backend.example/throttled-2"]);
      expect(first.integrationId).not.toBe(second.integrationId);
    } finally {
      await clients.close();
    }
  });
});

describe("a service throttled to 20 requests per second", () => {
  const { service } = useWorld({ world: seededWorld({ throttle: { ratePerSecond: 20, burst: 20 } }) });
  let transport: Transport;
  let gateway: GatewayClient;

  beforeAll(async () => {
    // default rate limiting (unlimited until the service throttles, then adaptive) and default retry policy
    transport = new Transport({ endpoint: service.url, credentials: new Credentials("admin-token") });
    gateway = new GatewayClient(transport);
  });
  afterAll(async () => {
    await transport?.close();
  });

  test("500 reads with 16 in flight all complete, with zero 429s surfaced to the caller", async () => {
    const seeded = await collect(gateway.routes(SEEDED_API_ID));
    const routeId = seeded[0]!.routeId;
    const before429 = service.requests.count({ operation: "GetRoute", status: 429 });
    const started = performance.now();
    const surfaced: unknown[] = [];

    const results = await inBatches(500, 16, async () => {
      try {
        return await gateway.getRoute(SEEDED_API_ID, routeId);
      } catch (error) {
        surfaced.push(error);
        return undefined;
      }
    });

    const seconds = (performance.now() - started) / 1000;
    const absorbed = service.requests.count({ operation: "GetRoute", status: 429 }) - before429;
    expect(surfaced).toEqual([]);
    expect(results.filter((route) => route?.routeId === routeId)).toHaveLength(500);
    expect(service.requests.count({ operation: "GetRoute", status: 200 })).toBe(500);
    // the service did push back (burst 20, then 20/s) and the client absorbed every 429 it sent
    expect(absorbed).toBeGreaterThan(0);
    // 480 reads beyond the burst cannot finish faster than the service allows
    expect(seconds).toBeGreaterThanOrEqual(480 / 20 - 0.5);
    const rate = transport.limiter!.rateOf("GetRoute");
    expect(rate).toBeLessThan(Infinity);
    console.info(`20 req/s: 500 reads in ${seconds.toFixed(1)} s, ${absorbed} 429s absorbed by the client, 0 surfaced; the client's adapted GetRoute rate ended at ${rate.toFixed(1)}/s`);
  }, 60_000);
});
