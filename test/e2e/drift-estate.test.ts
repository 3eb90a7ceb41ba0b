import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Clients } from "../../src/clients/index.js";
import { Route as RouteConstruct } from "../../constructs/index.js";
import type { DriftReport } from "../../src/reconcile/drift-report.js";
import type { RunningService } from "../../src/service/index.js";
import { describeCliResult, runCli, type CliResult } from "../support/cli.js";
import {
  clientsOf,
  describeResult,
  installProvider,
  liveRoutes,
  MEMBER_ACCOUNT,
  ORDERS_API,
  providerBlock,
  startProviderService,
  TerraformDir,
  TERRAFORM_TEST_TIMEOUT_MS,
  TOKEN,
  type ProviderHome,
} from "../provider/terraform-fixture.js";
import { synthStack } from "../constructs/synth-fixture.js";
import { CLI_COMMAND, describeTerraform, Terraform } from "../constructs/terraform-fixture.js";
import { outcomeLines, parseDriftJson, resourceAt } from "../drift/support/drift-fixture.js";

/**
 * Issue 31 end to end, drift over the whole estate: one service (port 0) holding an estate managed
 * three ways — a YAML directory applied by the CLI, an HCL root module applied by real terraform
 * 1.11 through converge's provider, and a cdktf stack with the terraform_data vehicle deployed by
 * real terraform — then changed by hand through the typed clients, and one `converge drift` over
 * every source at once. The steps share that estate and run in order.
 */

/** The API the YAML's Api document owns (the demo world's "orders"); the HCL module manages a route and an integration in it too. */
const API_A = ORDERS_API;
/** The opt-in Region opted in by hand (DISABLED in the demo world). */
const HAND_REGION = "af-south-1";

let service: RunningService;
let clients: Clients;
let home: ProviderHome;
let hcl: TerraformDir;
let stack: Terraform;
/** The stack's cdktf output directory (what `--from-synth` reads). */
let synthDir: string;
/** The YAML directory, the working directory of every converge command. */
let work: string;
/** Created through the clients before anything is deployed: B (the HCL module and the stack add routes), C (nobody declares it). */
let apiB: string;
let apiC: string;

const YAML_FILES = (): Record<string, string> => ({
  "orders.yaml": [
    "kind: Api",
    `api: ${API_A}`,
    "spec: {protocolType: HTTP}",
    "---",
    "kind: Integration",
    "name: backend",
    `api: ${API_A}`,
    'spec: {integrationType: HTTP_PROXY, integrationUri: "https://backend.example/orders", integrationMethod: ANY, payloadFormatVersion: "1.0"}',
    "---",
    "kind: Route",
    `api: ${API_A}`,
    "spec: {routeKey: GET /orders, target: {integration: backend}}",
    "---",
    "kind: Route",
    `api: ${API_A}`,
    'spec: {routeKey: "DELETE /orders/{id}", target: {integration: backend}}',
    "",
  ].join("\n"),
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

resource "converge_alternate_contact" "billing" {
  account_id             = "${MEMBER_ACCOUNT}"
  alternate_contact_type = "BILLING"
  name                   = "Ana Billing"
  title                  = "Controller"
  email_address          = "billing@example.com"
  phone_number           = "+1 555 0101"
}
`;

/** `converge ARGS` in the YAML directory, with TOKEN (an administrator of the management account). */
function converge(args: ReadonlyArray<string>): Promise<CliResult> {
  return runCli(args, { cwd: work, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: TOKEN, GITHUB_STEP_SUMMARY: undefined }, timeoutMs: 90_000 });
}

function expectExit(result: CliResult, code: number): void {
  expect(result.code, describeCliResult(result)).toBe(code);
}

/** The sources of the whole estate: the YAML, the HCL module's state, the stack's synth output and its state (the inventory). */
const ESTATE = (): string[] => ["drift", "-f", ".", "--state", hcl.path("terraform.tfstate"), "--from-synth", synthDir, "--state", join(synthDir, "stacks", "shop", "terraform.tfstate"), "--output", "json"];

beforeAll(async () => {
  service = await startProviderService();
  clients = clientsOf(service);
  home = await installProvider("drift-estate");
  expect(home.install.code, home.install.stderr).toBe(0);
  apiB = (await clients.gateway.createApi({ name: "catalog", protocolType: "HTTP" })).apiId;

  // 1. the YAML directory, applied by the CLI
  work = join(home.root, "yaml");
  await mkdir(work);
  for (const [name, text] of Object.entries(YAML_FILES())) await writeFile(join(work, name), text);
  expectExit(await converge(["apply", "-f", ".", "--auto-approve"]), 0);

  // the HCL root module, applied by terraform through converge's provider
  hcl = TerraformDir.for(home, "hcl", service);
  hcl.write(HCL_MAIN());
  for (const step of [() => hcl.init(), () => hcl.apply()]) {
    const result = await step();
    if (result.code !== 0) throw new Error(describeResult(result));
  }

  // the cdktf stack (terraform_data vehicle), deployed by terraform: it runs the compiled CLI
  synthDir = join(home.root, "cdktf.out");
  const synth = synthStack((scope) => {
    new RouteConstruct(scope, "stock", { api: apiB, routeKey: "GET /stock" });
  }, { vehicle: "terraform_data", endpoint: service.url, cli: CLI_COMMAND }, { outdir: synthDir });
  const stackHome = join(home.root, "stack-home");
  await mkdir(stackHome);
  stack = new Terraform(synth.stackDir, stackHome, { CONVERGE_TOKEN: TOKEN });
  for (const step of [() => stack.init(), () => stack.apply()]) {
    const result = await step();
    if (result.code !== 0) throw new Error(describeTerraform(result));
  }

  // 2. changes by hand, through the typed clients
  await clients.account.putAlternateContact({ AccountId: MEMBER_ACCOUNT, AlternateContactType: "BILLING", Name: "Ana Billing", Title: "Controller", EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0199" });
  const doomed = (await liveRoutes(clients, API_A)).find((route) => route.routeKey === "DELETE /orders/{id}")!;
  expect(await clients.gateway.deleteRoute(API_A, doomed.routeId)).toBe(true);
  await clients.gateway.createRoute(API_A, { routeKey: "GET /stray" });
  apiC = (await clients.gateway.createApi({ name: "ghost", protocolType: "HTTP" })).apiId;
  await clients.gateway.createRoute(apiC, { routeKey: "GET /ghost" });
  await clients.account.enableRegion({ RegionName: HAND_REGION });
  service.requests.reset();
}, 300_000);

afterAll(async () => {
  await service?.close();
  home?.remove();
});

describe("converge drift over an estate managed three ways", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  let report: DriftReport;

  it("reports, over every source at once, the terraform-managed route in sync, the changed contact drifted, the deleted route missing, the stray route unmanaged; exit 2", async () => {
    const result = await converge(ESTATE());
    report = parseDriftJson(result);
    console.log(JSON.stringify(report, null, 1));
    expectExit(result, 2);
    console.log(outcomeLines(report));
    expect(resourceAt(report, `Route/${API_A}/GET /inventory`).outcome).toBe("in-sync");
  });
});
