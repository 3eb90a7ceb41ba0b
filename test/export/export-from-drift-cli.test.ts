import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseDriftReport, type DriftReport } from "../../src/reconcile/drift-report.js";
import { runProcess, type ProcessResult } from "../support/run-process.js";
import { convergeCommand } from "../support/converge-command.js";
import { describeTerraform, operations, planLine, requestsDuring, TERRAFORM_TEST_TIMEOUT_MS, TOKEN } from "../provider/terraform-fixture.js";
import { terraformSuite } from "../provider/terraform-suite.js";

/**
 * `converge export --from-drift` end to end (the compiled CLI, real terraform 1.11 and converge's
 * provider against the embedded service): an `Api` document with prune owns an API whose routes and
 * integrations were partly made by hand; `converge drift` reports those unmanaged; exported from the
 * report, terraform plans exactly their imports, and the YAML added to the sources leaves none
 * unmanaged. Then the inputs export refuses or has nothing to do with.
 */

const suite = terraformSuite("from-drift");
let work: string;
let apiId: string;
const ids: Record<string, string> = {};

function converge(args: ReadonlyArray<string>): Promise<ProcessResult> {
  const command = convergeCommand();
  return runProcess(command.file, [...command.args, ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? "", CONVERGE_ENDPOINT: suite.service.url, CONVERGE_TOKEN: TOKEN },
    timeoutMs: 60_000,
  });
}

const readReport = (file: string): DriftReport => parseDriftReport(JSON.parse(readFileSync(join(work, file), "utf8")), file);
const unmanagedOf = (report: DriftReport): string[] => report.resources.filter((resource) => resource.outcome === "unmanaged").map(({ address }) => address);

beforeAll(async () => {
  work = join(suite.home.root, "work");
  mkdirSync(join(work, "sources"), { recursive: true });
  const { gateway } = suite.clients;
  apiId = (await gateway.createApi({ name: "shop", protocolType: "HTTP" })).apiId;
  // declared by the sources
  ids.orders = (await gateway.createIntegration(apiId, {
    integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/", integrationMethod: "GET", payloadFormatVersion: "1.0",
  })).integrationId;
  ids.getOrders = (await gateway.createRoute(apiId, { routeKey: "GET /orders", target: `integrations/${ids.orders}` })).routeId;
  // made by hand: an integration whose derived name ("orders") the sources' integration has, a route to it, and one to the declared integration
  ids.hand = (await gateway.createIntegration(apiId, {
    integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/", integrationMethod: "POST", payloadFormatVersion: "1.0", description: "by hand",
  })).integrationId;
  ids.postOrders = (await gateway.createRoute(apiId, { routeKey: "POST /orders", target: `integrations/${ids.hand}` })).routeId;
  ids.legacy = (await gateway.createRoute(apiId, { routeKey: "GET /legacy", target: `integrations/${ids.orders}` })).routeId;
  writeFileSync(join(work, "sources", "shop.yaml"), [
    "kind: Api",
    `api: ${apiId}`,
    "spec: { protocolType: HTTP, prune: true }",
    "---",
    "kind: Integration",
    "name: orders",
    `api: ${apiId}`,
    "spec: { integrationType: HTTP_PROXY, integrationUri: \"https://orders.example/\", integrationMethod: GET, payloadFormatVersion: \"1.0\" }",
    "---",
    "kind: Route",
    `api: ${apiId}`,
    "spec: { routeKey: GET /orders, target: { integration: orders } }",
    "",
  ].join("\n"));
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("converge export --from-drift", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("writes terraform whose plan is exactly the imports of the report's unmanaged resources", async () => {
    const drift = await converge(["drift", "-f", "sources", "--report", "r.json"]);
    expect(drift.code, drift.stderr).toBe(2);
    expect(unmanagedOf(readReport("r.json"))).toEqual([
      `Integration/${apiId}/${ids.hand}`, `Route/${apiId}/GET /legacy`, `Route/${apiId}/POST /orders`,
    ]);

    const exported = await converge(["export", "--format", "terraform", "--from-drift", "r.json", "-o", "tf"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`wrote tf/api-${apiId}.tf: 1 Integration, 2 Route`);
    const text = readFileSync(join(work, "tf", `api-${apiId}.tf`), "utf8");
    expect(text).toContain(`data "converge_api" "shop" {\n  api_id = "${apiId}"`);
    expect(text).toContain(`target    = "integrations/${ids.orders}"`);
    expect(text).toContain('target    = "integrations/${converge_integration.orders-2.integration_id}"');

    const tf = suite.dir("work/tf");
    const init = await tf.init();
    expect(init.code, describeTerraform(init)).toBe(0);
    const { result: planned, requests } = await requestsDuring(suite.service, () => tf.plan());
    expect(planned.code, describeTerraform(planned)).toBe(2);
    expect(planLine(planned)).toBe("Plan: 3 to import, 0 to add, 0 to change, 0 to destroy.");
    const imported = [...planned.stdout.matchAll(/^ {2}# (\S+) will be imported$/gm)].map((match) => match[1]).sort();
    expect(imported).toEqual(["converge_integration.orders-2", "converge_route.get_legacy", "converge_route.post_orders"]);
    const importIds = [...planned.stdout.matchAll(/^\s+id\s+= "(.+)"$/gm)].map((match) => match[1]).sort();
    expect(importIds).toEqual([`${apiId}/${ids.hand}`, `${apiId}/${ids.legacy}`, `${apiId}/${ids.postOrders}`].sort());
    expect(operations(requests, { writesOnly: true })).toEqual([]);
  });

  it("writes YAML that, added to the sources, leaves nothing unmanaged", async () => {
    const exported = await converge(["export", "--from-drift", "r.json", "-o", "codified"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(`check: converge drift -f SOURCES -f codified`);
    const yaml = readFileSync(join(work, "codified", `api-${apiId}.yaml`), "utf8");
    expect(yaml).not.toContain("kind: Api");
    expect(yaml).toContain(`No Api document: the one at sources/shop.yaml:1 declares the API; these documents join it.`);

    const drift = await converge(["drift", "-f", "sources", "-f", "codified", "--report", "after.json"]);
    expect(drift.code, `${drift.stdout}\n${drift.stderr}`).toBe(0);
    const after = readReport("after.json");
    expect(unmanagedOf(after)).toEqual([]);
    expect(after.summary["in-sync"]).toBe(6);
  });

  it("writes nothing from a report with no unmanaged resource, and says so", async () => {
    const exported = await converge(["export", "--format", "terraform", "--from-drift", "after.json", "-o", "empty"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe("nothing to export: after.json lists no unmanaged resource\n");
    expect(existsSync(join(work, "empty"))).toBe(false);
  });

  it("skips the findings an ignore rule accepts, saying so, unless --include-ignored", async () => {
    const report = readReport("r.json");
    const ignoredBy = { file: "drift-ignore.yaml", line: 1, reason: "made by the on-call runbook" };
    const ignored = { ...report, resources: report.resources.map((resource) => (resource.outcome === "unmanaged" ? { ...resource, ignoredBy } : resource)) };
    writeFileSync(join(work, "ignored.json"), JSON.stringify(ignored));
    const skipped = await converge(["export", "--from-drift", "ignored.json", "-o", "ignored"]);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stderr).toBe("note: skipped 3 unmanaged resources an ignore rule accepts (--include-ignored exports them too)\n"
      + "nothing to export: ignored.json lists no unmanaged resource left to export\n");
    expect(existsSync(join(work, "ignored"))).toBe(false);
    const included = await converge(["export", "--from-drift", "ignored.json", "--include-ignored"]);
    expect(included.code, included.stderr).toBe(0);
    expect(included.stdout).toContain("routeKey: POST /orders");
  });

  it("rejects a file that is not a drift report, naming it", async () => {
    writeFileSync(join(work, "plan.json"), JSON.stringify({ formatVersion: 1, actions: [] }));
    const exported = await converge(["export", "--from-drift", "plan.json"]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain("plan.json is not a converge drift report (formatVersion 2)");
    const missing = await converge(["export", "--from-drift", "absent.json"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read drift report absent.json: no such file or directory (ENOENT)");
  });

  it("refuses --include-ignored without --from-drift", async () => {
    const exported = await converge(["export", "--api", apiId, "--include-ignored"]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain("--include-ignored selects findings of a drift report: pass it with --from-drift REPORT.json");
  });

  it("skips, with a warning naming it, an unmanaged resource deleted since the report", async () => {
    await suite.clients.gateway.deleteRoute(apiId, ids.legacy);
    const exported = await converge(["export", "--from-drift", "r.json", "--api", apiId]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe(`warning: 1 unmanaged resource of r.json no longer live, skipped (nothing to import):\n  Route/${apiId}/GET /legacy\n`);
    expect(exported.stdout).toContain("routeKey: POST /orders");
    expect(exported.stdout).not.toContain("GET /legacy");
  });
});
