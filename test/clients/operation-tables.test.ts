import { describe, expect, test } from "vitest";
import { collect, isConflict, type AcknowledgedWrite, type Clients } from "../../src/clients/index.js";
import { ACCOUNT_OPERATIONS } from "../../src/contract/account.js";
import { GATEWAY_OPERATIONS } from "../../src/contract/gateway.js";
import { fillPath, routerPath } from "../../src/contract/operation-table.js";
import { SEEDED_API_ID, seededWorld } from "./client-fixtures.js";
import { clientsFor, useWorld } from "../support/world.js";

/**
 * The operation tables of src/contract/ are the one place each service's paths live: the embedded service
 * routes them and the clients build their calls from them. Every row is called once through the
 * typed clients, and the service must answer it under the row's name with the row's method, path and
 * success status — a row the client or the service did not take from the table fails here.
 */

const CONTACT = { AlternateContactType: "SECURITY" as const, Name: "Sec", Title: "CISO", EmailAddress: "sec@example.com", PhoneNumber: "+1 555 0100" };

async function everyGatewayOperation(clients: Clients): Promise<void> {
  const { gateway } = clients;
  const api = await gateway.createApi({ name: "tables", protocolType: "HTTP" });
  await gateway.getApi(api.apiId);
  await collect(gateway.apis());
  const integration = await gateway.createIntegration(api.apiId, { integrationType: "HTTP_PROXY", integrationUri: "https://backend.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
  await gateway.getIntegration(api.apiId, integration.integrationId);
  await collect(gateway.integrations(api.apiId));
  await gateway.updateIntegration(api.apiId, integration.integrationId, { description: "updated" });
  const route = await gateway.createRoute(api.apiId, { routeKey: "GET /orders", target: `integrations/${integration.integrationId}` });
  await gateway.getRoute(api.apiId, route.routeId);
  await collect(gateway.routes(api.apiId));
  await gateway.updateRoute(api.apiId, route.routeId, { routeKey: "GET /orders/{id}" });
  await gateway.deleteRoute(api.apiId, route.routeId);
  await gateway.deleteIntegration(api.apiId, integration.integrationId);
  await gateway.deleteApi(api.apiId);
}

async function everyAccountOperation(clients: Clients): Promise<void> {
  const { account } = clients;
  await account.putAlternateContact(CONTACT);
  await account.getAlternateContact({ AlternateContactType: "SECURITY" });
  await account.deleteAlternateContact({ AlternateContactType: "SECURITY" });
  await collect(account.listRegions());
  await account.getRegionOptStatus({ RegionName: "eu-west-1" });
  await account.enableRegion({ RegionName: "ap-east-1" });
  await account.disableRegion({ RegionName: "me-south-1" });
}

describe("the operation tables", () => {
  const { service, clients } = useWorld({ world: seededWorld(), recordRequests: true });

  test.each([
    ["gateway", GATEWAY_OPERATIONS, everyGatewayOperation],
    ["account", ACCOUNT_OPERATIONS, everyAccountOperation],
  ] as const)("every row of the %s table is called by its client and answered by the service as the row says", async (_, table, callEveryOperation) => {
    service.requests.reset();
    await callEveryOperation(clients);
    const answered = service.requests.records().map((record) => ({ operation: record.operation, method: record.method, status: record.status }));
    const rows = Object.entries(table).map(([operation, row]) => ({ operation, method: row.method, status: row.status }));
    expect(answered).toEqual(expect.arrayContaining(rows));
    expect(new Set(answered.map((record) => record.operation))).toEqual(new Set(Object.keys(table)));
    const statusOf = new Map(rows.map((row) => [row.operation, row.status]));
    expect(answered.filter((record) => record.status !== statusOf.get(record.operation))).toEqual([]);
  });

  test.each([
    ["gateway", GATEWAY_OPERATIONS, everyGatewayOperation],
    ["account", ACCOUNT_OPERATIONS, everyAccountOperation],
  ] as const)("tells the write listener of each acknowledged write of the %s table, with its parameters, body and answer, and of nothing else", async (_, table, callEveryOperation) => {
    const writes: AcknowledgedWrite[] = [];
    const listening = clientsFor(service, "admin-token", { onWrite: (write) => writes.push(write) });
    try {
      await callEveryOperation(listening);
      const writeRows = Object.entries(table).filter(([, row]) => row.write).map(([operation]) => operation);
      expect(writes.map((write) => write.operation).sort()).toEqual(writeRows.sort());
      if (table !== GATEWAY_OPERATIONS) return;
      const createdRoute = writes.find((write) => write.operation === "CreateRoute");
      expect(createdRoute?.parameters).toEqual({ apiId: expect.any(String) });
      expect(createdRoute?.body).toMatchObject({ routeKey: "GET /orders" });
      expect(createdRoute?.result).toMatchObject({ routeKey: "GET /orders", routeId: expect.any(String) });
      // a write the service refused is not acknowledged
      writes.length = 0;
      const error = await listening.gateway.createRoute(SEEDED_API_ID, { routeKey: "$default" }).catch((caught: unknown) => caught);
      expect(isConflict(error)).toBe(true);
      expect(writes).toEqual([]);
    } finally {
      await listening.close();
    }
  });

  test("the gateway's paths are the rows' templates filled in, on the wire as the router reads them", async () => {
    service.requests.reset();
    await clients.gateway.getRoute(SEEDED_API_ID, "nosuchroute");
    const [record] = service.requests.records({ operation: "GetRoute" });
    expect(record?.path).toBe(fillPath(GATEWAY_OPERATIONS.GetRoute.path, { apiId: SEEDED_API_ID, routeId: "nosuchroute" }));
    expect(routerPath(GATEWAY_OPERATIONS.GetRoute.path)).toBe("/v2/apis/:apiId/routes/:routeId");
  });

  test.each([
    [{ apiId: "a b/c", routeId: "r?1" }, "/v2/apis/a%20b%2Fc/routes/r%3F1"],
    [{ apiId: "abc", routeId: "123" }, "/v2/apis/abc/routes/123"],
  ])("fills path parameters as single encoded segments (%j)", (parameters, expected) => {
    expect(fillPath(GATEWAY_OPERATIONS.GetRoute.path, parameters)).toBe(expected);
  });

  test("rejects a path template whose parameter has no value", () => {
    expect(() => fillPath(GATEWAY_OPERATIONS.GetRoute.path, { apiId: "abc" })).toThrow("needs a value for {routeId}");
  });
});
