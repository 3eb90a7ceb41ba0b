import { beforeAll, describe, expect, it } from "vitest";
import { CHAT_API, describeTerraform, diagnosticsOf, liveIntegrations, liveRoutes, operations, ORDERS_API, planLine, providerBlock, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * Changes under real terraform, each checked on the live service over HTTP and in its request
 * log: values only known after apply, an in-place update, replacements, drift made through the
 * service's API, and resources deleted behind terraform's back.
 */

const suite = terraformSuite("changes");
let work: TerraformDir;

interface Shape {
  readonly description: string;
  readonly scopes: ReadonlyArray<string>;
  /** The API of the `moving` route. */
  readonly movingApi: string;
  readonly contactType: "BILLING" | "OPERATIONS";
}

const FIRST: Shape = { description: "first", scopes: ["orders.read"], movingApi: ORDERS_API, contactType: "BILLING" };

/** An integration and a route targeting it (of the orders API), a route that may move to the chat API, and a contact. */
function configuration(shape: Shape): string {
  return `${providerBlock()}
resource "converge_integration" "backend" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://changes.example/backend"
  integration_method     = "ANY"
  payload_format_version = "2.0"
  description            = "${shape.description}"
}

resource "converge_route" "orders" {
  api_id               = "${ORDERS_API}"
  route_key            = "GET /changes"
  target               = "integrations/\${converge_integration.backend.integration_id}"
  authorization_type   = "JWT"
  authorizer_id        = "jwtauth1"
  authorization_scopes = ${JSON.stringify(shape.scopes)}
}

resource "converge_route" "moving" {
  api_id    = "${shape.movingApi}"
  route_key = "GET /moving"
}

resource "converge_alternate_contact" "finance" {
  account_id             = "222222222222"
  alternate_contact_type = "${shape.contactType}"
  name                   = "Finance Team"
  title                  = "Controller"
  email_address          = "finance@example.com"
  phone_number           = "+1 555 0101"
}
`;
}

beforeAll(async () => {
  work = await suite.initialized("changes", configuration(FIRST));
}, TERRAFORM_TEST_TIMEOUT_MS);

const routeOf = async (apiId: string, routeId: unknown) => (await liveRoutes(suite.clients, apiId)).find((route) => route.routeId === routeId);
const integrationOf = async (integrationId: unknown) => (await liveIntegrations(suite.clients, ORDERS_API)).find((integration) => integration.integrationId === integrationId);
const contactOf = (type: "BILLING" | "OPERATIONS") => suite.clients.account.getAlternateContact({ AccountId: "222222222222", AlternateContactType: type });

describe("changes under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("plans a route whose target names an integration of the same apply as known after apply, and applies the saved plan", async () => {
    const plan = await work.run(["plan", "-input=false", "-no-color", "-out=tfplan"]);
    expect(plan.code, describeTerraform(plan)).toBe(0);
    expect(planLine(plan)).toBe("Plan: 4 to add, 0 to change, 0 to destroy.");
    const routeBlock = /# converge_route\.orders will be created\n[\s\S]*?\n {4}\}\n/.exec(plan.stdout)?.[0];
    expect(routeBlock).toContain("+ target               = (known after apply)");
    expect(routeBlock).toContain('+ route_key            = "GET /changes"');

    const apply = await work.run(["apply", "-input=false", "-no-color", "tfplan"]);
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 4 added, 0 changed, 0 destroyed.");
    const state = work.state();
    const integrationId = state["converge_integration.backend"]!.integration_id;
    expect(state["converge_route.orders"]!.target).toBe(`integrations/${integrationId}`);
    expect(await routeOf(ORDERS_API, state["converge_route.orders"]!.route_id)).toMatchObject({ routeKey: "GET /changes", target: `integrations/${integrationId}` });
    expect(await integrationOf(integrationId)).toMatchObject({ integrationUri: "https://changes.example/backend", description: "first" });
    expect(await contactOf("BILLING")).toMatchObject({ Name: "Finance Team", PhoneNumber: "+1 555 0101" });
  });

  it("updates a route and an integration in place: the same IDs live, one UpdateRoute and one UpdateIntegration, nothing created or deleted", async () => {
    const prior = work.state();
    work.write(configuration({ ...FIRST, description: "second", scopes: ["orders.read", "orders.admin"] }));
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("# converge_integration.backend will be updated in-place");
    expect(apply.stdout).toContain("# converge_route.orders will be updated in-place");
    expect(apply.stdout).toContain("Apply complete! Resources: 0 added, 2 changed, 0 destroyed.");
    expect(operations(requests, { writesOnly: true })).toEqual(["UpdateIntegration", "UpdateRoute"]);
    expect(requests.find((request) => request.operation === "UpdateRoute")?.body).toEqual({ authorizationScopes: ["orders.admin", "orders.read"] });
    expect(requests.find((request) => request.operation === "UpdateIntegration")?.body).toEqual({ description: "second" });

    const state = work.state();
    expect(state["converge_route.orders"]!.route_id).toBe(prior["converge_route.orders"]!.route_id);
    expect(state["converge_integration.backend"]!.integration_id).toBe(prior["converge_integration.backend"]!.integration_id);
    expect((await routeOf(ORDERS_API, state["converge_route.orders"]!.route_id))?.authorizationScopes?.slice().sort()).toEqual(["orders.admin", "orders.read"]);
    expect(await integrationOf(state["converge_integration.backend"]!.integration_id)).toMatchObject({ description: "second" });
  });

  it("replaces a contact whose type changes and a route that moves to the WebSocket API", async () => {
    const prior = work.state();
    const second = { ...FIRST, description: "second", scopes: ["orders.read", "orders.admin"] };
    work.write(configuration({ ...second, movingApi: CHAT_API, contactType: "OPERATIONS" }));
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("# converge_route.moving must be replaced");
    expect(apply.stdout).toContain("# converge_alternate_contact.finance must be replaced");
    expect(apply.stdout).toMatch(/~ api_id +?= "a1b2c3d4e5" -> "w5s0ck3t01" # forces replacement/);
    expect(apply.stdout).toMatch(/~ alternate_contact_type = "BILLING" -> "OPERATIONS" # forces replacement/);
    expect(apply.stdout).toContain("Apply complete! Resources: 2 added, 0 changed, 2 destroyed.");
    expect(operations(requests, { writesOnly: true })).toEqual(["CreateRoute", "DeleteAlternateContact", "DeleteRoute", "PutAlternateContact"]);

    const moved = work.state()["converge_route.moving"]!;
    expect(moved).toMatchObject({ api_id: CHAT_API, id: `${CHAT_API}/${String(moved.route_id)}` });
    expect(moved.route_id).not.toBe(prior["converge_route.moving"]!.route_id);
    expect(await routeOf(CHAT_API, moved.route_id)).toMatchObject({ routeKey: "GET /moving" });
    expect((await liveRoutes(suite.clients, ORDERS_API)).filter((route) => route.routeKey === "GET /moving")).toEqual([]);
    expect(await contactOf("BILLING")).toBeUndefined();
    expect(await contactOf("OPERATIONS")).toMatchObject({ Name: "Finance Team", EmailAddress: "finance@example.com" });
  });

  it("shows drift made through the service's API with plan -refresh-only, and apply repairs it", async () => {
    const state = work.state();
    const routeId = String(state["converge_route.orders"]!.route_id);
    const integrationId = String(state["converge_integration.backend"]!.integration_id);
    await suite.clients.gateway.updateRoute(ORDERS_API, routeId, { authorizationScopes: ["orders.everything"] });
    await suite.clients.gateway.updateIntegration(ORDERS_API, integrationId, { description: "changed by hand" });
    await suite.clients.account.putAlternateContact({ AccountId: "222222222222", AlternateContactType: "OPERATIONS", Name: "Finance Team", Title: "Controller", EmailAddress: "finance@example.com", PhoneNumber: "+1 555 9999" });

    const { result: refresh, requests: refreshRequests } = await requestsDuring(suite.service, () => work.plan("-refresh-only"));
    expect(refresh.code, describeTerraform(refresh)).toBe(2);
    expect(refresh.stdout).toContain("Terraform detected the following changes made outside of Terraform");
    expect(refresh.stdout).toContain('~ description            = "second" -> "changed by hand"');
    expect(refresh.stdout).toMatch(/~ authorization_scopes = \[\n\s+- "orders\.admin",\n\s+- "orders\.read",\n\s+\+ "orders\.everything",\n\s+\]/);
    expect(refresh.stdout).toContain('~ phone_number           = "+1 555 0101" -> "+1 555 9999"');
    expect(operations(refreshRequests, { writesOnly: true })).toEqual([]);

    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 0 added, 3 changed, 0 destroyed.");
    expect(operations(requests, { writesOnly: true })).toEqual(["PutAlternateContact", "UpdateIntegration", "UpdateRoute"]);
    expect((await routeOf(ORDERS_API, routeId))?.authorizationScopes?.slice().sort()).toEqual(["orders.admin", "orders.read"]);
    expect(await integrationOf(integrationId)).toMatchObject({ description: "second" });
    expect(await contactOf("OPERATIONS")).toMatchObject({ PhoneNumber: "+1 555 0101" });

    const plan = await work.plan();
    expect(plan.code, describeTerraform(plan)).toBe(0);
  });

  it("creates again what was deleted outside terraform, with nothing twice", async () => {
    const prior = work.state();
    const routeId = String(prior["converge_route.orders"]!.route_id);
    const integrationId = String(prior["converge_integration.backend"]!.integration_id);
    expect(await suite.clients.gateway.deleteRoute(ORDERS_API, routeId)).toBe(true);
    expect(await suite.clients.gateway.deleteIntegration(ORDERS_API, integrationId)).toBe(true);
    expect(await suite.clients.account.deleteAlternateContact({ AccountId: "222222222222", AlternateContactType: "OPERATIONS" })).toBe(true);

    const plan = await work.plan();
    expect(plan.code, describeTerraform(plan)).toBe(2);
    expect(planLine(plan)).toBe("Plan: 3 to add, 0 to change, 0 to destroy.");
    expect(plan.stdout).toContain("# converge_integration.backend has been deleted");
    for (const address of ["converge_integration.backend", "converge_route.orders", "converge_alternate_contact.finance"]) expect(plan.stdout).toContain(`# ${address} will be created`);

    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(diagnosticsOf(apply.stdout + apply.stderr)).toEqual([]);
    expect(apply.stdout).toContain("Apply complete! Resources: 3 added, 0 changed, 0 destroyed.");
    expect(operations(requests, { writesOnly: true })).toEqual(["CreateIntegration", "CreateRoute", "PutAlternateContact"]);
    const state = work.state();
    const newIntegrationId = state["converge_integration.backend"]!.integration_id;
    expect(newIntegrationId).not.toBe(integrationId);
    const routes = (await liveRoutes(suite.clients, ORDERS_API)).filter((route) => route.routeKey === "GET /changes");
    expect(routes).toEqual([expect.objectContaining({ routeId: state["converge_route.orders"]!.route_id, target: `integrations/${String(newIntegrationId)}` })]);
    expect((await liveIntegrations(suite.clients, ORDERS_API)).filter((integration) => integration.integrationUri === "https://changes.example/backend")).toHaveLength(1);
    expect(await contactOf("OPERATIONS")).toMatchObject({ PhoneNumber: "+1 555 0101" });

    const clean = await work.plan();
    expect(clean.code, describeTerraform(clean)).toBe(0);
  });

  it("updates a Region opt-in in place: enabled = false disables the Region, and opt_status follows", async () => {
    const region = TerraformDir.for(suite.home, "region", suite.service);
    const optIn = (enabled: boolean) => `${providerBlock()}
resource "converge_region_opt_in" "africa" {
  account_id  = "222222222222"
  region_name = "af-south-1"
  enabled     = ${enabled}
}
`;
    region.write(optIn(true));
    expect((await region.init()).code).toBe(0);
    const enable = await region.apply();
    expect(enable.code, describeTerraform(enable)).toBe(0);
    expect(region.attributes("converge_region_opt_in.africa")).toMatchObject({ id: "222222222222/af-south-1", enabled: true, opt_status: "ENABLED" });

    region.write(optIn(false));
    const { result: disable, requests } = await requestsDuring(suite.service, () => region.apply());
    expect(disable.code, describeTerraform(disable)).toBe(0);
    expect(disable.stdout).toContain("~ enabled     = true -> false");
    expect(disable.stdout).toContain('~ opt_status  = "ENABLED" -> (known after apply)');
    expect(disable.stdout).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    expect(operations(requests, { writesOnly: true })).toEqual(["DisableRegion"]);
    expect(region.attributes("converge_region_opt_in.africa")).toMatchObject({ enabled: false, opt_status: "DISABLED" });
    expect((await suite.clients.account.getRegionOptStatus({ AccountId: "222222222222", RegionName: "af-south-1" })).RegionOptStatus).toBe("DISABLED");
    const plan = await region.plan();
    expect(plan.code, describeTerraform(plan)).toBe(0);
  });

  it("keeps integrations of one natural key apart, each its own live integration (made one after the other, or added later), and adopts only a live one as declared", async () => {
    const sameKey = TerraformDir.for(suite.home, "same-key", suite.service);
    const integration = (name: string) => `
resource "converge_integration" "${name}" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://same-key.example/backend"
  integration_method     = "GET"
  payload_format_version = "2.0"
  description            = "${name}"
}
`;
    const live = async () => (await liveIntegrations(suite.clients, ORDERS_API))
      .filter((candidate) => candidate.integrationUri === "https://same-key.example/backend")
      .map((candidate) => `${candidate.integrationId} ${candidate.description}`).sort();
    const held = () => Object.entries(sameKey.state()).map(([address, attributes]) => `${String(attributes.integration_id)} ${address.slice("converge_integration.".length)}`).sort();

    sameKey.write(providerBlock() + integration("first") + integration("second"));
    expect((await sameKey.init()).code).toBe(0);
    // one at a time: the second is created after the first exists, with the same natural key
    const apply = await sameKey.apply("-parallelism=1");
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(diagnosticsOf(apply.stdout + apply.stderr)).toEqual([]);
    expect(await live()).toHaveLength(2);
    expect(await live()).toEqual(held());

    sameKey.write(providerBlock() + integration("first") + integration("second") + integration("third"));
    const added = await sameKey.apply("-parallelism=1");
    expect(added.code, describeTerraform(added)).toBe(0);
    expect(added.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    expect(await live()).toHaveLength(3);
    expect(await live()).toEqual(held());

    // made outside terraform: one as the next declaration has it (adopted), one that differs from it (left alone)
    const body = { integrationType: "HTTP_PROXY", integrationUri: "https://same-key.example/backend", integrationMethod: "GET", payloadFormatVersion: "2.0" } as const;
    const asDeclared = await suite.clients.gateway.createIntegration(ORDERS_API, { ...body, description: "fourth" });
    const differing = await suite.clients.gateway.createIntegration(ORDERS_API, { ...body, description: "made by hand" });
    sameKey.write(providerBlock() + integration("first") + integration("second") + integration("third") + integration("fourth"));
    const adopted = await sameKey.apply();
    expect(adopted.code, describeTerraform(adopted)).toBe(0);
    expect(diagnosticsOf(adopted.stdout).map((diagnostic) => diagnostic.summary)).toEqual(["converge_integration: adopts a live resource instead of creating one"]);
    expect(sameKey.attributes("converge_integration.fourth").integration_id).toBe(asDeclared.integrationId);
    expect(await live()).toEqual([...held(), `${differing.integrationId} made by hand`].sort());
    const plan = await sameKey.plan();
    expect(plan.code, describeTerraform(plan)).toBe(0);

    // a fifth is a twin of the one made by hand, which nothing here holds (another manager may): the plan says so, naming its import
    sameKey.write(providerBlock() + integration("first") + integration("second") + integration("third") + integration("fourth") + integration("fifth"));
    const twin = await sameKey.plan();
    const warnings = diagnosticsOf(twin.stdout).filter((diagnostic) => diagnostic.summary === "converge_integration: creates a twin of a live resource nothing here holds");
    expect(warnings, describeTerraform(twin)).toHaveLength(1);
    expect(warnings[0]!.text.replace(/\s+/g, " ")).toContain(`import { to = converge_integration.NAME, id = "${ORDERS_API}/${differing.integrationId}" }`);
  });
});
