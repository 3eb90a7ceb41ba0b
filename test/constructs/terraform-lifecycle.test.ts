import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { liveContact, liveIntegrations, liveRegionStatus, liveRoute, liveRoutes, writeCounts, writeRequests } from "../e2e/e2e-fixture.js";
import { ORDERS_API, buildShop, type ShopOptions } from "./shop-stack.js";
import { synthStack, type LibraryName, type SynthOutput } from "./synth-fixture.js";
import { cdktfSuite } from "./terraform-suite.js";
import { CLI_COMMAND, SECRET_TOKEN, expectTokenNowhere, Terraform, convergeRuns, describeTerraform, planLine, replacedResources, type TerraformResult } from "./terraform-fixture.js";

/**
 * Issue "cdktf deploy at the engine's speed", end to end: a stack of every construct with the
 * terraform_data vehicle, synthesized in-process with cdktf and with cdktn, then real `terraform init`
 * and `terraform apply` against the embedded service. The stack's three resources run the compiled
 * converge CLI once per change. The steps share one stack and run in order.
 */

const URI = "https://shop.internal.example/orders";
const NEW_URI = "https://shop-v2.internal.example/orders";
const BASE: ShopOptions = { contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000 } };

describe.each<LibraryName>(["cdktf", "cdktn"])("terraform apply of a synthesized stack (terraform_data vehicle, %s)", { timeout: 120_000 }, (library) => {
  const suite = cdktfSuite(`${library}-tf`);
  let outdir: string;
  let terraform: Terraform;
  const synthesized: SynthOutput[] = [];

  const synth = (options: ShopOptions = {}): SynthOutput => {
    const output = synthStack((stack) => buildShop(stack, options), { vehicle: "terraform_data", endpoint: suite.service.url, cli: CLI_COMMAND }, { outdir, library });
    synthesized.push(output);
    return output;
  };

  const apply = async (): Promise<TerraformResult> => {
    suite.service.requests.reset();
    const result = await terraform.apply();
    expect(result.code, describeTerraform(result)).toBe(0);
    return result;
  };

  beforeAll(async () => {
    outdir = join(suite.home, "cdktf.out");
    const first = synth();
    terraform = new Terraform(first.stackDir, suite.home, { CONVERGE_TOKEN: SECRET_TOKEN });
    const init = await terraform.init();
    expect(init.code, describeTerraform(init)).toBe(0);
  }, 90_000);

  it("initializes without any provider to download", () => {
    const init = terraform.results[0]!;
    expect(init.stdout).toContain("Terraform has been successfully initialized");
    expect(init.stdout).toContain("terraform.io/builtin/terraform is built in to Terraform");
    expect(init.stdout).not.toMatch(/Installing|Finding|registry\.terraform\.io/);
  });

  it("creates the live resources with one converge run", async () => {
    const result = await apply();
    expect(planLine(result)).toBe("Plan: 3 to add, 0 to change, 0 to destroy.");
    expect(convergeRuns(result)).toEqual(["terraform_data.converge_apply"]);
    expect(writeCounts(suite.service)).toEqual({ PutAlternateContact: 1, CreateIntegration: 1, CreateRoute: 1, EnableRegion: 1 });
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Name: "Security Team", Title: "CISO", EmailAddress: "security@example.com", PhoneNumber: "+1 555 0100" });
    const integrations = (await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    expect(integrations).toHaveLength(1);
    expect(integrations[0]).toMatchObject({ integrationType: "HTTP_PROXY", integrationMethod: "ANY", timeoutInMillis: 10000 });
    expect((await liveRoute(suite.service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${integrations[0]!.integrationId}`);
    expect(["ENABLING", "ENABLED"]).toContain(await liveRegionStatus(suite.service, "ap-east-1"));
  });

  it("terraform plan names the construct whose prop changed; the apply makes exactly that one write", async () => {
    const routeBefore = await liveRoute(suite.service, ORDERS_API, "GET /orders");
    synth({ contact: { title: "Chief Security Officer" } });
    const planned = await terraform.run(["plan", "-input=false", "-no-color"]);
    expect(planned.code, describeTerraform(planned)).toBe(0);
    const changedKeys = [...planned.stdout.matchAll(/^\s+~ "?([^"=\s]+)"?\s+= "[0-9a-f]{64}" -> "[0-9a-f]{64}"/gm)].map((match) => match[1]);
    expect(changedKeys.sort()).toEqual(["converge.desired.json", "security"]);
    expect(planned.stdout).toMatch(/# terraform_data\.converge_apply must be replaced/);
    const result = await apply();
    expect(replacedResources(result)).toEqual(["+terraform_data.converge_apply", "-terraform_data.converge_apply"]);
    expect(convergeRuns(result)).toEqual(["terraform_data.converge_apply"]);
    expect(writeRequests(suite.service).map((record) => record.operation)).toEqual(["PutAlternateContact"]);
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Name: "Security Team", Title: "Chief Security Officer" });
    expect(await liveRoute(suite.service, ORDERS_API, "GET /orders")).toEqual(routeBefore);
  });

  it("changing an integration's content updates it in place", async () => {
    const [before] = (await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    synth(BASE);
    const result = await apply();
    expect(replacedResources(result)).toEqual(["+terraform_data.converge_apply", "-terraform_data.converge_apply"]);
    expect(writeCounts(suite.service)).toEqual({ UpdateIntegration: 1 });
    const [after] = (await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    expect(after).toMatchObject({ integrationId: before!.integrationId, timeoutInMillis: 12000 });
  });

  it("changing an integration's identity creates the new one, moves the route to it, then deletes the old one", async () => {
    const [old] = (await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    synth({ ...BASE, integration: { ...BASE.integration, integrationUri: NEW_URI } });
    const result = await apply();
    expect(replacedResources(result)).toEqual(["+terraform_data.converge_apply", "+terraform_data.converge_inventory", "-terraform_data.converge_apply", "-terraform_data.converge_inventory"]);
    expect(writeRequests(suite.service).map((record) => record.operation)).toEqual(["CreateIntegration", "UpdateRoute", "DeleteIntegration"]);
    expect(writeRequests(suite.service)[2]!.path).toContain(old!.integrationId);
    const integrations = await liveIntegrations(suite.service, ORDERS_API);
    expect(integrations.filter((item) => item.integrationUri === URI)).toEqual([]);
    const current = integrations.filter((item) => item.integrationUri === NEW_URI);
    expect(current).toHaveLength(1);
    expect((await liveRoute(suite.service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${current[0]!.integrationId}`);
    // back to the first URI for the steps that follow
    synth(BASE);
    await apply();
    expect(writeRequests(suite.service).map((record) => record.operation)).toEqual(["CreateIntegration", "UpdateRoute", "DeleteIntegration"]);
    expect((await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === NEW_URI)).toEqual([]);
  });

  it("renaming constructs with the same props makes zero writes (the integration's logical name follows its id)", async () => {
    synth({ ...BASE, ids: { contact: "security-team", integration: "orders-api" } });
    const result = await apply();
    expect(convergeRuns(result).length).toBeGreaterThanOrEqual(1);
    expect(writeRequests(suite.service)).toEqual([]);
    expect((await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === URI)).toHaveLength(1);
    synth(BASE);
    await apply();
    expect(writeRequests(suite.service)).toEqual([]);
  });

  it("removing a construct deletes its resource through the inventory's destroy provisioner", async () => {
    synth({ ...BASE, withoutContact: true });
    const result = await apply();
    expect(replacedResources(result)).toEqual(["+terraform_data.converge_apply", "+terraform_data.converge_inventory", "-terraform_data.converge_apply", "-terraform_data.converge_inventory"]);
    expect(result.stdout).toMatch(/terraform_data\.converge_inventory: Provisioning with 'local-exec'/);
    expect(writeCounts(suite.service)).toEqual({ DeleteAlternateContact: 1 });
    expect(await liveContact(suite.service, "SECURITY")).toBeNull();
  });

  it("a second apply with no change reports no changes, runs no converge process, and the service receives zero requests", async () => {
    const result = await apply();
    expect(planLine(result)).toBe("No changes.");
    expect(convergeRuns(result)).toEqual([]);
    expect(result.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(suite.service.requests.count()).toBe(0);
  });

  it("terraform destroy deletes every deletable resource the stack made, routes before integrations, and leaves the Region", async () => {
    const before = (await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    suite.service.requests.reset();
    const result = await terraform.destroy();
    expect(result.code, describeTerraform(result)).toBe(0);
    expect(writeRequests(suite.service).map((record) => record.operation)).toEqual(["DeleteRoute", "DeleteIntegration"]);
    expect((await liveRoutes(suite.service, ORDERS_API)).filter((route) => route.routeKey === "GET /orders")).toEqual([]);
    expect((await liveIntegrations(suite.service, ORDERS_API)).map((item) => item.integrationId)).not.toContain(before[0]!.integrationId);
    expect(await liveRegionStatus(suite.service, "ap-east-1")).toBe("ENABLED");
  });

  it("the token appears in no synthesized file, terraform state or terraform output", () => {
    expectTokenNowhere(SECRET_TOKEN, outdir, synthesized, terraform.results);
    // and yet it was the token every provisioner used: the service saw its identity's writes
    expect(terraform.results.filter((result) => /Apply complete: [1-9]\d* done, 0 failed\./.test(result.stdout)).length).toBeGreaterThanOrEqual(6);
  });
});
