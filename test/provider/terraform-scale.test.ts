import { beforeAll, describe, expect, it } from "vitest";
import { describeTerraform, diagnosticsOf, liveIntegrations, liveRoutes, ORDERS_API, providerBlock, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * Many resources of one API under real terraform against a throttled service: an apply of 40
 * resources at parallelism 20 converges through the service's 429s, and a plan that changes
 * nothing reads the API once, as one listing, however many resources it holds.
 */

/** Integrations, each with a route targeting it: 2 × PAIRS resources in the orders API. */
const PAIRS = 20;

// 20 requests a second per operation, 10 at once: an apply of 20 creates at a time is throttled
const suite = terraformSuite("scale", { world: { throttle: { ratePerSecond: 20, burst: 10 } } });
let work: TerraformDir;

beforeAll(async () => {
  work = await suite.initialized("scale", `${providerBlock()}
resource "converge_integration" "backend" {
  count                  = ${PAIRS}
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://scale.example/\${count.index}"
  integration_method     = "ANY"
  payload_format_version = "2.0"
}

resource "converge_route" "route" {
  count     = ${PAIRS}
  api_id    = "${ORDERS_API}"
  route_key = "GET /scale/\${count.index}"
  target    = "integrations/\${converge_integration.backend[count.index].integration_id}"
}
`);
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("many resources under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("applies 40 resources at parallelism 20 against a throttled service without an error, retrying what it answers 429", async () => {
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply("-parallelism=20"));
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(diagnosticsOf(apply.stdout + apply.stderr)).toEqual([]);
    expect(apply.stdout).toContain(`Apply complete! Resources: ${2 * PAIRS} added, 0 changed, 0 destroyed.`);
    // the throttle did act: some creates were refused and sent again
    expect(requests.filter((request) => request.status === 429).length).toBeGreaterThan(0);
    expect(requests.filter((request) => request.operation === "CreateIntegration" && request.status === 201)).toHaveLength(PAIRS);
    expect(requests.filter((request) => request.operation === "CreateRoute" && request.status === 201)).toHaveLength(PAIRS);

    const integrations = (await liveIntegrations(suite.clients, ORDERS_API)).filter((integration) => integration.integrationUri?.startsWith("https://scale.example/"));
    const routes = (await liveRoutes(suite.clients, ORDERS_API)).filter((route) => route.routeKey.startsWith("GET /scale/"));
    expect(integrations.map((integration) => integration.integrationUri).sort()).toEqual(Array.from({ length: PAIRS }, (_, index) => `https://scale.example/${index}`).sort());
    expect(routes).toHaveLength(PAIRS);
    for (const route of routes) {
      const index = route.routeKey.slice("GET /scale/".length);
      expect(route.target).toBe(`integrations/${integrations.find((integration) => integration.integrationUri === `https://scale.example/${index}`)!.integrationId}`);
    }
  });

  it("plans no change of the 40 with one GetApis, one GetRoutes and one GetIntegrations page, not a request per resource", async () => {
    const { result: plan, requests } = await requestsDuring(suite.service, () => work.plan("-parallelism=20"));
    expect(plan.code, describeTerraform(plan)).toBe(0);
    expect(plan.stdout.match(/: Refreshing state\.\.\. /g)).toHaveLength(2 * PAIRS);
    expect(requests.map((request) => `${request.operation} ${request.path} ${request.status}`).sort()).toEqual([
      "GetApis /v2/apis 200",
      `GetIntegrations /v2/apis/${ORDERS_API}/integrations 200`,
      `GetRoutes /v2/apis/${ORDERS_API}/routes 200`,
    ]);
  });
});
