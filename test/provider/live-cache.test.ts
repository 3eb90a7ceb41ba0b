import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Credentials, isApiError } from "../../src/clients/index.js";
import { SELF } from "../../src/desired/read-key.js";
import { LiveCache } from "../../src/provider/live-cache.js";
import type { LiveNeed } from "../../src/reconcile/model.js";
import { SEEDED_API_ID, seededWorld } from "../clients/client-fixtures.js";
import { clientsFor, FAST_RETRY, useWorld } from "../support/world.js";

/**
 * The provider's live state for one terraform command: read once per need whatever the number of
 * callers, and kept true to the process's own writes without reading again.
 */

const API: LiveNeed = { type: "api", ref: SEEDED_API_ID };
const READS = ["GetApis", "GetApi", "GetRoutes", "GetIntegrations", "GetAlternateContact", "ListRegions"];

describe("the provider's live cache", () => {
  const { service } = useWorld({ world: seededWorld(), recordRequests: true });
  let cache: LiveCache;

  const reads = () => Object.fromEntries(READS.map((operation) => [operation, service.requests.count({ operation })]).filter(([, count]) => count !== 0));

  beforeEach(() => {
    cache = new LiveCache({ endpoint: service.url, credentials: new Credentials("admin-token"), retry: FAST_RETRY });
    service.requests.reset();
  });
  afterEach(async () => {
    await cache.close();
  });

  test("reads an API's routes and integrations once for 50 callers at once", async () => {
    const states = await Promise.all(Array.from({ length: 50 }, () => cache.read([API])));
    expect(reads()).toEqual({ GetApi: 1, GetRoutes: 1, GetIntegrations: 1 });
    expect(new Set(states.map((state) => JSON.stringify(state))).size).toBe(1);
    expect(states[0]!.apis[SEEDED_API_ID]?.routes.map((route) => route.routeKey)).toEqual(["$default"]);
  });

  test("takes the protocol from the directory when it was read, sparing the GetApi", async () => {
    const directory = await cache.directory();
    await cache.read([API]);
    expect(directory.protocols.get(SEEDED_API_ID)).toBe("HTTP");
    expect(reads()).toEqual({ GetApis: 1, GetRoutes: 1, GetIntegrations: 1 });
    expect((await cache.read([API])).apis[SEEDED_API_ID]?.protocolType).toBe("HTTP");
  });

  test("follows its own writes to routes and integrations with no further read, in listing order", async () => {
    await cache.read([API]);
    const { gateway } = cache.clients;
    const integration = await gateway.createIntegration(SEEDED_API_ID, { integrationType: "HTTP_PROXY", integrationUri: "https://a.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
    const route = await gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /a", target: `integrations/${integration.integrationId}` });
    await gateway.updateIntegration(SEEDED_API_ID, integration.integrationId, { description: "changed" });
    const second = await gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /b" });
    await gateway.deleteRoute(SEEDED_API_ID, second.routeId);
    service.requests.reset();
    const live = (await cache.read([API])).apis[SEEDED_API_ID]!;
    expect(reads()).toEqual({});
    expect(live.routes.map((item) => item.routeKey)).toEqual(["$default", "GET /a"]);
    expect(live.integrations.find((item) => item.integrationId === integration.integrationId)?.description).toBe("changed");
    // and what it holds is what a new read gives
    const fresh = new LiveCache({ endpoint: service.url, credentials: new Credentials("admin-token") });
    try {
      expect((await fresh.read([API])).apis[SEEDED_API_ID]).toEqual(live);
    } finally {
      await fresh.close();
    }
    await gateway.deleteRoute(SEEDED_API_ID, route.routeId);
    await gateway.deleteIntegration(SEEDED_API_ID, integration.integrationId);
  });

  test("does not see a change another client makes during the command (as terraform reads once)", async () => {
    await cache.read([API]);
    const other = clientsFor(service);
    try {
      const route = await other.gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /elsewhere" });
      expect((await cache.read([API])).apis[SEEDED_API_ID]?.routes.map((item) => item.routeKey)).toEqual(["$default"]);
      await other.gateway.deleteRoute(SEEDED_API_ID, route.routeId);
    } finally {
      await other.close();
    }
  });

  test("follows a contact it puts and deletes; a write naming the caller's account by its ID is read again", async () => {
    const need: LiveNeed = { type: "contact", account: SELF, contactType: "BILLING" };
    const key = `${SELF}/BILLING`;
    expect((await cache.read([need])).contacts[key]).toBeNull();
    const contact = { AlternateContactType: "BILLING" as const, Name: "Billing", Title: "Lead", EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0100" };
    await cache.clients.account.putAlternateContact(contact);
    expect((await cache.read([need])).contacts[key]).toEqual(contact);
    await cache.clients.account.deleteAlternateContact({ AlternateContactType: "BILLING" });
    expect((await cache.read([need])).contacts[key]).toBeNull();
    expect(reads()).toEqual({ GetAlternateContact: 1 });
    await cache.clients.account.putAlternateContact({ ...contact, AccountId: "222222222222" });
    expect((await cache.read([need])).contacts[key]).toBeNull();
    expect(reads()).toEqual({ GetAlternateContact: 2 });
  });

  test("reads an account's Regions again after it enables one (the status moves on by itself)", async () => {
    const need: LiveNeed = { type: "regions", account: SELF };
    expect((await cache.read([need])).regions[SELF]?.["ap-east-1"]).toBe("DISABLED");
    await cache.clients.account.enableRegion({ RegionName: "ap-east-1" });
    expect((await cache.read([need])).regions[SELF]?.["ap-east-1"]).toMatch(/^ENABL/);
    expect(reads()).toEqual({ ListRegions: 2 });
  });

  test("keeps what it first read apart from its own writes since (firstRead), with no further read", async () => {
    const before = (await cache.read([API])).apis[SEEDED_API_ID]!;
    const { gateway } = cache.clients;
    const integration = await gateway.createIntegration(SEEDED_API_ID, { integrationType: "HTTP_PROXY", integrationUri: "https://first.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
    const [seeded] = before.integrations;
    await gateway.updateIntegration(SEEDED_API_ID, seeded!.integrationId, { description: "changed since" });
    service.requests.reset();
    const first = (await cache.firstRead([API])).apis[SEEDED_API_ID]!;
    expect(reads()).toEqual({});
    expect(first).toEqual(before);
    expect(first.integrations.map((item) => item.integrationId)).toEqual([seeded!.integrationId]);
    expect((await cache.read([API])).apis[SEEDED_API_ID]!.integrations.map((item) => item.integrationId)).toEqual([seeded!.integrationId, integration.integrationId]);
    await gateway.deleteIntegration(SEEDED_API_ID, integration.integrationId);
    await gateway.updateIntegration(SEEDED_API_ID, seeded!.integrationId, { description: null });
  });

  test("does not keep a read that failed: the next call reads again", async () => {
    const refused = new LiveCache({ endpoint: service.url, credentials: new Credentials("nothing-token"), retry: FAST_RETRY });
    try {
      const first = await refused.read([API]).catch((error: unknown) => error);
      expect(isApiError(first) && first.status).toBe(403);
      await refused.read([API]).catch(() => undefined);
      expect(service.requests.count({ operation: "GetApi", status: 403 })).toBe(2);
    } finally {
      await refused.close();
    }
  });
});
