import type { ServerResponse } from "node:http";
import { afterAll, describe, expect, test } from "vitest";
import {
  collect,
  Credentials,
  isAmbiguousWrite,
  isContractViolation,
  isTransportError,
  LISTING_BOUNDS,
  maxPagesOf,
  paginate,
  Transport,
  type AmbiguousWriteError,
  type ContractViolationError,
  type TransportError,
} from "../../src/clients/index.js";
import { answer, type ForeignServer, rejectionOf, startForeignServer } from "./client-fixtures.js";
import { clientsFor } from "../support/world.js";

/**
 * Issue 27 for the typed clients used as a library: a deadline per attempt over the whole answer,
 * answers bounded while they stream, and listings that end whatever the server answers. The servers
 * are foreign ones on loopback (client-fixtures.ts); every test stops by itself.
 */

const servers: ForeignServer[] = [];
const open = new Set<ServerResponse>();
afterAll(async () => {
  for (const response of open) response.destroy();
  await Promise.all(servers.map((server) => server.close()));
});

async function foreign(handler: Parameters<typeof startForeignServer>[0]): Promise<ForeignServer> {
  const server = await startForeignServer(handler);
  servers.push(server);
  return server;
}

/** Headers at once, then a space every 50 ms (never a gap undici's body timeout notices), never ending. */
function drip(response: ServerResponse): void {
  open.add(response);
  response.writeHead(200, { "content-type": "application/json" });
  response.write("{");
  const timer = setInterval(() => (response.destroyed ? clearInterval(timer) : response.write(" ")), 50);
  response.once("close", () => clearInterval(timer));
}

const ROUTE = { routeId: "r1", routeKey: "GET /a", apiKeyRequired: false, authorizationType: "NONE", authorizationScopes: [], requestParameters: {}, apiGatewayManaged: false };

describe("a deadline per attempt", () => {
  test("rejects a read whose answer drips past the deadline with TransportError CONVERGE_DEADLINE, after every attempt", async () => {
    const server = await foreign((_request, response) => drip(response));
    const clients = clientsFor(server.url, "admin-token", { timeouts: { requestMs: 300 }, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      const started = performance.now();
      const error = await rejectionOf(clients.gateway.getRoute("api0000001", "r1"));
      const elapsed = performance.now() - started;
      expect(isTransportError(error)).toBe(true);
      expect((error as TransportError).causeCode).toBe("CONVERGE_DEADLINE");
      expect((error as TransportError).message).toContain("the answer was not complete within the deadline of 0.300 s per attempt");
      expect(server.received).toHaveLength(3);
      // 3 attempts of 300 ms and two back-offs of at most 5 ms
      expect(elapsed).toBeGreaterThanOrEqual(3 * 300 - 5);
      expect(elapsed).toBeLessThan(3 * 300 + 2_000);
    } finally {
      await clients.close();
    }
  });

  test("rejects a create whose answer drips past the deadline with AmbiguousWriteError, sent once", async () => {
    const server = await foreign((_request, response) => drip(response));
    const clients = clientsFor(server.url, "admin-token", { timeouts: { requestMs: 300 }, retry: { maxAttempts: 3, baseDelayMs: 1 } });
    try {
      const error = await rejectionOf(clients.gateway.createRoute("api0000001", { routeKey: "GET /a" }));
      expect(isAmbiguousWrite(error)).toBe(true);
      expect(((error as AmbiguousWriteError).underlying as TransportError).causeCode).toBe("CONVERGE_DEADLINE");
      expect(server.received).toHaveLength(1);
    } finally {
      await clients.close();
    }
  });

  test("refuses a deadline or answer limit that is not a positive number, naming the option and the value", () => {
    const credentials = new Credentials("admin-token");
    expect(() => new Transport({ endpoint: "http://127.0.0.1:9", credentials, timeouts: { requestMs: 0 } })).toThrow("requestMs 0 is not valid: expected a positive number");
    expect(() => new Transport({ endpoint: "http://127.0.0.1:9", credentials, maxAnswerBytes: Number.NaN })).toThrow("maxAnswerBytes null is not valid: expected a positive number");
  });
});

describe("bounded answers", () => {
  test("rejects an answer that streams past maxAnswerBytes as a contract violation naming the limit and the endpoint, not retried", async () => {
    const server = await foreign((_request, response) => {
      open.add(response);
      response.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        while (!response.destroyed) if (!response.write(chunk)) return void response.once("drain", pump);
      };
      response.write('{"items": [');
      pump();
    });
    const clients = clientsFor(server.url, "admin-token", { maxAnswerBytes: 1024 * 1024 });
    try {
      const error = await rejectionOf(collect(clients.gateway.routes("api0000001")));
      expect(isContractViolation(error)).toBe(true);
      expect((error as ContractViolationError).operation).toBe("GetRoutes");
      expect((error as ContractViolationError).message).toContain(`the answer is larger than the limit of 1 MiB (1048576 bytes): it passed it while streaming`);
      expect((error as ContractViolationError).message).toContain(`endpoint ${server.url}`);
      expect(server.received).toHaveLength(1);
    } finally {
      await clients.close();
    }
  });

  test("rejects an answer whose content-length passes the limit before reading its body", async () => {
    const server = await foreign((_request, response) => answer(response, 200, { ...ROUTE, padding: "x".repeat(4096) }));
    const clients = clientsFor(server.url, "admin-token", { maxAnswerBytes: 1000 });
    try {
      const error = await rejectionOf(clients.gateway.getRoute("api0000001", "r1"));
      expect(isContractViolation(error)).toBe(true);
      expect((error as ContractViolationError).problems[0]).toMatch(/^the answer is larger than the limit of 1000 B \(1000 bytes\): it declares \d+ bytes \(content-length\); endpoint http:/);
    } finally {
      await clients.close();
    }
  });

  test("reads an answer just under the limit", async () => {
    const server = await foreign((_request, response) => answer(response, 200, ROUTE));
    const clients = clientsFor(server.url, "admin-token", { maxAnswerBytes: Buffer.byteLength(JSON.stringify(ROUTE)) });
    try {
      expect(await clients.gateway.getRoute("api0000001", "r1")).toMatchObject({ routeId: "r1" });
    } finally {
      await clients.close();
    }
  });
});

describe("finite listings", () => {
  test("the page bound of each listing, derived from the service's limits", () => {
    expect({
      GetRoutes: maxPagesOf(LISTING_BOUNDS.GetRoutes, 500),
      GetRoutesBy1: maxPagesOf(LISTING_BOUNDS.GetRoutes, 1),
      GetIntegrations: maxPagesOf(LISTING_BOUNDS.GetIntegrations, 500),
      GetApis: maxPagesOf(LISTING_BOUNDS.GetApis, 500),
      ListRegions: maxPagesOf(LISTING_BOUNDS.ListRegions, 50),
    }).toEqual({ GetRoutes: 8, GetRoutesBy1: 602, GetIntegrations: 8, GetApis: 202, ListRegions: 42 });
  });

  test.each([
    { name: "the first token again", tokens: ["a", "a"], requests: 2, problem: "the next token of page 2 repeats the one page 1 answered" },
    { name: "an earlier token after new ones", tokens: ["a", "b", "c", "b"], requests: 4, problem: "the next token of page 4 repeats the one page 2 answered" },
  ])("rejects a listing that answers $name, naming the operation and the repetition, without another request", async ({ tokens, requests, problem }) => {
    let calls = 0;
    const listing = paginate(async () => ({ items: [calls], nextToken: tokens[calls++] }), { service: "apigateway", operation: "GetRoutes", bound: LISTING_BOUNDS.GetRoutes, pageSize: 100 });
    const error = await rejectionOf(collect(listing));
    expect(isContractViolation(error)).toBe(true);
    expect((error as ContractViolationError).message).toBe(`apigateway GetRoutes answered outside its contract: ${problem}: the listing would never end (stopped after ${requests} requests)`);
    expect(calls).toBe(requests);
  });

  test("rejects a listing of new tokens past its page bound", async () => {
    let calls = 0;
    const listing = paginate(async () => ({ items: [calls], nextToken: `t${calls++}` }), { service: "account", operation: "ListRegions", bound: LISTING_BOUNDS.ListRegions, pageSize: 50 });
    const error = await rejectionOf(collect(listing));
    expect((error as ContractViolationError).message).toBe("account ListRegions answered outside its contract: the listing did not end after 42 pages, the most a listing of at most 1000 items takes (stopped)");
    expect(calls).toBe(42);
  });

  test("the typed client stops a repeating GetApis after two requests", async () => {
    const server = await foreign((_request, response) => answer(response, 200, { items: [], nextToken: "again" }));
    const clients = clientsFor(server.url);
    try {
      const error = await rejectionOf(collect(clients.gateway.apis()));
      expect((error as ContractViolationError).operation).toBe("GetApis");
      expect(server.received).toHaveLength(2);
    } finally {
      await clients.close();
    }
  });
});
