import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "../../src/service/index.js";
import { liveContact, liveIntegrations, liveRegionStatus, liveRoute, liveRoutes, writeCounts, writeRequests } from "../e2e/e2e-fixture.js";
import { ORDERS_API, buildShop, type ShopOptions } from "./shop-stack.js";
import { readSynth, synthStack, type SynthOutput } from "./synth-fixture.js";
import { CLI_COMMAND, SECRET_TOKEN, Terraform, assertTerraformAvailable, cdktfWorld, describeTerraform, filesUnder, planLine, replacedResources, type TerraformResult } from "./terraform-fixture.js";

/**
 * Issue "cdktf constructs", end to end: a stack of every construct with the terraform_data vehicle,
 * synthesized in-process, then real `terraform init` and `terraform apply` against the embedded
 * service, whose provisioners run the compiled converge CLI. The steps share one stack and run in order.
 */

const URI = "https://shop.internal.example/orders";
let service: RunningService;
let home: string;
let outdir: string;
let terraform: Terraform;
const synthesized: SynthOutput[] = [];

function synth(options: ShopOptions = {}): SynthOutput {
  const output = synthStack((stack) => buildShop(stack, options), { vehicle: "terraform_data", endpoint: service.url, cli: CLI_COMMAND }, { outdir });
  synthesized.push(output);
  return output;
}

async function apply(): Promise<TerraformResult> {
  service.requests.reset();
  const result = await terraform.apply();
  expect(result.code, describeTerraform(result)).toBe(0);
  return result;
}

beforeAll(async () => {
  assertTerraformAvailable();
  service = await startService({ port: 0, world: cdktfWorld(), recordRequests: true });
  home = await mkdtemp(join(tmpdir(), "converge-cdktf-tf-"));
  outdir = join(home, "cdktf.out");
  const first = synth();
  terraform = new Terraform(first.stackDir, home, { CONVERGE_TOKEN: SECRET_TOKEN });
  const init = await terraform.init();
  expect(init.code, describeTerraform(init)).toBe(0);
}, 90_000);

afterAll(async () => {
  await service?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe("terraform apply of a synthesized stack (terraform_data vehicle)", { timeout: 90_000 }, () => {
  it("initializes without any provider to download", () => {
    const init = terraform.results[0]!;
    expect(init.stdout).toContain("Terraform has been successfully initialized");
    expect(init.stdout).toContain("terraform.io/builtin/terraform is built in to Terraform");
    expect(init.stdout).not.toMatch(/Installing|Finding|registry\.terraform\.io/);
  });

  it("creates the live resources", async () => {
    const result = await apply();
    expect(planLine(result)).toBe("Plan: 9 to add, 0 to change, 0 to destroy.");
    expect(writeCounts(service)).toEqual({ PutAlternateContact: 1, CreateIntegration: 1, CreateRoute: 1, EnableRegion: 1 });
    expect(await liveContact(service, "SECURITY")).toMatchObject({ Name: "Security Team", Title: "CISO", EmailAddress: "security@example.com", PhoneNumber: "+1 555 0100" });
    const integrations = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    expect(integrations).toHaveLength(1);
    expect(integrations[0]).toMatchObject({ integrationType: "HTTP_PROXY", integrationMethod: "ANY", timeoutInMillis: 10000 });
    expect((await liveRoute(service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${integrations[0]!.integrationId}`);
    expect(["ENABLING", "ENABLED"]).toContain(await liveRegionStatus(service, "ap-east-1"));
  });

  it("changing one prop replaces only that construct's document resource and updates only that resource", async () => {
    const routeBefore = await liveRoute(service, ORDERS_API, "GET /orders");
    synth({ contact: { title: "Chief Security Officer" } });
    const result = await apply();
    expect(replacedResources(result)).toEqual(["+terraform_data.security_document", "-terraform_data.security_document"]);
    expect(writeRequests(service).map((record) => record.operation)).toEqual(["PutAlternateContact"]);
    expect(await liveContact(service, "SECURITY")).toMatchObject({ Name: "Security Team", Title: "Chief Security Officer" });
    expect(await liveRoute(service, ORDERS_API, "GET /orders")).toEqual(routeBefore);
  });

  it("changing an integration's content updates it in place (the route that embeds it applies as a no-op)", async () => {
    const [before] = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000 } });
    const result = await apply();
    expect(replacedResources(result)).toEqual([
      "+terraform_data.get-orders_document", "+terraform_data.orders-backend_document",
      "-terraform_data.get-orders_document", "-terraform_data.orders-backend_document",
    ]);
    expect(writeCounts(service)).toEqual({ UpdateIntegration: 1 });
    const [after] = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    expect(after).toMatchObject({ integrationId: before!.integrationId, timeoutInMillis: 12000 });
  });

  it("changing an integration's identity deletes the old one and re-creates the route that targets it", async () => {
    const newUri = "https://shop-v2.internal.example/orders";
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000, integrationUri: newUri } });
    const result = await apply();
    expect(planLine(result), describeTerraform(result)).toBe("Plan: 5 to add, 0 to change, 5 to destroy.");
    expect(writeCounts(service)).toEqual({ DeleteRoute: 1, DeleteIntegration: 1, CreateIntegration: 1, CreateRoute: 1 });
    const integrations = await liveIntegrations(service, ORDERS_API);
    expect(integrations.filter((item) => item.integrationUri === URI)).toEqual([]);
    const current = integrations.filter((item) => item.integrationUri === newUri);
    expect(current).toHaveLength(1);
    expect((await liveRoute(service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${current[0]!.integrationId}`);
    // back to the first URI for the steps that follow
    synth({ contact: { title: "Chief Security Officer" }, integration: { timeoutInMillis: 12000 } });
    await apply();
    expect((await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === newUri)).toEqual([]);
  });

  it("removing a construct deletes its resource through the inventory's destroy provisioner", async () => {
    synth({ withoutContact: true, integration: { timeoutInMillis: 12000 } });
    const result = await apply();
    expect(replacedResources(result)).toEqual([
      "+terraform_data.converge_inventory",
      "-terraform_data.converge_inventory", "-terraform_data.security_document", "-terraform_data.security_identity",
    ]);
    expect(result.stdout).toMatch(/terraform_data\.converge_inventory: Provisioning with 'local-exec'/);
    expect(writeCounts(service)).toEqual({ DeleteAlternateContact: 1 });
    expect(await liveContact(service, "SECURITY")).toBeNull();
  });

  it("a second apply with no change reports no changes and the service receives zero write requests", async () => {
    const result = await apply();
    expect(planLine(result)).toBe("No changes.");
    expect(result.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.");
    expect(writeRequests(service)).toEqual([]);
    expect(service.requests.count()).toBe(0);
  });

  it("terraform destroy deletes every deletable resource through the identity resources, routes before integrations", async () => {
    const before = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === URI);
    service.requests.reset();
    const result = await terraform.destroy();
    expect(result.code, describeTerraform(result)).toBe(0);
    expect(writeRequests(service).map((record) => record.operation)).toEqual(["DeleteRoute", "DeleteIntegration"]);
    expect((await liveRoutes(service, ORDERS_API)).filter((route) => route.routeKey === "GET /orders")).toEqual([]);
    expect((await liveIntegrations(service, ORDERS_API)).map((item) => item.integrationId)).not.toContain(before[0]!.integrationId);
    expect(await liveRegionStatus(service, "ap-east-1")).toBe("ENABLED");
  });

  it("the token appears in no synthesized file, terraform state or terraform output", () => {
    expect(terraform.results.length).toBeGreaterThanOrEqual(8);
    const latest = readSynth(outdir);
    const files = filesUnder(outdir);
    const names = files.map((file) => file.path.slice(outdir.length + 1));
    expect(names).toEqual(expect.arrayContaining(["stacks/shop/cdk.tf.json", "stacks/shop/converge.desired.json", "stacks/shop/terraform.tfstate", "stacks/shop/terraform.tfstate.backup"]));
    for (const file of files) expect(file.text.includes(SECRET_TOKEN), `the token in ${file.path}`).toBe(false);
    for (const output of [...synthesized, latest]) {
      expect(output.text).not.toContain(SECRET_TOKEN);
      expect(output.desiredText).not.toContain(SECRET_TOKEN);
    }
    for (const result of terraform.results) {
      expect(result.stdout.includes(SECRET_TOKEN), `the token in the output of terraform ${result.args.join(" ")}`).toBe(false);
      expect(result.stderr.includes(SECRET_TOKEN), `the token in the errors of terraform ${result.args.join(" ")}`).toBe(false);
    }
    // and yet it was the token every provisioner used: the service saw its identity's writes
    expect(terraform.results.filter((result) => /Apply complete: [1-9]\d* done, 0 failed\./.test(result.stdout)).length).toBeGreaterThanOrEqual(6);
  });
});
