import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { TerraformStack } from "cdktf";
import { Api, Route } from "../../constructs/index.js";
import { createRouteOverHttp, liveContact, liveIntegrations, liveRegionStatus, liveRoute, liveRoutes, writeCounts, writeRequests } from "../e2e/e2e-fixture.js";
import { ORDERS_API, buildShop, type ShopOptions } from "./shop-stack.js";
import { synthStack, type LibraryName, type SynthOutput } from "./synth-fixture.js";
import { cdktfSuite } from "./terraform-suite.js";
import { NO_NETWORK, SECRET_TOKEN, expectTokenNowhere, Terraform, describeTerraform, planLine, type TerraformResult } from "./terraform-fixture.js";

/**
 * Issue "cdktf and cdktn", end to end: the stack of every construct with the provider vehicle,
 * synthesized in-process with cdktf and with cdktn, then real terraform with converge's provider as
 * `converge provider install` puts it in terraform's implied local mirror of a temporary HOME (an
 * empty CLI configuration, proxies that refuse every connection), against the embedded service. The
 * same life as terraform-lifecycle.test.ts gives the CLI vehicles; the steps share one stack and run
 * in order.
 */

const URI = "https://shop.internal.example/orders";
const NEW_URI = "https://shop-v2.internal.example/orders";

describe.each<LibraryName>(["cdktf", "cdktn"])("terraform apply of a synthesized stack (provider vehicle, %s)", { timeout: 120_000 }, (library) => {
  const suite = cdktfSuite(`${library}-provider`, { install: true });
  let outdir: string;
  let terraform: Terraform;
  const synthesized: SynthOutput[] = [];

  const synth = (options: ShopOptions = {}, more: (stack: TerraformStack) => void = () => undefined): SynthOutput => {
    const output = synthStack((stack) => {
      buildShop(stack, options);
      more(stack);
    }, { vehicle: "provider", endpoint: suite.service.url }, { outdir, library });
    synthesized.push(output);
    return output;
  };

  const run = async (args: ReadonlyArray<string>, expectedCode = 0): Promise<TerraformResult> => {
    suite.service.requests.reset();
    const result = await terraform.run(args);
    expect(result.code, describeTerraform(result)).toBe(expectedCode);
    return result;
  };
  const apply = () => run(["apply", "-auto-approve", "-input=false", "-no-color"]);
  const plan = (expectedCode: 0 | 1 | 2) => run(["plan", "-detailed-exitcode", "-input=false", "-no-color"], expectedCode);
  const integrationAt = async (uri: string) => (await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === uri);

  beforeAll(async () => {
    outdir = join(suite.home, "cdktf.out");
    const first = synth();
    terraform = new Terraform(first.stackDir, suite.home, { CONVERGE_TOKEN: SECRET_TOKEN, ...NO_NETWORK });
    const init = await terraform.init();
    expect(init.code, describeTerraform(init)).toBe(0);
  }, 90_000);

  it("initializes from the provider `converge provider install` put in the implied local mirror, with no network", () => {
    expect(suite.installed).toContain(join(suite.home, ".terraform.d", "plugins"));
    const init = terraform.results[0]!;
    expect(init.stdout).toContain("Terraform has been successfully initialized");
    expect(init.stdout).toMatch(/- Installed converge\/converge v\d+\.\d+\.\d+ \(unauthenticated\)/);
    expect(init.stdout).not.toMatch(/hashicorp\//);
  });

  it("deploys from empty: one resource per construct, each created by its own request, the route after the integration it targets", async () => {
    const result = await apply();
    expect(planLine(result)).toBe("Plan: 4 to add, 0 to change, 0 to destroy.");
    for (const address of ["converge_alternate_contact.security", "converge_integration.orders-backend", "converge_route.get-orders", "converge_region_opt_in.ap-east"]) {
      expect(result.stdout).toContain(`${address}: Creation complete`);
    }
    expect(writeCounts(suite.service)).toEqual({ PutAlternateContact: 1, CreateIntegration: 1, CreateRoute: 1, EnableRegion: 1 });
    expect(writeRequests(suite.service).map((record) => record.operation).filter((operation) => /Integration|Route/.test(operation))).toEqual(["CreateIntegration", "CreateRoute"]);
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Name: "Security Team", Title: "CISO", EmailAddress: "security@example.com", PhoneNumber: "+1 555 0100" });
    const integrations = await integrationAt(URI);
    expect(integrations).toHaveLength(1);
    expect(integrations[0]).toMatchObject({ integrationType: "HTTP_PROXY", integrationMethod: "ANY", timeoutInMillis: 10000 });
    expect((await liveRoute(suite.service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${integrations[0]!.integrationId}`);
    expect(await liveRegionStatus(suite.service, "ap-east-1")).toBe("ENABLED");
  });

  it("plans no change after the deploy (plan -detailed-exitcode exits 0) and writes nothing", async () => {
    const result = await plan(0);
    expect(planLine(result)).toBe("No changes.");
    expect(writeRequests(suite.service)).toEqual([]);
  });

  it("shows a prop's change as its attribute's change, and updates that resource in place with one write", async () => {
    const routeBefore = await liveRoute(suite.service, ORDERS_API, "GET /orders");
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000 } });
    const planned = await plan(2);
    expect(planned.stdout).toContain("# converge_alternate_contact.security will be updated in-place");
    expect(planned.stdout).toMatch(/^\s+~ title\s+= "CISO" -> "Chief Security Officer"$/m);
    expect(planned.stdout).toContain("# converge_integration.orders-backend will be updated in-place");
    expect(planned.stdout).toMatch(/^\s+~ timeout_in_millis\s+= 10000 -> 12000$/m);
    expect(planLine(planned)).toBe("Plan: 0 to add, 2 to change, 0 to destroy.");
    const [before] = await integrationAt(URI);
    const result = await apply();
    expect(writeCounts(suite.service)).toEqual({ PutAlternateContact: 1, UpdateIntegration: 1 });
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Name: "Security Team", Title: "Chief Security Officer" });
    expect(await integrationAt(URI)).toEqual([expect.objectContaining({ integrationId: before!.integrationId, timeoutInMillis: 12000 })]);
    expect(await liveRoute(suite.service, ORDERS_API, "GET /orders")).toEqual(routeBefore);
    expect(result.stdout).toContain("Apply complete! Resources: 0 added, 2 changed, 0 destroyed.");
  });

  it("updates an integration's URI in place (terraform holds it by its ID), the route still targeting it", async () => {
    const [before] = await integrationAt(URI);
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000, integrationUri: NEW_URI } });
    const result = await apply();
    expect(result.stdout).toMatch(/^\s+~ integration_uri\s+= "https:\/\/shop\.internal\.example\/orders" -> "https:\/\/shop-v2\.internal\.example\/orders"$/m);
    expect(writeCounts(suite.service)).toEqual({ UpdateIntegration: 1 });
    expect(await integrationAt(NEW_URI)).toEqual([expect.objectContaining({ integrationId: before!.integrationId })]);
    expect((await liveRoute(suite.service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${before!.integrationId}`);
  });

  it("leaves a field the construct leaves out as it is live (converge's don't care): no change planned after one is set behind terraform's back", async () => {
    const [integration] = await integrationAt(NEW_URI);
    const response = await fetch(`${suite.service.url}/v2/apis/${ORDERS_API}/integrations/${integration!.integrationId}`, {
      method: "PATCH", headers: { authorization: `Bearer ${SECRET_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ description: "set by hand" }),
    });
    expect(response.status).toBe(200);
    await plan(0);
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000, integrationUri: NEW_URI, description: null } });
    const planned = await plan(2);
    expect(planned.stdout).toMatch(/^\s+- description\s+= "set by hand" -> null$/m);
    await apply();
    expect(writeCounts(suite.service)).toEqual({ UpdateIntegration: 1 });
    expect((await integrationAt(NEW_URI))[0]).not.toHaveProperty("description");
  });

  it("imports a pinned route by its ID (its API looked up by name), updates it to the construct's props, and deletes it when the construct goes", async () => {
    const options: ShopOptions = { contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000, integrationUri: NEW_URI, description: null } };
    const made = await createRouteOverHttp(suite.service, ORDERS_API, { routeKey: "GET /legacy" });
    synth(options, (stack) => new Route(stack, "legacy", { api: { name: "orders" }, routeId: made.routeId, routeKey: "GET /legacy/v2", operationName: "legacy" }));
    const planned = await plan(2);
    expect(planned.stdout).toContain(`converge_route.legacy: Preparing import... [id=${ORDERS_API}/${made.routeId}]`);
    expect(planned.stdout).toMatch(/^\s+~ route_key\s+= "GET \/legacy" -> "GET \/legacy\/v2"$/m);
    expect(planned.stdout).toContain("Plan: 1 to import, 0 to add, 1 to change, 0 to destroy.");
    await apply();
    expect(writeCounts(suite.service)).toEqual({ UpdateRoute: 1 });
    expect((await liveRoutes(suite.service, ORDERS_API)).find((route) => route.routeId === made.routeId)).toMatchObject({ routeKey: "GET /legacy/v2", operationName: "legacy" });
    await plan(0);
    synth(options);
    const removed = await apply();
    expect(planLine(removed)).toBe("Plan: 0 to add, 0 to change, 1 to destroy.");
    expect(writeCounts(suite.service)).toEqual({ DeleteRoute: 1 });
    expect((await liveRoutes(suite.service, ORDERS_API)).map((route) => route.routeId)).not.toContain(made.routeId);
  });

  it("fails the plan, writing nothing, when an Api construct declares a protocol the live API does not have", async () => {
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000, integrationUri: NEW_URI, description: null } }, (stack) => new Api(stack, "orders-api", { api: ORDERS_API, protocolType: "WEBSOCKET" }));
    const planned = await plan(1);
    expect(planned.stderr).toContain("Resource postcondition failed");
    expect(planned.stderr.replace(/\s+/g, " ")).toContain(`protocolType "WEBSOCKET" of the Api construct at "shop/orders-api" does not match API ${ORDERS_API}, which is HTTP`);
    expect(writeRequests(suite.service)).toEqual([]);
  });

  it("removing a construct deletes its resource", async () => {
    synth({ withoutContact: true, integration: { timeoutInMillis: 12000, integrationUri: NEW_URI, description: null } });
    const result = await apply();
    expect(planLine(result)).toBe("Plan: 0 to add, 0 to change, 1 to destroy.");
    expect(result.stdout).toContain("converge_alternate_contact.security: Destruction complete");
    expect(writeCounts(suite.service)).toEqual({ DeleteAlternateContact: 1 });
    expect(await liveContact(suite.service, "SECURITY")).toBeNull();
  });

  it("a second apply with no change reports no changes and writes nothing", async () => {
    const result = await apply();
    expect(planLine(result)).toBe("No changes.");
    expect(result.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(writeRequests(suite.service)).toEqual([]);
  });

  it("terraform destroy deletes what the stack made, the route before the integration, and leaves the Region", async () => {
    const [integration] = await integrationAt(NEW_URI);
    const result = await run(["destroy", "-auto-approve", "-input=false", "-no-color"]);
    expect(result.stdout).toContain("Destroy complete! Resources: 3 destroyed.");
    expect(result.stdout).toMatch(/Warning: converge_region_opt_in: destroying leaves the live resource as it is\s+with converge_region_opt_in\.ap-east,/);
    expect(writeRequests(suite.service).map((record) => record.operation)).toEqual(["DeleteRoute", "DeleteIntegration"]);
    expect((await liveRoutes(suite.service, ORDERS_API)).filter((route) => route.routeKey === "GET /orders")).toEqual([]);
    expect((await liveIntegrations(suite.service, ORDERS_API)).map((item) => item.integrationId)).not.toContain(integration!.integrationId);
    expect(await liveRegionStatus(suite.service, "ap-east-1")).toBe("ENABLED");
  });

  it("the token appears in no synthesized file, terraform state or terraform output", () => {
    expectTokenNowhere(SECRET_TOKEN, outdir, synthesized, terraform.results);
    // and yet it was the token the provider used: the service saw its identity's writes
    expect(terraform.results.filter((result) => /Apply complete! Resources: (?!0 added, 0 changed, 0 destroyed)/.test(result.stdout)).length).toBeGreaterThanOrEqual(5);
  });
});
