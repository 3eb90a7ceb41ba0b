import { describe, expect, test } from "vitest";
import {
  AccountClient,
  collect,
  createPool,
  Credentials,
  GatewayClient,
  isApiError,
  Transport,
  type ApiError,
} from "../../src/clients/index.js";
import { rejectionOf, SEEDED_API_ID, seededWorld, watchPool, type WireExchange } from "./client-fixtures.js";
import { clientsFor, useWorld } from "../support/world.js";

const CONTACT = { AlternateContactType: "OPERATIONS" as const, Name: "Ops", Title: "SRE lead", EmailAddress: "ops@example.com", PhoneNumber: "+1 555 0101" };

/** Every account operation once, in this order; returns what the reads answered. */
async function everyAccountOperation(account: AccountClient) {
  await account.putAlternateContact(CONTACT);
  const contact = await account.getAlternateContact({ AlternateContactType: "OPERATIONS" });
  const deleted = await account.deleteAlternateContact({ AlternateContactType: "OPERATIONS" });
  const regions = await collect(account.listRegions({ RegionOptStatusContains: ["DISABLED"] }));
  const status = await account.getRegionOptStatus({ RegionName: "eu-west-1" });
  await account.enableRegion({ RegionName: "me-south-1" });
  await account.disableRegion({ RegionName: "af-south-1" });
  return { contact, deleted, regions, status };
}

const OPERATION_ORDER = ["PutAlternateContact", "GetAlternateContact", "DeleteAlternateContact", "ListRegions", "GetRegionOptStatus", "EnableRegion", "DisableRegion"];
const FORM_A_PATHS = ["/putAlternateContact", "/getAlternateContact", "/deleteAlternateContact", "/listRegions", "/getRegionOptStatus", "/enableRegion", "/disableRegion"];

describe("account client request forms", () => {
  const { service } = useWorld({ world: seededWorld(), recordRequests: true });

  /** Asserts that the service answered every account operation in OPERATION_ORDER with 200 at `pathOf`, sent with the X-Svc-Target `targetOf`, the first with CONTACT as its body. */
  function expectAccountRequests(exchanges: ReadonlyArray<WireExchange>, pathOf: (operation: string, index: number) => string, targetOf: (operation: string) => string | undefined): void {
    const records = service.requests.records();
    expect(records.map((record) => [record.operation, record.method, record.path, record.status]))
      .toEqual(OPERATION_ORDER.map((operation, index) => [operation, "POST", pathOf(operation, index), 200]));
    expect(exchanges.map((exchange) => exchange.target)).toEqual(OPERATION_ORDER.map(targetOf));
    expect(records[0]!.body).toEqual(CONTACT);
  }

  test("sends form A (POST /<operation>) by default", async () => {
    service.requests.reset();
    const pool = createPool(service.url);
    const exchanges = watchPool(pool);
    const clients = clientsFor(service, "admin-token", { dispatcher: pool });
    try {
      const answers = await everyAccountOperation(clients.account);
      expect(answers).toEqual({
        contact: CONTACT,
        deleted: true,
        regions: [{ RegionName: "af-south-1", RegionOptStatus: "DISABLED" }, { RegionName: "ap-east-1", RegionOptStatus: "DISABLED" }],
        status: { RegionName: "eu-west-1", RegionOptStatus: "ENABLED_BY_DEFAULT" },
      });
      expectAccountRequests(exchanges, (_operation, index) => FORM_A_PATHS[index]!, () => undefined);
    } finally {
      await clients.close();
      await pool.close();
    }
  });

  test("sends form B (POST / with X-Svc-Target AccountService_20210201.<Operation>) when asked", async () => {
    service.requests.reset();
    const pool = createPool(service.url);
    const exchanges = watchPool(pool);
    const transport = new Transport({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool });
    try {
      const answers = await everyAccountOperation(new AccountClient(transport, { form: "B" }));
      expect(answers.contact).toEqual(CONTACT);
      expect(answers.regions.map((region) => region.RegionName)).toEqual(["af-south-1", "ap-east-1"]);
      expectAccountRequests(exchanges, () => "/", (operation) => `AccountService_20210201.${operation}`);
    } finally {
      await transport.close();
      await pool.close();
    }
  });

  test("sends form B with a configured target prefix, and createClients passes the account options through", async () => {
    service.requests.reset();
    const clients = clientsFor(service, "admin-token", { account: { form: "B", targetPrefix: "Converge_20210201_v2" } });
    try {
      expect(await clients.account.getRegionOptStatus({ RegionName: "ap-east-1" })).toEqual({ RegionName: "ap-east-1", RegionOptStatus: "DISABLED" });
      expect(service.requests.records().map((record) => [record.operation, record.path, record.status])).toEqual([["GetRegionOptStatus", "/", 200]]);
    } finally {
      await clients.close();
    }
  });

  test("rejects a target prefix without 20210201 with ValidationException naming X-Svc-Target", async () => {
    const transport = new Transport({ endpoint: service.url, credentials: new Credentials("admin-token"), retry: { maxAttempts: 3, baseDelayMs: 1 } });
    try {
      const error = await rejectionOf(new AccountClient(transport, { form: "B", targetPrefix: "AccountService_2021" }).getRegionOptStatus({ RegionName: "ap-east-1" }));
      expect(isApiError(error)).toBe(true);
      const e = error as ApiError;
      expect({ status: e.status, errorName: e.errorName, reason: e.reason, operation: e.operation }).toEqual({ status: 400, errorName: "ValidationException", reason: "fieldValidationFailed", operation: "GetRegionOptStatus" });
      expect(e.fieldList?.map((field) => field.name)).toEqual(["X-Svc-Target"]);
    } finally {
      await transport.close();
    }
  });
});

describe("one service, both clients", () => {
  const { service, clients } = useWorld({ world: seededWorld() });

  describe("pools and large answers", () => {
    test("a pipelining pool carries several reads per connection, and a create waits for a connection of its own", async () => {
      const pool = createPool(service.url, { connections: 2, pipelining: 8 });
      const gateway = new GatewayClient(new Transport({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool }));
      try {
        await Promise.all([gateway.getApi(SEEDED_API_ID), gateway.getApi(SEEDED_API_ID)]);
        const reads = Array.from({ length: 40 }, () => gateway.getApi(SEEDED_API_ID));
        const create = gateway.createApi({ name: "between-pipelined-reads", protocolType: "HTTP" });
        const moreReads = Array.from({ length: 40 }, () => gateway.getApi(SEEDED_API_ID));
        await new Promise((resolve) => setImmediate(resolve));
        const inFlight = pool.stats.running;
        const answers = await Promise.all([...reads, ...moreReads]);
        const created = await create;

        expect(pool.stats.connected).toBeLessThanOrEqual(2);
        // more requests in flight than connections: they were pipelined
        expect(inFlight).toBeGreaterThan(2);
        expect(answers.every((api) => api?.apiId === SEEDED_API_ID)).toBe(true);
        expect(await gateway.getApi(created.apiId)).toMatchObject({ name: "between-pipelined-reads" });
      } finally {
        await pool.close();
      }
    });

    test("reads a listing that arrives in many chunks, multibyte characters split between them, byte for byte", async () => {
      // 2- to 4-byte UTF-8 characters; a 3,001-character cycle makes chunk edges fall inside them
      const text = "aé€𝄞".repeat(1500) + "z";
      const api = await clients.gateway.createApi({ name: "wide-ü€𝄞", protocolType: "HTTP" });
      const created = [];
      for (let i = 0; i < 40; i += 1) {
        created.push(await clients.gateway.createIntegration(api.apiId, {
          integrationType: "HTTP_PROXY",
          integrationUri: `https://backend-${i}.example/ü`,
          integrationMethod: "ANY",
          payloadFormatVersion: "1.0",
          description: `${i}:${text}`,
        }));
      }
      const listed = await collect(clients.gateway.integrations(api.apiId));
      // well over one socket read: the body came in many chunks
      expect(Buffer.byteLength(JSON.stringify(listed))).toBeGreaterThan(400_000);
      expect(listed.map((integration) => [integration.integrationId, integration.description])).toEqual(created.map((integration, i) => [integration.integrationId, `${i}:${text}`]));
    });
  });

  describe("absent resources are values, not errors", () => {
    test("getX answers undefined for a missing resource of every kind", async () => {
      const { account, gateway } = clients;
      expect(await account.getAlternateContact({ AlternateContactType: "BILLING" })).toBeUndefined();
      expect(await gateway.getApi("missing000")).toBeUndefined();
      expect(await gateway.getRoute(SEEDED_API_ID, "missing000")).toBeUndefined();
      expect(await gateway.getIntegration(SEEDED_API_ID, "missing000")).toBeUndefined();
      // each of them was a real 404 of the service, asked once
      expect(service.requests.count({ status: 404 })).toBe(4);
    });

    test("deleteX answers true once and false for an already-absent resource", async () => {
      const { account, gateway } = clients;
      await account.putAlternateContact({ ...CONTACT, AlternateContactType: "BILLING" });
      expect(await account.deleteAlternateContact({ AlternateContactType: "BILLING" })).toBe(true);
      expect(await account.deleteAlternateContact({ AlternateContactType: "BILLING" })).toBe(false);

      const api = await gateway.createApi({ name: "short-lived", protocolType: "HTTP" });
      const integration = await gateway.createIntegration(api.apiId, { integrationType: "HTTP_PROXY", integrationUri: "https://backend.example/x", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
      const route = await gateway.createRoute(api.apiId, { routeKey: "GET /x", target: `integrations/${integration.integrationId}` });
      expect(await gateway.getRoute(api.apiId, route.routeId)).toMatchObject({ routeKey: "GET /x", target: `integrations/${integration.integrationId}` });

      expect(await gateway.deleteRoute(api.apiId, route.routeId)).toBe(true);
      expect(await gateway.deleteRoute(api.apiId, route.routeId)).toBe(false);
      expect(await gateway.deleteIntegration(api.apiId, integration.integrationId)).toBe(true);
      expect(await gateway.deleteIntegration(api.apiId, integration.integrationId)).toBe(false);
      expect(await gateway.deleteApi(api.apiId)).toBe(true);
      expect(await gateway.deleteApi(api.apiId)).toBe(false);
      expect(await gateway.getApi(api.apiId)).toBeUndefined();
    });

    test("rejects a route read or delete whose API is missing (only the resource itself may be absent)", async () => {
      const read = await rejectionOf(clients.gateway.getRoute("missing000", "missing000"));
      expect(isApiError(read) && read.resourceType).toBe("Api");
      const remove = await rejectionOf(clients.gateway.deleteIntegration("missing000", "missing000"));
      expect(isApiError(remove) && remove.resourceType).toBe("Api");
    });

    test("GatewayClient works on a Transport built by hand, and the transport closes only a pool it owns", async () => {
      const transport = new Transport({ endpoint: `${service.url}/ignored/path`, credentials: new Credentials("admin-token"), retry: { maxAttempts: 2, baseDelayMs: 1 } });
      expect(transport.origin).toBe(service.url);
      const gateway = new GatewayClient(transport);
      expect(await gateway.getApi(SEEDED_API_ID)).toMatchObject({ apiId: SEEDED_API_ID, name: "seeded" });
      await transport.close();
      const before = service.requests.count({ operation: "GetApi" });
      await expect(gateway.getApi(SEEDED_API_ID)).rejects.toMatchObject({ code: "CONVERGE_TRANSPORT", causeCode: "UND_ERR_DESTROYED" });
      expect(service.requests.count({ operation: "GetApi" })).toBe(before);

      const pool = createPool(service.url);
      const borrowing = new Transport({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool });
      await borrowing.close();
      expect(await new GatewayClient(new Transport({ endpoint: service.url, credentials: new Credentials("admin-token"), dispatcher: pool })).getApi(SEEDED_API_ID)).toMatchObject({ apiId: SEEDED_API_ID });
      await pool.close();
    });
  });
});
