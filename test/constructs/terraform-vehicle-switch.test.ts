import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { TerraformStack } from "cdktf";
import type { RunningService } from "../../src/service/index.js";
import { Route, type ConvergeConfigProps } from "../../constructs/index.js";
import { liveContact, liveIntegrations, liveRegionStatus, liveRoutes, writeRequests } from "../e2e/e2e-fixture.js";
import { ORDERS_API, buildShop, type ShopOptions } from "./shop-stack.js";
import { synthStack, type LibraryName, type SynthOutput } from "./synth-fixture.js";
import { CLI_COMMAND, NO_NETWORK, SECRET_TOKEN, Terraform, convergeRuns, describeTerraform, type TerraformResult } from "./terraform-fixture.js";
import { cdktfSuite } from "./terraform-suite.js";

/**
 * Issue 26, item 3, end to end with real terraform: a stack deployed with the default terraform_data
 * vehicle switches to the provider vehicle (ConvergeConfig's `switchingFrom`), synthesized with cdktf
 * and with cdktn. The switching deploy imports every construct's live resource (by its natural key)
 * and forgets the old vehicle's three resources: no create, no destroy, no update, no provisioner,
 * no write; the next plan is clean. Then a construct renamed under the provider vehicle moves
 * (`renamedFrom`) instead of being replaced. The steps share one stack and run in order.
 */

/** Every construct of the shop, and a route of an API named (not by ID), whose key holds `{`. */
function build(stack: TerraformStack, options: ShopOptions = {}, rename?: { readonly from: string }): void {
  const { integration } = buildShop(stack, { ...options, ids: rename ? { integration: "orders-integration" } : undefined, integration: { name: "orders-backend", ...options.integration } });
  if (rename) integration.renamedFrom(rename.from);
  new Route(stack, "get-item", { api: { name: "orders" }, routeKey: "GET /items/{id}", operationName: "getItem" });
}

/** The addresses terraform.tfstate holds, sorted. */
function stateAddresses(stackDir: string): string[] {
  const state = JSON.parse(readFileSync(join(stackDir, "terraform.tfstate"), "utf8")) as { resources: Array<{ mode: string; type: string; name: string }> };
  return state.resources.map((resource) => `${resource.mode === "data" ? "data." : ""}${resource.type}.${resource.name}`).sort();
}

/** What is live of the stack's resources, to compare before and after: routes, integrations, the contact, the Region. */
async function liveSnapshot(service: RunningService) {
  return {
    routes: await liveRoutes(service, ORDERS_API),
    integrations: await liveIntegrations(service, ORDERS_API),
    contact: await liveContact(service, "SECURITY"),
    region: await liveRegionStatus(service, "ap-east-1"),
  };
}

describe.each<LibraryName>(["cdktf", "cdktn"])("switching a deployed stack from terraform_data to the provider vehicle (%s)", { timeout: 180_000 }, (library) => {
  const suite = cdktfSuite(`${library}-switch`, { install: true });
  let outdir: string;
  let terraform: Terraform;

  const synth = (config: ConvergeConfigProps, more: (stack: TerraformStack) => void): SynthOutput =>
    synthStack(more, { endpoint: suite.service.url, ...config }, { outdir, library });
  const run = async (args: ReadonlyArray<string>, expectedCode = 0): Promise<TerraformResult> => {
    suite.service.requests.reset();
    const result = await terraform.run(args, 120_000);
    expect(result.code, describeTerraform(result)).toBe(expectedCode);
    return result;
  };
  const plan = (expectedCode: 0 | 2) => run(["plan", "-detailed-exitcode", "-input=false", "-no-color"], expectedCode);
  const apply = () => run(["apply", "-auto-approve", "-input=false", "-no-color"]);

  beforeAll(async () => {
    outdir = join(suite.home, "cdktf.out");
    const first = synth({ vehicle: "terraform_data", cli: CLI_COMMAND }, (stack) => build(stack));
    terraform = new Terraform(first.stackDir, suite.home, { CONVERGE_TOKEN: SECRET_TOKEN, ...NO_NETWORK });
    expect((await terraform.init()).code).toBe(0);
  }, 90_000);

  it("deploys with terraform_data: one converge run creates what the stack declares", async () => {
    const result = await apply();
    expect(convergeRuns(result)).toEqual(["terraform_data.converge_apply"]);
    expect(writeRequests(suite.service).map((record) => record.operation).sort()).toEqual(["CreateIntegration", "CreateRoute", "CreateRoute", "EnableRegion", "PutAlternateContact"]);
  });

  it("switches to the provider vehicle: the plan imports every construct's resource and forgets the three vehicle resources, with nothing to add, change or destroy", async () => {
    const before = await liveSnapshot(suite.service);
    synth({ vehicle: "provider", switchingFrom: "terraform_data" }, (stack) => build(stack));
    expect((await terraform.init()).code).toBe(0);
    const planned = await plan(2);
    expect(planned.stdout).toContain("Plan: 5 to import, 0 to add, 0 to change, 0 to destroy.");
    for (const role of ["apply", "inventory", "owner"]) {
      expect(planned.stdout).toContain(`# terraform_data.converge_${role} will no longer be managed by Terraform, but will not be destroyed`);
    }
    expect(planned.stdout).toContain(`converge_route.get-orders: Preparing import... [id=${ORDERS_API}?route_key=GET%20%2Forders]`);
    expect(planned.stdout).toContain("converge_route.get-item: Preparing import... [id=a1b2c3d4e5?route_key=GET%20%2Fitems%2F%7Bid%7D]");
    expect(planned.stdout).not.toMatch(/will be (created|destroyed|updated in-place|replaced)|must be replaced/);
    expect(writeRequests(suite.service)).toEqual([]);

    const applied = await apply();
    expect(applied.stdout).toContain("Apply complete! Resources: 5 imported, 0 added, 0 changed, 0 destroyed.");
    expect(convergeRuns(applied)).toEqual([]);
    expect(writeRequests(suite.service)).toEqual([]);
    expect(await liveSnapshot(suite.service)).toEqual(before);
    expect(stateAddresses(terraform.stackDir)).toEqual(["converge_alternate_contact.security", "converge_integration.orders-backend", "converge_region_opt_in.ap-east", "converge_route.get-item", "converge_route.get-orders", "data.converge_api.api_orders"]);
  });

  it("plans no change after the switch, and none once switchingFrom is taken out", async () => {
    const clean = await plan(0);
    expect(clean.stdout).toContain("No changes.");
    synth({ vehicle: "provider" }, (stack) => build(stack));
    await plan(0);
    expect(writeRequests(suite.service)).toEqual([]);
  });

  it("moves a construct renamed under the provider vehicle (renamedFrom) instead of replacing it: no write", async () => {
    const before = await liveSnapshot(suite.service);
    synth({ vehicle: "provider" }, (stack) => build(stack, {}, { from: "orders-backend" }));
    const planned = await plan(2);
    expect(planned.stdout).toContain("# converge_integration.orders-backend has moved to converge_integration.orders-integration");
    expect(planned.stdout).toContain("Plan: 0 to add, 0 to change, 0 to destroy.");
    const applied = await apply();
    expect(applied.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(writeRequests(suite.service)).toEqual([]);
    expect(await liveSnapshot(suite.service)).toEqual(before);
    await plan(0);
  });
});
