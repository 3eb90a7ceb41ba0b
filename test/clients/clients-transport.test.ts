import { beforeAll, describe, expect, test } from "vitest";
import {
  collect,
  createClients,
  createPool,
  Credentials,
  isAborted,
  isAmbiguousWrite,
  isTransportError,
  type AbortedError,
  type AmbiguousWriteError,
  type TransportError,
} from "../../src/clients/index.js";
import { closedPort, rejectionOf, SEEDED_API_ID, seededWorld, watchPool } from "./client-fixtures.js";
import { clientsFor, useWorld } from "../support/world.js";

describe("a port nothing listens on (connection refused)", () => {
  let endpoint: string;

  beforeAll(async () => {
    endpoint = `http://127.0.0.1:${await closedPort()}`;
  });

  test("rejects a read with TransportError ECONNREFUSED after every attempt of the retry policy", async () => {
    const pool = createPool(endpoint);
    const exchanges = watchPool(pool);
    const clients = createClients({ endpoint, credentials: new Credentials("admin-token"), dispatcher: pool, retry: { maxAttempts: 3, baseDelayMs: 1 } });
    try {
      const error = await rejectionOf(clients.gateway.getRoute(SEEDED_API_ID, "route00001"));
      expect(isTransportError(error)).toBe(true);
      const e = error as TransportError;
      expect({ code: e.code, name: e.name, service: e.service, operation: e.operation, causeCode: e.causeCode, maybeDelivered: e.maybeDelivered })
        .toEqual({ code: "CONVERGE_TRANSPORT", name: "TransportError", service: "apigateway", operation: "GetRoute", causeCode: "ECONNREFUSED", maybeDelivered: false });
      expect(e.message).toMatch(/^apigateway GetRoute: no answer from the service at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED: /);
      expect(exchanges.map((exchange) => exchange.errorCode)).toEqual(["ECONNREFUSED", "ECONNREFUSED", "ECONNREFUSED"]);

      const accountError = await rejectionOf(collect(clients.account.listRegions()));
      expect({ causeCode: (accountError as TransportError).causeCode, service: (accountError as TransportError).service }).toEqual({ causeCode: "ECONNREFUSED", service: "account" });
    } finally {
      await clients.close();
      await pool.close();
    }
  });

  test("retries a create too (a connection never made delivered nothing) and rejects with TransportError, not an ambiguous write", async () => {
    const pool = createPool(endpoint);
    const exchanges = watchPool(pool);
    const clients = createClients({ endpoint, credentials: new Credentials("admin-token"), dispatcher: pool, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    try {
      const error = await rejectionOf(clients.gateway.createApi({ name: "nowhere", protocolType: "HTTP" }));
      expect(isAmbiguousWrite(error)).toBe(false);
      expect(isTransportError(error)).toBe(true);
      expect((error as TransportError).causeCode).toBe("ECONNREFUSED");
      expect(exchanges).toHaveLength(2);
    } finally {
      await clients.close();
      await pool.close();
    }
  });
});

/** Starts `start` with a signal aborted `abortAfterMs` later; its rejection, and the time from the start to it. */
async function rejectionWhenAborted(abortAfterMs: number, start: (signal: AbortSignal) => Promise<unknown>): Promise<{ error: unknown; elapsed: number }> {
  const controller = new AbortController();
  const started = performance.now();
  setTimeout(() => controller.abort(), abortAfterMs);
  const error = await rejectionOf(start(controller.signal));
  return { error, elapsed: performance.now() - started };
}

describe("a slow service (latencyMs 2000)", () => {
  const LATENCY_MS = 2000;
  const { service } = useWorld({ world: seededWorld(), faults: { latencyMs: LATENCY_MS } });

  test("rejects promptly with AbortedError when the signal aborts during the request", async () => {
    const clients = clientsFor(service);
    try {
      const { error, elapsed } = await rejectionWhenAborted(100, (signal) => clients.gateway.getApi(SEEDED_API_ID, { signal }));

      expect(isAborted(error)).toBe(true);
      expect({ code: (error as AbortedError).code, name: (error as AbortedError).name, message: (error as AbortedError).message })
        .toEqual({ code: "CONVERGE_ABORTED", name: "AbortedError", message: "apigateway GetApi was cancelled" });
      expect(isTransportError(error)).toBe(false);
      expect(elapsed).toBeGreaterThanOrEqual(95);
      expect(elapsed).toBeLessThan(600);
    } finally {
      await clients.close();
    }
  });

  test("rejects with AbortedError, sending nothing, when the signal is already aborted", async () => {
    const clients = clientsFor(service);
    try {
      const before = service.requests.count({ operation: "GetRegionOptStatus" });
      const error = await rejectionOf(clients.account.getRegionOptStatus({ RegionName: "us-east-1" }, { signal: AbortSignal.abort() }));
      expect(isAborted(error)).toBe(true);
      // anything sent would have been answered (and counted) by now
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + 200));
      expect(service.requests.count({ operation: "GetRegionOptStatus" }) - before).toBe(0);
    } finally {
      await clients.close();
    }
  });

  test("rejects promptly with AbortedError a request still queued behind a busy connection, and never sends it", async () => {
    const pool = createPool(service.url, { connections: 1 });
    const clients = createClients({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool });
    try {
      const before = service.requests.count({ operation: "GetIntegrations" });
      const occupying = collect(clients.gateway.routes(SEEDED_API_ID));
      const { error, elapsed } = await rejectionWhenAborted(100, (signal) => collect(clients.gateway.integrations(SEEDED_API_ID, { signal })));

      expect(isAborted(error)).toBe(true);
      expect((error as AbortedError).message).toBe("apigateway GetIntegrations was cancelled");
      // the one connection is busy for LATENCY_MS: the rejection did not wait for it
      expect(elapsed).toBeLessThan(LATENCY_MS / 2);
      await occupying;
      // the connection is free again: a queued request that had been sent would be answered within the latency
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + 200));
      expect(service.requests.count({ operation: "GetIntegrations" }) - before).toBe(0);
    } finally {
      await clients.close();
      await pool.close();
    }
  });

  test("rejects a read with TransportError UND_ERR_HEADERS_TIMEOUT when headersMs is shorter than the latency, after retrying it", async () => {
    const pool = createPool(service.url, { timeouts: { headersMs: 200 } });
    const exchanges = watchPool(pool);
    const clients = createClients({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool, timeouts: { headersMs: 200 }, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    try {
      const error = await rejectionOf(clients.gateway.getApi(SEEDED_API_ID));
      expect(isTransportError(error)).toBe(true);
      const e = error as TransportError;
      expect({ code: e.code, operation: e.operation, causeCode: e.causeCode, maybeDelivered: e.maybeDelivered })
        .toEqual({ code: "CONVERGE_TRANSPORT", operation: "GetApi", causeCode: "UND_ERR_HEADERS_TIMEOUT", maybeDelivered: true });
      expect(exchanges.map((exchange) => exchange.errorCode)).toEqual(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT"]);
      for (const exchange of exchanges) {
        // undici's header timer has a coarse (about 0.5 s) tick: each attempt gives up after 200 ms and before the answer
        const waited = exchange.failedAt! - exchange.sentAt;
        expect(waited).toBeGreaterThanOrEqual(195);
        expect(waited).toBeLessThan(LATENCY_MS - 200);
      }
    } finally {
      await clients.close();
      await pool.close();
    }
  });

  test("rejects a create that timed out with AmbiguousWriteError, never sending it again", async () => {
    const clients = clientsFor(service, "admin-token", { timeouts: { headersMs: 200 }, retry: { maxAttempts: 3, baseDelayMs: 1 } });
    try {
      const error = await rejectionOf(clients.gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /timed-out" }));
      expect(isAmbiguousWrite(error)).toBe(true);
      expect((error as AmbiguousWriteError).operation).toBe("CreateRoute");
      const underlying = (error as AmbiguousWriteError).underlying as TransportError;
      expect({ causeCode: underlying.causeCode, maybeDelivered: underlying.maybeDelivered }).toEqual({ causeCode: "UND_ERR_HEADERS_TIMEOUT", maybeDelivered: true });
      // the service has seen (and finished with) every request sent by now
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS + 200));
      expect(service.requests.count({ operation: "CreateRoute" })).toBe(1);
    } finally {
      await clients.close();
    }
  });
});

describe("cancelling while the client waits (backoff, pagination)", () => {
  const { service: failing } = useWorld({ world: seededWorld(), faults: { errorRate: 1 } });
  const { service: paged } = useWorld({ world: seededWorld() });

  test("rejects promptly with AbortedError when the signal aborts during a retry backoff", async () => {
    // jitter pinned near its top: the backoff after the first 500 is about 4.9 s
    const clients = clientsFor(failing, "admin-token", { retry: { maxAttempts: 5, baseDelayMs: 5000, maxDelayMs: 5000, random: () => 0.99 } });
    try {
      const { error, elapsed } = await rejectionWhenAborted(150, (signal) => clients.gateway.getApi(SEEDED_API_ID, { signal }));
      expect(isAborted(error)).toBe(true);
      expect(elapsed).toBeLessThan(1000);
      expect(failing.requests.count({ operation: "GetApi" })).toBe(1);
    } finally {
      await clients.close();
    }
  });

  test("rejects the next page with AbortedError when the signal aborts between pages", async () => {
    const clients = clientsFor(paged);
    try {
      const controller = new AbortController();
      const seen: string[] = [];
      const error = await rejectionOf((async () => {
        for await (const region of clients.account.listRegions({}, { pageSize: 3, signal: controller.signal })) {
          seen.push(region.RegionName);
          if (seen.length === 3) controller.abort();
        }
      })());
      expect(isAborted(error)).toBe(true);
      expect(seen).toEqual(["af-south-1", "ap-east-1", "ap-south-2"]);
      expect(paged.requests.count({ operation: "ListRegions" })).toBe(1);
    } finally {
      await clients.close();
    }
  });
});
