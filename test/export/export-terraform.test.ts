import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runProcess, type ProcessResult } from "../support/run-process.js";
import { convergeCommand } from "../support/converge-command.js";
import { describeTerraform, operations, planLine, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS, TOKEN } from "../provider/terraform-fixture.js";
import { terraformSuite } from "../provider/terraform-suite.js";
import { buildTerraformEstate, ESTATE_ACCOUNTS, ESTATE_APIS, HOSTILE_TEXT, TEMPLATE_TEXT } from "./terraform-estate.js";

/**
 * The round trip of `converge export --format terraform` (the compiled CLI) with real terraform
 * 1.11 and converge's provider: a live estate of more than 50 items made through the clients is
 * exported; the files are fmt-clean and the same bytes twice; `terraform plan` shows only imports;
 * apply writes nothing and leaves a clean plan; hostile text in live values is state's exact
 * value; one attribute changed in the files is one in-place update.
 */

const suite = terraformSuite("export");
let estate: TerraformDir;
let integrationIds: Record<string, string>;

const SCOPE = ["--api", ESTATE_APIS.http, "--api", ESTATE_APIS.websocket, "--account", "self", "--account", ESTATE_ACCOUNTS.member];

function exportTo(dir: string): Promise<ProcessResult> {
  const converge = convergeCommand();
  return runProcess(converge.file, [...converge.args, "export", ...SCOPE, "--format", "terraform", "-o", dir], {
    env: { PATH: process.env.PATH ?? "", CONVERGE_ENDPOINT: suite.service.url, CONVERGE_TOKEN: TOKEN },
    timeoutMs: 60_000,
  });
}

/** The `.tf` files of a directory by name, with their text. */
function tfFiles(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).filter((name) => name.endsWith(".tf")).sort().map((name) => [name, readFileSync(join(dir, name), "utf8")]));
}

beforeAll(async () => {
  integrationIds = Object.fromEntries(Object.entries(await buildTerraformEstate(suite.clients, 5)).map(([name, integration]) => [name, integration.integrationId]));
  estate = suite.dir("estate");
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("converge export --format terraform with real terraform", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("writes the same fmt-clean files twice, with no token in them", async () => {
    const first = await exportTo(estate.dir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`wrote ${estate.path(`api-${ESTATE_APIS.http}.tf`)}`);
    const again = await exportTo(join(suite.home.root, "again"));
    expect(again.code, again.stderr).toBe(0);
    const files = tfFiles(estate.dir);
    expect(Object.keys(files)).toEqual([
      `account-${ESTATE_ACCOUNTS.member}.tf`, "account-self.tf", `api-${ESTATE_APIS.http}.tf`, `api-${ESTATE_APIS.websocket}.tf`, "providers.tf",
    ]);
    expect(tfFiles(join(suite.home.root, "again"))).toEqual(files);
    for (const text of Object.values(files)) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(suite.service.url);
    }
    const fmt = await estate.run(["fmt", "-check", "-diff"]);
    expect(fmt.code, describeTerraform(fmt)).toBe(0);
    expect(fmt.stdout).toBe("");
  });

  it("writes references, literals and the service-managed resources as the HCL reads them", () => {
    const api = readFileSync(estate.path(`api-${ESTATE_APIS.http}.tf`), "utf8");
    expect(api).toContain(`data "converge_api" "orders" {\n  api_id = "${ESTATE_APIS.http}"`);
    expect(api).toContain("api_id                 = data.converge_api.orders.api_id");
    expect(api).toContain(`description            = ${JSON.stringify(HOSTILE_TEXT)}`);
    expect(api).toContain('"overwrite:header.x-note" = "say \\"hi\\" $${not.a.reference} %%{ if true }x%%{ endif } $request.header.y \\\\ done"');
    expect(api).toMatch(/target\s+= "integrations\/\$\{converge_integration\.orders-v2\.integration_id\}"/);
    expect(api).toContain(`import {\n  to = converge_integration.orders-v2\n  id = "${ESTATE_APIS.http}/${integrationIds.proxy}"\n}`);
    // the route to the managed integration names it by ID; the managed integration and $default route are comments
    expect(api).toMatch(/route_key = "GET \/orders\/\{id\}"\n  target    = "integrations\/[a-z0-9]+"\n/);
    expect(api).toContain('# resource "converge_route" "default" {');
    expect(api).toContain('#   route_key = "$default"');
    expect(api).not.toMatch(/^resource "converge_route" "default"/m);
  });

  it("plans only imports, applies with no write, and plans clean after", async () => {
    const init = await estate.init();
    expect(init.code, describeTerraform(init)).toBe(0);
    const { result: planned, requests: planRequests } = await requestsDuring(suite.service, () => estate.plan());
    expect(planned.code, describeTerraform(planned)).toBe(2);
    const imports = Number(/^Plan: (\d+) to import, 0 to add, 0 to change, 0 to destroy\.$/m.exec(planned.stdout)?.[1]);
    expect(imports, planLine(planned)).toBeGreaterThanOrEqual(50);
    expect(planned.stdout).not.toContain("converge_route.evil");
    expect(operations(planRequests, { writesOnly: true })).toEqual([]);

    const { result: applied, requests: applyRequests } = await requestsDuring(suite.service, () => estate.apply());
    expect(applied.code, describeTerraform(applied)).toBe(0);
    expect(applied.stdout).toContain(`Apply complete! Resources: ${imports} imported, 0 added, 0 changed, 0 destroyed.`);
    expect(operations(applyRequests, { writesOnly: true })).toEqual([]);

    const state = estate.state();
    expect(Object.keys(state).filter((address) => !address.startsWith("data."))).toHaveLength(imports);
    const proxy = Object.values(state).find((attributes) => attributes.integration_id === integrationIds.proxy)!;
    expect(proxy.description).toBe(HOSTILE_TEXT);
    expect((proxy.request_parameters as Record<string, string>)["overwrite:header.x-note"]).toBe(TEMPLATE_TEXT);
    expect(JSON.stringify(state)).not.toContain(TOKEN);

    const { result: again, requests: againRequests } = await requestsDuring(suite.service, () => estate.plan());
    expect(again.code, describeTerraform(again)).toBe(0);
    expect(planLine(again)).toBe("No changes.");
    expect(operations(againRequests, { writesOnly: true })).toEqual([]);
  });

  it("plans one attribute changed in the files as one in-place update", async () => {
    const file = estate.path(`api-${ESTATE_APIS.http}.tf`);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("timeout_in_millis      = 12000");
    writeFileSync(file, text.replace("timeout_in_millis      = 12000", "timeout_in_millis      = 15000"));
    const planned = await estate.plan();
    expect(planned.code, describeTerraform(planned)).toBe(2);
    expect(planLine(planned)).toBe("Plan: 0 to add, 1 to change, 0 to destroy.");
    expect(planned.stdout).toContain("# converge_integration.orders-v2 will be updated in-place");
    expect(planned.stdout).toMatch(/~ timeout_in_millis\s+= 12000 -> 15000/);
  });
});
