import { beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "../clients/client-fixtures.js";
import { useWorld } from "../support/world.js";
import { describeTerraform, diagnosticsOf, liveIntegrations, liveRoutes, operations, ORDERS_API, providerBlock, providerService, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS, untilQuiet } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * What goes wrong, under real terraform: a bad token, an endpoint nothing answers on and invalid
 * attributes each give one diagnostic (where it has an attribute, at its line) and write nothing;
 * terraform killed with SIGKILL in the middle of an apply leaves nothing the next apply cannot
 * converge without duplicates.
 */

const suite = terraformSuite("failures");
let work: TerraformDir;

/** A provider block whose endpoint may come from a variable, and resources of every gateway kind and a contact. */
function configuration(route: { readonly routeKey: string; readonly timeout: number }): string {
  return `${providerBlock("  endpoint = var.endpoint\n")}
variable "endpoint" {
  type    = string
  default = null
}

resource "converge_integration" "backend" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://failures.example/backend"
  integration_method     = "ANY"
  payload_format_version = "2.0"
  timeout_in_millis      = ${route.timeout}
}

resource "converge_route" "route" {
  api_id    = "${ORDERS_API}"
  route_key = "${route.routeKey}"
  target    = "integrations/\${converge_integration.backend.integration_id}"
}

resource "converge_alternate_contact" "billing" {
  alternate_contact_type = "BILLING"
  name                   = "Finance Team"
  title                  = "Controller"
  email_address          = "billing@example.com"
  phone_number           = "+1 555 0101"
}
`;
}

const VALID = { routeKey: "GET /failures", timeout: 5000 };

beforeAll(async () => {
  work = await suite.initialized("failures", configuration(VALID));
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("failures under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("rejects a token the service does not know with one diagnostic about the token, which it does not repeat, writing nothing", async () => {
    const badToken = "tok-nobody-knows-4f1e";
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.run(["apply", "-auto-approve", "-input=false", "-no-color"], { env: { CONVERGE_TOKEN: badToken } }));
    expect(apply.code, describeTerraform(apply)).toBe(1);
    const diagnostics = diagnosticsOf(apply.stdout + apply.stderr);
    expect(diagnostics.map((diagnostic) => `${diagnostic.severity}: ${diagnostic.summary}`)).toEqual(["Error: the account and API gateway services both refused the token: 403 AccessDeniedException"]);
    expect(diagnostics[0]!.text).toContain('with provider["registry.terraform.io/converge/converge"],');
    expect(diagnostics[0]!.text.replace(/\s+/g, " ")).toContain("the security token included in the request is invalid. Check the provider's token (or CONVERGE_TOKEN).");
    expect(apply.stdout + apply.stderr).not.toContain(badToken);
    expect(requests.map((request) => `${request.operation} ${request.status}`)).toEqual(["GetApis 403", "ListRegions 403"]);
  });

  it("rejects an endpoint nothing listens on with one diagnostic at the provider's endpoint attribute", async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const { result: plan, requests } = await requestsDuring(suite.service, () => work.plan(`-var=endpoint=${endpoint}`));
    expect(plan.code, describeTerraform(plan)).toBe(1);
    const diagnostics = diagnosticsOf(plan.stdout + plan.stderr);
    expect(diagnostics.map((diagnostic) => `${diagnostic.severity}: ${diagnostic.summary}`)).toEqual([`Error: cannot use the service at ${endpoint}`]);
    expect(diagnostics[0]!.text).toMatch(/on main\.tf line \d+, in provider "converge":\n\s+\d+:   endpoint = var\.endpoint/);
    expect(diagnostics[0]!.text).toContain("ECONNREFUSED");
    expect(requests).toEqual([]);
  });

  it("rejects a route key that is not valid for an HTTP API with one diagnostic at route_key, writing nothing", async () => {
    work.write(configuration({ ...VALID, routeKey: "get /x" }));
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(1);
    const diagnostics = diagnosticsOf(apply.stdout + apply.stderr);
    expect(diagnostics.map((diagnostic) => `${diagnostic.severity}: ${diagnostic.summary}`)).toEqual([
      'Error: route_key "get /x" is not valid for an HTTP API: expected "$default" or "METHOD /path" (e.g. "GET /orders") with METHOD one of ANY, GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
    ]);
    expect(diagnostics[0]!.text).toContain("with converge_route.route,");
    expect(diagnostics[0]!.text).toMatch(/on main\.tf line \d+, in resource "converge_route" "route":\n\s+\d+:   route_key = "get \/x"/);
    expect(operations(requests, { writesOnly: true })).toEqual([]);
  });

  it("rejects a timeout out of the HTTP API's range with one diagnostic at timeout_in_millis, writing nothing", async () => {
    work.write(configuration({ ...VALID, timeout: 5 }));
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(1);
    const diagnostics = diagnosticsOf(apply.stdout + apply.stderr);
    expect(diagnostics.map((diagnostic) => `${diagnostic.severity}: ${diagnostic.summary}`)).toEqual(["Error: timeout_in_millis 5 is out of range for an HTTP API: expected 50 to 30000 (default 30000)"]);
    expect(diagnostics[0]!.text).toContain("with converge_integration.backend,");
    expect(diagnostics[0]!.text).toMatch(/on main\.tf line \d+, in resource "converge_integration" "backend":\n\s+\d+:   timeout_in_millis      = 5/);
    expect(operations(requests, { writesOnly: true })).toEqual([]);
  });
});

describe("terraform killed with SIGKILL in the middle of an apply", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  const PAIRS = 4;
  // every request takes 300 ms, so that the apply is still running when it is killed
  const { service: slow, clients } = useWorld(providerService({ faults: { latencyMs: 300 } }));

  /** PAIRS integrations of distinct backends, each with a route targeting it. */
  function pairs(): string {
    return Array.from({ length: PAIRS }, (_, index) => `
resource "converge_integration" "backend_${index}" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://interrupted.example/${index}"
  integration_method     = "ANY"
  payload_format_version = "2.0"
}

resource "converge_route" "route_${index}" {
  api_id    = "${ORDERS_API}"
  route_key = "GET /interrupted/${index}"
  target    = "integrations/\${converge_integration.backend_${index}.integration_id}"
}
`).join("");
  }

  const declared = async () => ({
    integrations: (await liveIntegrations(clients, ORDERS_API)).filter((integration) => integration.integrationUri?.startsWith("https://interrupted.example/")),
    routes: (await liveRoutes(clients, ORDERS_API)).filter((route) => route.routeKey.startsWith("GET /interrupted/")),
  });

  it("converges with no duplicates when applied again, adopting what the killed apply created", async () => {
    const interrupted = TerraformDir.for(suite.home, "interrupted", slow);
    interrupted.write(providerBlock() + pairs());
    expect((await interrupted.init()).code).toBe(0);

    const { child, exited } = interrupted.start(["apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=2"]);
    let done = false;
    void exited.then(() => (done = true));
    while (slow.requests.count({ operation: "CreateIntegration" }) === 0) {
      if (done) throw new Error("the apply ended before it created anything: it was not killed in the middle");
      await new Promise((resolveWait) => setTimeout(resolveWait, 10));
    }
    process.kill(-child.pid!, "SIGKILL");
    expect(await exited).toBeNull();
    // a request the killed provider had sent lands 300 ms later: wait until the service is quiet
    await untilQuiet(slow, 1000);

    const half = await declared();
    expect(half.integrations.length).toBeGreaterThanOrEqual(1);
    expect(half.integrations.length + half.routes.length).toBeLessThan(2 * PAIRS);
    const held = Object.values(interrupted.state());
    const liveIds = [...half.integrations.map((integration) => integration.integrationId), ...half.routes.map((route) => route.routeId)];
    const notHeld = liveIds.filter((id) => !held.some((attributes) => attributes.integration_id === id || attributes.route_id === id));

    const apply = await interrupted.apply();
    expect(apply.code, describeTerraform(apply)).toBe(0);
    // terraform shows one of several similar warnings ("and N more similar warnings elsewhere")
    const adoption = diagnosticsOf(apply.stdout + apply.stderr).filter((diagnostic) => diagnostic.summary.endsWith("adopts a live resource instead of creating one"));
    expect(adoption.length > 0).toBe(notHeld.length > 0);
    // what the killed apply made is what terraform now holds: adopted, not made again beside it
    const stateIds = Object.values(interrupted.state()).flatMap((attributes) => [attributes.integration_id, attributes.route_id]);
    expect(stateIds).toEqual(expect.arrayContaining(liveIds));

    const after = await declared();
    expect(after.integrations.map((integration) => integration.integrationUri).sort()).toEqual(Array.from({ length: PAIRS }, (_, index) => `https://interrupted.example/${index}`));
    expect(after.routes.map((route) => route.routeKey).sort()).toEqual(Array.from({ length: PAIRS }, (_, index) => `GET /interrupted/${index}`));
    for (const route of after.routes) {
      const index = route.routeKey.slice("GET /interrupted/".length);
      const integration = after.integrations.find((candidate) => candidate.integrationUri === `https://interrupted.example/${index}`)!;
      expect(route.target).toBe(`integrations/${integration.integrationId}`);
    }
    const plan = await interrupted.plan();
    expect(plan.code, describeTerraform(plan)).toBe(0);
  });
});
