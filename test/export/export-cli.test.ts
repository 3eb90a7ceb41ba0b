import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { accountCall } from "../support/http.js";
import {
  ADMIN_TOKEN,
  CHAT_API,
  E2E_TIMEOUT_MS,
  ORDERS_API,
  converge,
  expectExit,
  liveIntegrations,
  liveRoute,
  liveRoutes,
  parsePlanJson,
  actionLines,
  convergedExamples,
  useE2eResources,
} from "../e2e/e2e-fixture.js";

/**
 * `converge export` end to end on the demo world: the example estate applied with the CLI, then
 * exported (the compiled CLI as a subprocess); `plan` of the exported files must show no changes,
 * and service-managed resources must appear only as comments.
 */

const { services, dirs } = useE2eResources();

const EXPORT_SCOPE = ["--api", ORDERS_API, "--api", CHAT_API, "--account", "self", "--account", "222222222222", "--account", "333333333333"];

/** A fresh service with the example estate applied. */
async function convergedDemoWorld(): Promise<RunningService> {
  return (await convergedExamples(services, dirs)).service;
}

/** Every YAML document of a text, as plain values. */
function documentsOf(text: string): Array<Record<string, any>> {
  return parseAllDocuments(text).map((document) => {
    expect(document.errors).toEqual([]);
    return document.toJS() as Record<string, any>;
  }).filter((value) => value !== null);
}

describe.concurrent("converge export", { timeout: E2E_TIMEOUT_MS }, () => {
  it("exports the applied example estate to files that plan to no changes and validate offline", async () => {
    const service = await convergedDemoWorld();
    const dir = await dirs.make("export");

    const exported = await converge(service, ["export", ...EXPORT_SCOPE, "-o", "out"], dir);
    expectExit(exported, 0);
    expect((await readdir(join(dir, "out"))).sort()).toEqual([
      "account-222222222222.yaml", "account-333333333333.yaml", "account-self.yaml", `api-${ORDERS_API}.yaml`, `api-${CHAT_API}.yaml`, "converge.schema.json",
    ]);
    expect(exported.stdout).toContain(`wrote out/api-${ORDERS_API}.yaml: 1 Api, 2 Integration, 3 Route, 2 managed by the service, as comments`);

    const planned = await converge(service, ["plan", "-f", "out", "--output", "json"], dir);
    expectExit(planned, 0);
    const plan = parsePlanJson(planned);
    expect(actionLines(plan)).toEqual([]);
    // 4 integrations + 6 routes + 5 contacts + 3 × 13 opt-in Regions, every one matched and unchanged
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 54, refused: 0 });

    const validated = await converge(service, ["validate", "-f", "out"], dir);
    expectExit(validated, 0);
    expect(validated.stdout).toContain("56 documents in 5 files valid.");

    for (const name of (await readdir(join(dir, "out"))).filter((file) => file.endsWith(".yaml"))) {
      const text = await readFile(join(dir, "out", name), "utf8");
      expect(text.split("\n")[0], name).toBe("# yaml-language-server: $schema=./converge.schema.json");
    }
  });

  it("writes what was set, pins integrations, targets them by name and leaves server defaults out", async () => {
    const service = await convergedDemoWorld();
    const dir = await dirs.make("export");
    expectExit(await converge(service, ["export", ...EXPORT_SCOPE, "-o", "."], dir), 0);

    const orders = documentsOf(await readFile(join(dir, `api-${ORDERS_API}.yaml`), "utf8"));
    expect(orders[0]).toEqual({ kind: "Api", api: ORDERS_API, spec: { protocolType: "HTTP" } });
    const ordersBackend = orders.find((document) => document.spec.integrationUri === "https://orders.internal.example/v2")!;
    const liveOrdersBackend = (await liveIntegrations(service, ORDERS_API)).find((integration) => integration.integrationUri === "https://orders.internal.example/v2")!;
    expect(ordersBackend).toEqual({
      kind: "Integration",
      name: "orders-v2",
      api: ORDERS_API,
      spec: {
        integrationId: liveOrdersBackend.integrationId,
        integrationType: "HTTP_PROXY",
        integrationUri: "https://orders.internal.example/v2",
        integrationMethod: "ANY",
        payloadFormatVersion: "1.0",
        timeoutInMillis: 10000,
        requestParameters: { "overwrite:header.x-tenant": "$context.authorizer.claims.tenant" },
      },
    });
    // the inventory integration has the HTTP default timeout and connection type: neither is written
    const inventory = orders.find((document) => document.name === "inventory-api")!;
    expect(inventory.spec).not.toHaveProperty("timeoutInMillis");
    expect(inventory.spec).not.toHaveProperty("connectionType");
    expect(orders.find((document) => document.spec.routeKey === "GET /orders")).toEqual({
      kind: "Route", api: ORDERS_API,
      spec: { routeKey: "GET /orders", target: { integration: "orders-v2" }, authorizationType: "JWT", authorizerId: "jwtauth1", authorizationScopes: ["orders.read"] },
    });
    expect(orders.map((document) => document.prune ?? document.spec.prune)).not.toContain(true);

    const chat = documentsOf(await readFile(join(dir, `api-${CHAT_API}.yaml`), "utf8"));
    // sendMessage has authorizationType NONE and apiKeyRequired false live: both defaults, left out
    expect(chat.find((document) => document.spec.routeKey === "sendMessage")!.spec).toEqual({
      routeKey: "sendMessage", target: { integration: "chat-handler" }, routeResponseSelectionExpression: "$default",
    });
    expect(chat.find((document) => document.spec.routeKey === "$connect")!.spec).toMatchObject({ authorizationType: "CUSTOM", apiKeyRequired: true });
    expect(chat.find((document) => document.name === "chat-handler")!.spec).not.toHaveProperty("timeoutInMillis"); // 29000, the WebSocket default

    const self = documentsOf(await readFile(join(dir, "account-self.yaml"), "utf8"));
    expect(self.every((document) => !("account" in document))).toBe(true);
    expect(self.filter((document) => document.kind === "AlternateContact").map((document) => document.spec.type)).toEqual(["BILLING", "SECURITY"]);
    const member = documentsOf(await readFile(join(dir, "account-222222222222.yaml"), "utf8"));
    expect(member.find((document) => document.spec.type === "OPERATIONS")).toEqual({
      kind: "AlternateContact", account: "222222222222",
      spec: { type: "OPERATIONS", name: "Payments On-Call", title: "SRE Lead", emailAddress: "payments-oncall@example.com", phoneNumber: "+1 (555) 0111" },
    });
    const regions = member.filter((document) => document.kind === "RegionOptIn");
    expect(regions).toHaveLength(13); // the demo world's opt-in Regions; the 17 enabled by default are left out
    expect(regions.find((document) => document.spec.region === "ap-east-1")).toEqual({ kind: "RegionOptIn", account: "222222222222", spec: { region: "ap-east-1", enabled: true } });
    expect(regions.find((document) => document.spec.region === "af-south-1")!.spec.enabled).toBe(false);
    expect(regions.map((document) => document.spec.region)).not.toContain("us-east-1");
  });

  it("writes service-managed resources as comments, never as documents", async () => {
    const service = await convergedDemoWorld();
    const dir = await dirs.make("export");
    expectExit(await converge(service, ["export", "--api", ORDERS_API, "-o", "."], dir), 0);
    const text = await readFile(join(dir, `api-${ORDERS_API}.yaml`), "utf8");
    const managedRoute = await liveRoute(service, ORDERS_API, "$default");
    const managedIntegrationId = managedRoute.target!.slice("integrations/".length);
    expect(managedRoute.apiGatewayManaged).toBe(true);

    const documents = documentsOf(text);
    expect(documents.map((document) => document.spec.routeKey)).not.toContain("$default");
    expect(documents.map((document) => document.spec.integrationId)).not.toContain(managedIntegrationId);
    expect(text).toContain("# Managed by the service (apiGatewayManaged: quick create): 1 integration and 1 route,");
    expect(text).toContain(`#   integrationId: ${managedIntegrationId}`);
    expect(text).toContain("#   routeKey: $default");

    // uncommented, the managed pair is a valid declaration of the same live resources
    const commented = text.slice(text.indexOf("# Managed by the service"));
    const uncommented = commented.split("\n").filter((line) => line.startsWith("# ") && !line.startsWith("# Managed") && /^# (kind|name|api|spec|  |---)/.test(line)).map((line) => line.slice(2)).join("\n");
    const managedDocuments = documentsOf(uncommented);
    expect(managedDocuments.map((document) => document.kind)).toEqual(["Integration", "Route"]);
    expect(managedDocuments[1]!.spec.target).toEqual({ integration: managedDocuments[0]!.name });
    await writeFile(join(dir, "claimed.yaml"), `${text.slice(0, text.indexOf("# Managed by the service"))}---\n${uncommented}\n`);
    const planned = await converge(service, ["plan", "-f", "claimed.yaml", "--output", "json"], dir);
    expectExit(planned, 0);
    expect(parsePlanJson(planned).summary).toMatchObject({ noop: 7, refused: 0 });
  });

  it("prints one YAML stream on stdout without -o, which plans to no changes as one file", async () => {
    const service = await convergedDemoWorld();
    const dir = await dirs.make("export");
    const exported = await converge(service, ["export", ...EXPORT_SCOPE], dir);
    expectExit(exported, 0);
    expect(exported.stdout.split("\n")[0]).toBe("# yaml-language-server: $schema=./converge.schema.json");
    expect(exported.stdout.match(/yaml-language-server/g)).toHaveLength(1);
    expect(await readdir(dir)).toEqual([]);
    await writeFile(join(dir, "estate.yaml"), exported.stdout);
    const planned = await converge(service, ["plan", "-f", "estate.yaml"], dir);
    expectExit(planned, 0);
    expect(planned.stdout).toContain("No changes");
  });

  it("exports files that catch later drift: plan exits 2 after a change behind converge's back", async () => {
    const service = await convergedDemoWorld();
    const dir = await dirs.make("export");
    expectExit(await converge(service, ["export", ...EXPORT_SCOPE, "-o", "."], dir), 0);
    const changed = await accountCall(service, "PutAlternateContact", {
      AccountId: "333333333333", AlternateContactType: "SECURITY", Name: "Platform Security", Title: "Security Architect",
      EmailAddress: "platform-security@example.com", PhoneNumber: "+44 20 7946 9999",
    }, ADMIN_TOKEN);
    expect(changed.status, changed.text).toBe(200);
    const planned = await converge(service, ["plan", "-f", ".", "--output", "json"], dir);
    expectExit(planned, 2);
    expect(actionLines(parsePlanJson(planned))).toEqual(["update AlternateContact/333333333333/SECURITY"]);
  });

  it("refuses an unknown API and malformed IDs, writing nothing", async () => {
    const service = await services.start();
    const dir = await dirs.make("export");
    const unknown = await converge(service, ["export", "--api", "zzzzzzzzzz", "--account", "self", "-o", "out"], dir);
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain("API zzzzzzzzzz does not exist in this account");
    const malformed = await converge(service, ["export", "--api", "Orders", "--account", "12345"], dir);
    expectExit(malformed, 1);
    expect(malformed.stderr).toContain('--api "Orders" is not valid: expected an apiId');
    expect(malformed.stderr).toContain('--account "12345" is not valid: expected 12 digits, or self');
    const empty = await converge(service, ["export"], dir);
    expectExit(empty, 1);
    expect(empty.stderr).toContain("nothing to export");
    expect(await readdir(dir)).toEqual([]);
    expect((await liveRoutes(service, ORDERS_API)).length).toBeGreaterThan(0); // the service was there all along
  });
});
