import { copyFileSync, existsSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CHAT_API, describeTerraform, diagnosticsOf, EXAMPLE_DIR, liveIntegrations, liveRoutes, MEMBER_ACCOUNT, operations, ORDERS_API, planLine, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS, TOKEN, zipEntries } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * The life of examples/terraform-hcl under real terraform: the provider installed by the CLI and
 * found with no network, the example applied from empty to a clean plan, the token kept out of
 * every file and log terraform writes, and a destroy that removes exactly what the example made.
 */

const suite = terraformSuite("lifecycle");
let example: TerraformDir;
/** The demo world's routes and integrations (IDs) before terraform touched it. */
let before: { readonly routes: string[]; readonly integrations: string[] };

const ids = async () => ({
  routes: [...(await liveRoutes(suite.clients, ORDERS_API)), ...(await liveRoutes(suite.clients, CHAT_API))].map((route) => route.routeId).sort(),
  integrations: [...(await liveIntegrations(suite.clients, ORDERS_API)), ...(await liveIntegrations(suite.clients, CHAT_API))].map((integration) => integration.integrationId).sort(),
});

beforeAll(async () => {
  example = suite.dir("example");
  copyFileSync(join(EXAMPLE_DIR, "main.tf"), example.path("main.tf"));
  before = await ids();
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("examples/terraform-hcl under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("installs with `converge provider install` into HOME's implied mirror, where terraform init finds it with an empty CLI configuration and no network", async () => {
    expect(suite.home.install.code, suite.home.install.stderr).toBe(0);
    expect(suite.home.install.stdout).toContain(suite.home.executable);
    expect(statSync(suite.home.executable).mode & 0o111).toBe(0o111);
    if (suite.home.packaged) expect(readFileSync(suite.home.executable).subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    else expect(readFileSync(suite.home.executable, "utf8")).toMatch(/^#!\/bin\/sh\n(?:#.*\n)?exec '.+node' '.+\/dist\/src\/provider\/main\.js' "\$@"\n$/);

    // every request to a registry would go through a proxy that refuses connections
    const offline = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9" };
    const init = await example.init(offline);
    expect(init.code, describeTerraform(init)).toBe(0);
    expect(init.stdout).toContain("- Installed converge/converge v0.1.0 (unauthenticated)");
    expect(readFileSync(example.path(".terraform.lock.hcl"), "utf8")).toMatch(/provider "registry\.terraform\.io\/converge\/converge" \{\n\s+version\s+= "0\.1\.0"/);
    const linked = example.path(".terraform/providers/registry.terraform.io/converge/converge/0.1.0/linux_amd64");
    expect(realpathSync(linked)).toBe(realpathSync(join(suite.home.executable, "..")));
    expect(readlinkSync(linked)).toContain(suite.home.home);

    // the same environment does keep terraform off the network: a provider that is not in the mirror cannot be installed
    const control = new TerraformDir(suite.home, "offline-control", {});
    control.write('terraform {\n  required_providers {\n    other = { source = "converge/other" }\n  }\n}\n');
    const refused = await control.init(offline);
    expect(refused.code, describeTerraform(refused)).toBe(1);
    expect(refused.stderr).toContain("Failed to query available provider packages");
    expect(existsSync(control.path(".terraform.lock.hcl"))).toBe(false);
  });

  it("has the example formatted as terraform fmt writes it, and valid", async () => {
    const fmt = await example.run(["fmt", "-check", "-diff", "-no-color"]);
    expect(fmt.code, describeTerraform(fmt)).toBe(0);
    const validate = await example.run(["validate", "-no-color"]);
    expect(validate.code, describeTerraform(validate)).toBe(0);
    expect(validate.stdout).toContain("Success! The configuration is valid.");
  });

  it("applies the example from empty, then plans no change", async () => {
    const { result: apply, requests } = await requestsDuring(suite.service, () => example.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 13 added, 0 changed, 0 destroyed.");
    expect(diagnosticsOf(apply.stderr)).toEqual([]);
    expect(operations(requests, { writesOnly: true })).toEqual([
      "CreateIntegration", "CreateIntegration", "CreateIntegration", "CreateIntegration",
      "CreateRoute", "CreateRoute", "CreateRoute", "CreateRoute", "CreateRoute", "CreateRoute",
      "EnableRegion", "PutAlternateContact", "PutAlternateContact",
    ]);

    const state = example.state();
    const orders = await liveRoutes(suite.clients, ORDERS_API);
    const byKey = (key: string) => orders.find((route) => route.routeKey === key);
    expect(byKey("GET /orders")).toMatchObject({
      routeId: state["converge_route.get_orders"]!.route_id,
      target: `integrations/${state["converge_integration.orders_backend"]!.integration_id}`,
      authorizationType: "JWT",
      authorizerId: "jwtauth1",
      authorizationScopes: ["orders.read"],
    });
    expect(byKey("POST /orders")).toMatchObject({ operationName: "CreateOrder", authorizationScopes: ["orders.write"] });
    expect(byKey("GET /inventory/{sku}")).toMatchObject({ target: `integrations/${state["converge_integration.inventory_backend"]!.integration_id}`, authorizationType: "CLOUD_IAM" });
    const ordersBackend = (await liveIntegrations(suite.clients, ORDERS_API)).find((integration) => integration.integrationId === state["converge_integration.orders_backend"]!.integration_id);
    expect(ordersBackend).toMatchObject({
      integrationUri: "https://orders.internal.example/v2",
      timeoutInMillis: 10000,
      requestParameters: { "overwrite:header.x-tenant": "$context.authorizer.claims.tenant" },
    });
    const chat = await liveRoutes(suite.clients, CHAT_API);
    expect(chat.map((route) => route.routeKey).sort()).toEqual(["$connect", "$disconnect", "sendMessage"]);
    expect(chat.find((route) => route.routeKey === "$connect")).toMatchObject({ apiKeyRequired: true, requestParameters: { "route.request.querystring.token": { required: true } } });
    const mock = (await liveIntegrations(suite.clients, CHAT_API)).find((integration) => integration.integrationType === "MOCK");
    expect(mock).toMatchObject({ requestTemplates: { "application/json": '{"statusCode":200}' }, passthroughBehavior: "WHEN_NO_MATCH" });
    expect(await suite.clients.account.getAlternateContact({ AlternateContactType: "SECURITY" })).toMatchObject({ EmailAddress: "security@example.com", PhoneNumber: "+1 555 0100" });
    expect(await suite.clients.account.getAlternateContact({ AccountId: MEMBER_ACCOUNT, AlternateContactType: "OPERATIONS" })).toMatchObject({ Name: "Payments On-Call" });
    expect((await suite.clients.account.getRegionOptStatus({ AccountId: MEMBER_ACCOUNT, RegionName: "ap-east-1" })).RegionOptStatus).toBe("ENABLED");

    const { result: plan, requests: planRequests } = await requestsDuring(suite.service, () => example.plan());
    expect(plan.code, describeTerraform(plan)).toBe(0);
    expect(planLine(plan)).toBe("No changes.");
    expect(operations(planRequests, { writesOnly: true })).toEqual([]);
  });

  it("keeps the token out of the state, the plan's output, the saved plan file and terraform's trace log", async () => {
    const planLog = example.path("plan-trace.log");
    const applyLog = example.path("apply-trace.log");
    // a change, so that the saved plan carries values
    const plan = await example.run(["plan", "-input=false", "-no-color", "-out=tfplan", "-var=security_email=secops@example.com"], { env: { TF_LOG: "trace", TF_LOG_PATH: planLog } });
    expect(plan.code, describeTerraform(plan)).toBe(0);
    expect(plan.stdout).toContain('~ email_address          = "security@example.com" -> "secops@example.com"');
    const show = await example.run(["show", "-json", "tfplan"]);
    expect(show.code, describeTerraform(show)).toBe(0);
    expect(show.stdout).toContain('"email_address":"secops@example.com"');
    const apply = await example.run(["apply", "-input=false", "-no-color", "tfplan"], { env: { TF_LOG: "trace", TF_LOG_PATH: applyLog } });
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");

    const planFile = readFileSync(example.path("tfplan"));
    const entries = zipEntries(planFile);
    // the search reaches the plan's values: the new email is in its entries
    expect(entries.some((entry) => entry.data.includes("secops@example.com"))).toBe(true);
    const searched: Record<string, Buffer> = {
      "terraform.tfstate": readFileSync(example.path("terraform.tfstate")),
      "terraform.tfstate.backup": readFileSync(example.path("terraform.tfstate.backup")),
      "plan output": Buffer.from(plan.stdout + plan.stderr),
      "terraform show -json tfplan": Buffer.from(show.stdout),
      "apply output": Buffer.from(apply.stdout + apply.stderr),
      "tfplan (bytes)": planFile,
      ...Object.fromEntries(entries.map((entry) => [`tfplan: ${entry.name}`, entry.data])),
      "plan trace log": readFileSync(planLog),
      "apply trace log": readFileSync(applyLog),
    };
    const holding = Object.entries(searched).filter(([, bytes]) => bytes.includes(TOKEN)).map(([name]) => name);
    expect(holding).toEqual([]);
    // the logs hold the provider's own lines, and they are where a leak would be
    for (const log of [planLog, applyLog]) expect(readFileSync(log, "utf8")).toMatch(/provider\.terraform-provider-converge_v0\.1\.0: .*configured/);
  });

  it("destroys what the example made and nothing else: the API's managed route and integration and a route made outside terraform stay", async () => {
    const extra = await suite.clients.gateway.createRoute(ORDERS_API, { routeKey: "GET /made-by-hand" });
    const { result: destroy, requests } = await requestsDuring(suite.service, () => example.destroy());
    expect(destroy.code, describeTerraform(destroy)).toBe(0);
    expect(destroy.stdout).toContain("Destroy complete! Resources: 13 destroyed.");
    expect(diagnosticsOf(destroy.stdout + destroy.stderr).map((diagnostic) => `${diagnostic.severity}: ${diagnostic.summary}`)).toEqual([
      "Warning: converge_region_opt_in: destroying leaves the live resource as it is",
    ]);
    expect(operations(requests, { writesOnly: true })).toEqual([
      "DeleteAlternateContact", "DeleteAlternateContact",
      "DeleteIntegration", "DeleteIntegration", "DeleteIntegration", "DeleteIntegration",
      "DeleteRoute", "DeleteRoute", "DeleteRoute", "DeleteRoute", "DeleteRoute", "DeleteRoute",
    ]);

    expect(await ids()).toEqual({ routes: [...before.routes, extra.routeId].sort(), integrations: before.integrations });
    expect(await suite.clients.account.getAlternateContact({ AlternateContactType: "SECURITY" })).toBeUndefined();
    expect(await suite.clients.account.getAlternateContact({ AccountId: MEMBER_ACCOUNT, AlternateContactType: "OPERATIONS" })).toBeUndefined();
    expect((await suite.clients.account.getRegionOptStatus({ AccountId: MEMBER_ACCOUNT, RegionName: "ap-east-1" })).RegionOptStatus).toBe("ENABLED");
    expect(example.state()).toEqual({});
  });
});

