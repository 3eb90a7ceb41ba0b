import { describe, expect, it } from "vitest";
import { E2E_TIMEOUT_MS, converge, e2eWorld, expectExit, useE2eResources, writeFiles } from "./e2e-fixture.js";

/**
 * An API named by its apiId in one document and by `{name: …}` in another is one API: `validate`
 * cannot tell them apart offline, so it never refuses them; planning resolves the name and checks
 * the documents against each other again, by apiId.
 */

const { services, dirs } = useE2eResources();
const WORLD = e2eWorld({
  apis: [
    { apiId: "plainapi01", name: "plain", protocolType: "HTTP" },
    { apiId: "otherapi01", name: "other", protocolType: "HTTP" },
  ],
});

const INTEGRATION = (api: string, name = "orders-backend") => [
  "kind: Integration", `name: ${name}`, `api: ${api}`, "spec:",
  "  integrationType: HTTP_PROXY", `  integrationUri: https://${name}.example/api`, "  integrationMethod: ANY", '  payloadFormatVersion: "1.0"', "",
].join("\n");
const ROUTE = (api: string, routeKey = "GET /orders", target = "orders-backend") => ["kind: Route", `api: ${api}`, "spec:", `  routeKey: ${routeKey}`, `  target: {integration: ${target}}`, ""].join("\n");

describe("API references of both forms", { timeout: E2E_TIMEOUT_MS }, () => {
  it("validates, plans, applies and drifts clean a route by apiId targeting an integration declared by API name", async () => {
    const service = await services.start(WORLD);
    const dir = await dirs.make("mixed-references");
    await writeFiles(dir, {
      "integration.yaml": INTEGRATION("{name: plain}"),
      "route.yaml": ROUTE("plainapi01"),
      "api.yaml": "kind: Api\napi: {name: plain}\nspec: {prune: true}\n",
    });
    expectExit(await converge(service, ["validate", "-f", "."], dir), 0);
    expectExit(await converge(service, ["plan", "-f", "."], dir), 2);
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expectExit(await converge(service, ["plan", "-f", "."], dir), 0);
    const drift = await converge(service, ["drift", "-f", ".", "--output", "json"], dir);
    expectExit(drift, 0);
    const report = JSON.parse(drift.stdout) as { summary: Record<string, number> };
    expect(report.summary).toMatchObject({ "in-sync": 3, drifted: 0, missing: 0, unmanaged: 0, unknown: 0 });
  });

  it("still refuses offline a target that no document of the API could declare", async () => {
    const dir = await dirs.make("dangling-reference");
    // the integration is declared for another apiId, and no document names an API by name
    await writeFiles(dir, { "integration.yaml": INTEGRATION("otherapi01"), "route.yaml": ROUTE("plainapi01") });
    const result = await converge(await services.start(WORLD), ["validate", "-f", "."], dir);
    expectExit(result, 1);
    expect(result.stderr).toMatch(/route\.yaml:5:\d+: spec\.target\.integration: target names integration "orders-backend", but no Integration document of the same api declares that name/);
  });

  it("refuses at plan time, before any write, a target the name resolves to another API for", async () => {
    const service = await services.start(WORLD);
    const dir = await dirs.make("other-api-reference");
    await writeFiles(dir, { "integration.yaml": INTEGRATION("{name: other}"), "route.yaml": ROUTE("plainapi01") });
    expectExit(await converge(service, ["validate", "-f", "."], dir), 0);
    const before = service.requests.count({ writesOnly: true });
    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 1);
    expect(planned.stderr).toMatch(/route\.yaml:5:\d+: spec\.target\.integration: target names integration "orders-backend", but no Integration document of the same api declares that name/);
    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(applied, 1);
    expect(service.requests.count({ writesOnly: true })).toBe(before);
  });

  it("refuses at plan time one resource declared twice, once by apiId and once by API name", async () => {
    const service = await services.start(WORLD);
    const dir = await dirs.make("twice-declared");
    await writeFiles(dir, { "by-id.yaml": ROUTE("plainapi01", "GET /twice", "a"), "by-name.yaml": ROUTE("{name: plain}", "GET /twice", "b"), "integrations.yaml": `${INTEGRATION("plainapi01", "a")}---\n${INTEGRATION("{name: plain}", "b")}` });
    expectExit(await converge(service, ["validate", "-f", "."], dir), 0);
    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 1);
    expect(planned.stderr).toContain("Route/plainapi01/GET /twice is declared twice: first at by-id.yaml:1");
  });
});
