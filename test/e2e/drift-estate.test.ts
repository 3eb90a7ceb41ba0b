import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collect } from "../../src/clients/index.js";
import { Route as RouteConstruct } from "../../constructs/index.js";
import type { DriftReport } from "../../src/reconcile/drift-report.js";
import { describeCliResult, runCli, type CliResult } from "../support/cli.js";
import { describeTerraform, liveRoutes, CHAT_API, MEMBER_ACCOUNT, memberBillingContact, ORDERS_API, planLine, providerBlock, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS, TOKEN } from "../provider/terraform-fixture.js";
import { terraformSuite } from "../provider/terraform-suite.js";
import { synthStack } from "../constructs/synth-fixture.js";
import { CLI_COMMAND, Terraform } from "../constructs/terraform-fixture.js";
import { ordersApiLines, outcomeLines, parseDriftJson, resourceAt, routeLines } from "../drift/support/drift-fixture.js";

/**
 * Issue 31 end to end, drift over the whole estate: one service (port 0) holding an estate managed
 * three ways — a YAML directory applied by the CLI, an HCL root module applied by real terraform
 * 1.11 through converge's provider, and a cdktf stack with the terraform_data vehicle deployed by
 * real terraform — then changed by hand through the typed clients, and one `converge drift` over
 * every source at once: `-f` the YAML (the working directory), `--state` the module's
 * terraform.tfstate, `--from-synth` the stack's cdktf.out and `--state` the stack's own
 * terraform.tfstate (the inventory its deploys keep). Then `--unmanaged all`, ignore rules, a
 * drift-ignore baseline, export to terraform, the reads of the YAML alone, `plan --prune` beside the
 * state, and bad inputs refused before any read. The steps share that estate and run in order.
 */

const suite = terraformSuite("drift-estate");
/** The API the YAML's Api document owns (the demo world's "orders"); the HCL module manages a route and an integration in it too. */
const API_A = ORDERS_API;
/** The opt-in Region opted in by hand (DISABLED in the demo world). */
const HAND_REGION = "af-south-1";

let hcl: TerraformDir;
let stack: Terraform;
/** The stack's cdktf output directory (what `--from-synth` reads). */
let synthDir: string;
/** The YAML directory, the working directory of every converge command. */
let work: string;
/** Created through the clients before anything is deployed: B (the HCL module and the stack add routes), C (nobody declares it). */
let apiB: string;
let apiC: string;
/** The integration the service quick-created with API A (protected: refused, never unmanaged). */
let quickCreated: { integrationId: string };

/** `outcome address` of every resource not in sync, sorted. */
const notInSync = (report: DriftReport): string[] => outcomeLines(report).filter((line) => !line.startsWith("in-sync "));

const YAML_FILES = (): Record<string, string> => ({
  "orders.yaml": [...ordersApiLines(API_A), ...routeLines(API_A, '{routeKey: "DELETE /orders/{id}", target: {integration: backend}}'), ""].join("\n"),
  "accounts.yaml": [
    "kind: AlternateContact",
    'spec: {type: SECURITY, name: Security Team, title: CISO, emailAddress: security@example.com, phoneNumber: "+1 555 0100"}',
    "---",
    "kind: RegionOptIn",
    `account: "${MEMBER_ACCOUNT}"`,
    "spec: {region: ap-east-1, enabled: false}",
    "",
  ].join("\n"),
});

const HCL_MAIN = (): string => `${providerBlock()}
resource "converge_integration" "inventory" {
  api_id                 = "${API_A}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://inventory.example/items"
  integration_method     = "ANY"
  payload_format_version = "1.0"
}

resource "converge_route" "inventory" {
  api_id    = "${API_A}"
  route_key = "GET /inventory"
  target    = "integrations/\${converge_integration.inventory.integration_id}"
}

resource "converge_route" "catalog" {
  api_id    = "${apiB}"
  route_key = "GET /catalog"
}

${memberBillingContact("+1 555 0101")}`;

/** `converge ARGS` in the YAML directory, with TOKEN (an administrator of the management account). */
function converge(args: ReadonlyArray<string>): Promise<CliResult> {
  return runCli(args, { cwd: work, env: { CONVERGE_ENDPOINT: suite.service.url, CONVERGE_TOKEN: TOKEN, GITHUB_STEP_SUMMARY: undefined }, timeoutMs: 90_000 });
}

function expectExit(result: CliResult, code: number): void {
  expect(result.code, describeCliResult(result)).toBe(code);
}

/** The sources of the whole estate: the YAML, the HCL module's state, the stack's synth output and its state (the inventory). */
const ESTATE = (): string[] => ["drift", "-f", ".", "--state", hcl.path("terraform.tfstate"), "--from-synth", synthDir, "--state", join(synthDir, "stacks", "shop", "terraform.tfstate"), "--output", "json"];

beforeAll(async () => {
  expect(suite.home.install.code, suite.home.install.stderr).toBe(0);
  apiB = (await suite.clients.gateway.createApi({ name: "catalog", protocolType: "HTTP" })).apiId;

  // 1. the YAML directory, applied by the CLI
  work = join(suite.home.root, "yaml");
  await mkdir(work);
  for (const [name, text] of Object.entries(YAML_FILES())) await writeFile(join(work, name), text);
  expectExit(await converge(["apply", "-f", ".", "--auto-approve"]), 0);

  // the HCL root module, applied by terraform through converge's provider
  hcl = suite.dir("hcl");
  hcl.write(HCL_MAIN());
  for (const step of [() => hcl.init(), () => hcl.apply()]) {
    const result = await step();
    if (result.code !== 0) throw new Error(describeTerraform(result));
  }

  // the cdktf stack (terraform_data vehicle), deployed by terraform: it runs the compiled CLI
  synthDir = join(suite.home.root, "cdktf.out");
  const synth = synthStack((scope) => {
    new RouteConstruct(scope, "stock", { api: apiB, routeKey: "GET /stock" });
  }, { vehicle: "terraform_data", endpoint: suite.service.url, cli: CLI_COMMAND }, { outdir: synthDir });
  const stackHome = join(suite.home.root, "stack-home");
  await mkdir(stackHome);
  stack = new Terraform(synth.stackDir, stackHome, { CONVERGE_TOKEN: TOKEN });
  for (const step of [() => stack.init(), () => stack.apply()]) {
    const result = await step();
    if (result.code !== 0) throw new Error(describeTerraform(result));
  }

  // 2. changes by hand, through the typed clients
  await suite.clients.account.putAlternateContact({ AccountId: MEMBER_ACCOUNT, AlternateContactType: "BILLING", Name: "Ana Billing", Title: "Controller", EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0199" });
  const doomed = (await liveRoutes(suite.clients, API_A)).find((route) => route.routeKey === "DELETE /orders/{id}")!;
  expect(await suite.clients.gateway.deleteRoute(API_A, doomed.routeId)).toBe(true);
  await suite.clients.gateway.createRoute(API_A, { routeKey: "GET /stray" });
  apiC = (await suite.clients.gateway.createApi({ name: "ghost", protocolType: "HTTP" })).apiId;
  await suite.clients.gateway.createRoute(apiC, { routeKey: "GET /ghost" });
  await suite.clients.account.enableRegion({ RegionName: HAND_REGION });
  quickCreated = (await collect(suite.clients.gateway.integrations(API_A))).find((integration) => integration.apiGatewayManaged === true)!;
  suite.service.requests.reset();
}, 300_000);

describe("converge drift over an estate managed three ways", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  let owned: DriftReport;
  let all: DriftReport;
  /** The report of `--unmanaged all`, as a file (what drift-ignore and export read). */
  let allReportFile: string;

  beforeAll(async () => {
    const ownedRun = await converge(ESTATE());
    expectExit(ownedRun, 2);
    owned = parseDriftJson(ownedRun);
    allReportFile = join(suite.home.root, "report-all.json");
    const allRun = await converge([...ESTATE(), "--unmanaged", "all", "--report", allReportFile]);
    expectExit(allRun, 2);
    all = parseDriftJson(allRun);
  }, TERRAFORM_TEST_TIMEOUT_MS);

  it("reports, over every source at once, the terraform-managed route in sync, the changed contact drifted, the deleted route missing, the stray route unmanaged; exit 2", () => {
    expect(notInSync(owned)).toEqual([
      "drifted AlternateContact/222222222222/BILLING",
      `missing Route/${API_A}/DELETE /orders/{id}`,
      `refused Integration/${API_A}/${quickCreated.integrationId}`,
      `refused Route/${API_A}/$default`,
      `unmanaged Route/${API_A}/GET /stray`,
    ]);
    for (const address of [`Route/${API_A}/GET /inventory`, `Integration/${API_A}/converge_integration.inventory`, `Route/${apiB}/GET /catalog`, `Route/${apiB}/GET /stock`, `Route/${API_A}/GET /orders`, "AlternateContact/self/SECURITY"]) {
      expect(resourceAt(owned, address).outcome, address).toBe("in-sync");
    }
    expect(resourceAt(owned, `Route/${API_A}/GET /inventory`).source).toEqual({ state: "../hcl/terraform.tfstate", address: "converge_route.inventory" });
    expect(resourceAt(owned, `Route/${apiB}/GET /stock`).source).toMatchObject({ file: "../cdktf.out/stacks/shop/converge.desired.json" });
    const contact = resourceAt(owned, "AlternateContact/222222222222/BILLING");
    expect(contact.fields).toEqual([{ path: "phone_number", desired: "+1 555 0101", live: "+1 555 0199" }]);
    expect(contact.source).toEqual({ state: "../hcl/terraform.tfstate", address: "converge_alternate_contact.billing" });
    // live in scope: the 8 declared resources that exist (a Region left disabled is nothing live; APIs are not counted) and the stray route
    expect(owned.summary).toEqual({ "in-sync": 9, drifted: 1, missing: 1, unmanaged: 1, conflict: 0, refused: 2, unknown: 0, ignored: 0, coverage: { managed: 8, live: 9, percent: 88.8 } });
  });

  it("with --unmanaged all also reports the route of API C, API C itself and the Region opted in by hand", () => {
    // and the demo world's chat API, which no source names; API B is not unmanaged: the HCL module and the stack manage routes in it
    expect(notInSync(all)).toEqual([
      ...notInSync(owned), `unmanaged Api/${apiC}`, `unmanaged Route/${apiC}/GET /ghost`, `unmanaged RegionOptIn/self/${HAND_REGION}`, `unmanaged Api/${CHAT_API}`,
    ].sort());
    expect(resourceAt(all, `Route/${apiC}/GET /ghost`).reason).toBe("live, and no source manages it (--unmanaged all)");
    expect(resourceAt(all, `Route/${apiB}/GET /catalog`).outcome).toBe("in-sync");
  });

  it("counts the stack's route as managed from its state's inventory alone, without the synth output", async () => {
    const result = await converge(["drift", "-f", ".", "--state", hcl.path("terraform.tfstate"), "--state", join(synthDir, "stacks", "shop", "terraform.tfstate"), "--unmanaged", "all", "--output", "json"]);
    expectExit(result, 2);
    const report = parseDriftJson(result);
    // the inventory only claims: the route is in no outcome, and not unmanaged
    expect(report.resources.filter((resource) => resource.address === `Route/${apiB}/GET /stock`)).toEqual([]);
    expect(notInSync(report)).toEqual(notInSync(all));
    // without the stack's state, nothing manages it
    const withoutStack = await converge(["drift", "-f", ".", "--state", hcl.path("terraform.tfstate"), "--unmanaged", "all", "--output", "json"]);
    expectExit(withoutStack, 2);
    expect(resourceAt(parseDriftJson(withoutStack), `Route/${apiB}/GET /stock`).outcome).toBe("unmanaged");
  });

  it("marks the stray route an ignore rule accepts with the rule's file, line and reason, and takes the exit code from the rest", async () => {
    await writeFile(join(suite.home.root, "accept-stray.yaml"), [
      "# the on-call team's debugging route",
      `- address: "Route/${API_A}/GET /stray"`,
      "  outcomes: [unmanaged]",
      "  reason: on-call debugging route, removed after the incident",
      "",
    ].join("\n"));
    const result = await converge([...ESTATE(), "--ignore", "../accept-stray.yaml"]);
    expectExit(result, 2);
    const report = parseDriftJson(result);
    expect(resourceAt(report, `Route/${API_A}/GET /stray`).ignoredBy).toEqual({ file: "../accept-stray.yaml", line: 2, reason: "on-call debugging route, removed after the incident" });
    expect(report.summary).toMatchObject({ drifted: 1, missing: 1, unmanaged: 0, ignored: 1 });
  });

  it("turns the --unmanaged all report into a baseline with drift-ignore; drift with that baseline exits 0", async () => {
    const baseline = await converge(["drift-ignore", allReportFile, "--reason", "baseline"]);
    expectExit(baseline, 0);
    const baselineFile = join(suite.home.root, "baseline.yaml");
    await writeFile(baselineFile, baseline.stdout);
    const result = await converge([...ESTATE(), "--unmanaged", "all", "--ignore", baselineFile]);
    expectExit(result, 0);
    const report = parseDriftJson(result);
    // every drifted, missing and unmanaged finding of the report (the 2 refused ones are not drift: drift-ignore leaves them)
    expect(report.summary).toMatchObject({ drifted: 0, missing: 0, unmanaged: 0, refused: 2, ignored: 7 });
    expect(resourceAt(report, "AlternateContact/222222222222/BILLING").ignoredBy).toMatchObject({ reason: "baseline" });
  });

  it("exports the unmanaged resources of the --unmanaged all report as terraform whose plan only imports", async () => {
    const out = join(suite.home.root, "exported");
    const exported = await converge(["export", "--format", "terraform", "--from-drift", allReportFile, "-o", out]);
    expectExit(exported, 0);
    // the stray route of A, the route of C and the Region: a resource and an import block each; the APIs (C, chat) are data sources
    expect((await readdir(out)).sort()).toEqual(["account-self.tf", `api-${API_A}.tf`, `api-${apiC}.tf`, `api-${CHAT_API}.tf`, "providers.tf"].sort());
    const written = (await Promise.all((await readdir(out)).map((file) => readFile(join(out, file), "utf8")))).join("\n");
    expect(written.match(/^import \{$/gm)).toHaveLength(3);
    expect(written).toContain(`to = converge_region_opt_in.af_south_1\n  id = "${HAND_REGION}"`);
    const imports = new TerraformDir(suite.home, "exported", hcl.env);
    const init = await imports.init();
    expect(init.code, describeTerraform(init)).toBe(0);
    const plan = await imports.plan();
    expect(plan.code, describeTerraform(plan)).toBe(2);
    expect(planLine(plan)).toBe("Plan: 3 to import, 0 to add, 0 to change, 0 to destroy.");
  });
});

describe("what drift reads and what plan prunes, beside terraform's state", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("reads for the YAML alone only what its documents' read keys need", async () => {
    suite.service.requests.reset();
    const result = await converge(["drift", "-f", ".", "--output", "json"]);
    expectExit(result, 2);
    const reads = Object.fromEntries(["GetApis", "GetApi", "GetRoutes", "GetIntegrations", "GetAlternateContact", "ListRegions"].map((operation) => [operation, suite.service.requests.count({ operation })]));
    // API A: one GetRoutes + one GetIntegrations; its Api document gives its protocol, so no GetApi, and no API is named, so no GetApis;
    // one GetAlternateContact for the one contact (SECURITY of the caller); one ListRegions for the one account with a RegionOptIn (222…)
    expect(reads).toEqual({ GetApis: 0, GetApi: 0, GetRoutes: 1, GetIntegrations: 1, GetAlternateContact: 1, ListRegions: 1 });
    expect(suite.service.requests.count()).toBe(4);
  });

  it("plans no delete of what the HCL module manages in API A with --state, and plans those deletes without it", async () => {
    const deletes = async (args: string[]) => {
      const result = await converge(["plan", "-f", ".", "--prune", ...args, "--output", "json"]);
      expectExit(result, 2);
      const plan = JSON.parse(result.stdout) as { actions: Array<{ type: string; address: string }> };
      return plan.actions.filter((action) => action.type === "delete").map((action) => action.address).sort();
    };
    expect(await deletes(["--state", hcl.path("terraform.tfstate")])).toEqual([`Route/${API_A}/GET /stray`]);
    // without the state, the module's integration is one more undeclared integration of A, named by its ID
    const inventoryId = String(hcl.attributes("converge_integration.inventory").integration_id);
    expect(await deletes([])).toEqual([`Integration/${API_A}/${inventoryId}`, `Route/${API_A}/GET /inventory`, `Route/${API_A}/GET /stray`]);
  });
});

describe("bad inputs, refused before any read", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  const cases: Array<{ name: string; file: string; text: string; flag: "--state" | "--ignore"; message: RegExp }> = [
    { name: "a state of version 3", file: "v3.tfstate", flag: "--state", text: '{\n  "version": 3,\n  "serial": 1,\n  "modules": []\n}\n', message: /v3\.tfstate:2/ },
    { name: "a truncated state", file: "truncated.tfstate", flag: "--state", text: '{\n  "version": 4,\n  "terraform_version": "1.11.0",\n  "resources": [\n    {"mode": "managed", "type": "converge_route", "name": "r", "instances": [', message: /truncated\.tfstate:5/ },
    { name: "a state nested 100,000 deep", file: "deep.tfstate", flag: "--state", text: "[".repeat(100_000), message: /deep\.tfstate:1/ },
    { name: "an ignore rule without a reason", file: "no-reason.yaml", flag: "--ignore", text: `- address: "Route/${ORDERS_API}/*"\n  outcomes: [unmanaged]\n`, message: /no-reason\.yaml:1/ },
    { name: "an ignore rule with an unknown key", file: "unknown-key.yaml", flag: "--ignore", text: `- address: "Route/${ORDERS_API}/*"\n  reason: why not\n  color: red\n`, message: /unknown-key\.yaml:3/ },
    { name: "an ignore rule with a date that does not exist", file: "bad-date.yaml", flag: "--ignore", text: `- address: "Route/${ORDERS_API}/*"\n  reason: until the migration\n  until: 2027-02-30\n`, message: /bad-date\.yaml:3/ },
  ];

  it.each(cases)("refuses $name (exit 1, file and line named, no request)", async ({ file, text, flag, message }) => {
    await writeFile(join(suite.home.root, file), text);
    suite.service.requests.reset();
    const result = await converge(["drift", "-f", ".", "--state", hcl.path("terraform.tfstate"), flag, join("..", file)]);
    expectExit(result, 1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
    expect(suite.service.requests.count()).toBe(0);
  });
});
