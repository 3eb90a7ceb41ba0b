import { readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCliResult, runCli } from "../support/cli.js";
import { useWorld, withWorld } from "../support/world.js";
import { liveContact, liveRoute, writeCounts } from "../e2e/e2e-fixture.js";
import { copyExampleApp, EXAMPLE, synthExampleApp } from "./example-app-fixture.js";
import { normalizeSynth } from "./synth-fixture.js";
import { NO_NETWORK, SECRET_TOKEN, Terraform, assertTerraformAvailable, cdktfWorld, describeTerraform, installConvergeProvider } from "./terraform-fixture.js";

/**
 * examples/cdktf-app as its README runs it, without cdktf-cli: the app installed beside converge
 * (node_modules linked to this checkout), type-checked, run as `cdktf synth` runs it (CDKTF_OUTDIR),
 * then `terraform init` and `terraform apply` in the stack's directory as `cdktf deploy` does, with
 * the terraform_data vehicle and with the provider vehicle, against the embedded service.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { service } = useWorld({ world: cdktfWorld(), recordRequests: true });
let app: string;

beforeAll(async () => {
  assertTerraformAvailable();
  app = await copyExampleApp();
}, 90_000);

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

describe("examples/cdktf-app", { timeout: 90_000 }, () => {
  it("declares the same exact versions of cdktf, cdktn, constructs and the null provider as converge", async () => {
    const example = JSON.parse(await readFile(join(EXAMPLE, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    const root = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const name of ["cdktf", "cdktn", "constructs", "@cdktf/provider-null"]) expect(example.dependencies[name], name).toBe(root.dependencies[name] ?? root.devDependencies[name]);
    expect(example.dependencies.converge).toBe("file:../..");
    expect(JSON.parse(await readFile(join(EXAMPLE, "cdktf.json"), "utf8"))).toMatchObject({ language: "typescript", app: "npx tsx main.ts" });
  });

  it("type-checks against converge/constructs", () => {
    const program = ts.createProgram([join(app, "main.ts"), join(app, "main-cdktn.ts")], {
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
      strict: true, noEmit: true, skipLibCheck: true, types: ["node"], typeRoots: [join(ROOT, "node_modules/@types")],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
  });

  it("synthesizes every construct, then terraform applies it, and plan and drift --from-synth find it in sync", async () => {
    const stackDir = await synthExample("main.ts", "cdktf.out");
    const desired = JSON.parse(await readFile(join(stackDir, "converge.desired.json"), "utf8")) as Array<{ kind: string }>;
    expect(desired.map((document) => document.kind)).toEqual(["AlternateContact", "AlternateContact", "Api", "Integration", "Route", "Route", "RegionOptIn"]);

    const terraform = new Terraform(stackDir, app, { CONVERGE_TOKEN: SECRET_TOKEN });
    const init = await terraform.init();
    expect(init.code, describeTerraform(init)).toBe(0);
    const apply = await terraform.apply();
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(await liveContact(service, "BILLING")).toMatchObject({ Name: "Accounts Payable" });
    expect((await liveRoute(service, "a1b2c3d4e5", "GET /products/{id}")).target).toMatch(/^integrations\/[a-z0-9]+$/);

    const env = { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: SECRET_TOKEN } };
    const plan = await runCli(["plan", "--from-synth", join(app, "cdktf.out")], env);
    expect(plan.code, describeCliResult(plan)).toBe(0);
    const drift = await runCli(["drift", "--from-synth", stackDir], env);
    expect(drift.code, describeCliResult(drift)).toBe(0);
  });

  it("synthesizes the same stack with cdktn (main-cdktn.ts) as with cdktf", async () => {
    const cdktfDir = await synthExample("main.ts", "out-cdktf");
    const cdktnDir = await synthExample("main-cdktn.ts", "out-cdktn");
    expect(await readFile(join(cdktnDir, "converge.desired.json"), "utf8")).toBe(await readFile(join(cdktfDir, "converge.desired.json"), "utf8"));
    const resources = async (directory: string) => normalizeSynth(JSON.stringify((JSON.parse(await readFile(join(directory, "cdk.tf.json"), "utf8")) as { resource: unknown }).resource), {});
    expect(await resources(cdktnDir)).toEqual(await resources(cdktfDir));
  });

  it.each(["main.ts", "main-cdktn.ts"])("synthesizes %s with the provider vehicle and deploys it with converge's provider, which converge plan --from-synth then finds in sync", async (entry) => {
    await withWorld({ world: cdktfWorld(), recordRequests: true }, async ({ service: own }) => {
      const stackDir = await synthExample(entry, `out-provider-${entry}`, { CONVERGE_VEHICLE: "provider", CONVERGE_ENDPOINT: own.url });
      const tf = JSON.parse(await readFile(join(stackDir, "cdk.tf.json"), "utf8")) as { resource: Record<string, Record<string, unknown>>; data: Record<string, Record<string, unknown>> };
      expect(Object.fromEntries(Object.entries(tf.resource).map(([type, byName]) => [type, Object.keys(byName).sort()]))).toEqual({
        converge_alternate_contact: ["billing-contact", "security-contact"],
        converge_integration: ["catalog-backend"],
        converge_route: ["get-product", "list-products"],
        converge_region_opt_in: ["hong-kong"],
      });
      expect(Object.keys(tf.data.converge_api!)).toEqual(["orders-api"]);

      await installConvergeProvider(app);
      const terraform = new Terraform(stackDir, app, { CONVERGE_TOKEN: SECRET_TOKEN, ...NO_NETWORK });
      const init = await terraform.init();
      expect(init.code, describeTerraform(init)).toBe(0);
      const apply = await terraform.apply();
      expect(apply.code, describeTerraform(apply)).toBe(0);
      expect(writeCounts(own)).toEqual({ PutAlternateContact: 2, CreateIntegration: 1, CreateRoute: 2, EnableRegion: 1 });
      expect(await liveContact(own, "BILLING")).toMatchObject({ Name: "Accounts Payable" });
      expect((await liveRoute(own, "a1b2c3d4e5", "GET /products/{id}")).target).toMatch(/^integrations\/[a-z0-9]+$/);
      const again = await terraform.run(["plan", "-detailed-exitcode", "-input=false", "-no-color"]);
      expect(again.code, describeTerraform(again)).toBe(0);

      const plan = await runCli(["plan", "--from-synth", stackDir], { env: { CONVERGE_ENDPOINT: own.url, CONVERGE_TOKEN: SECRET_TOKEN } });
      expect(plan.code, describeCliResult(plan)).toBe(0);
    });
  });
});

/** synthExampleApp of this suite's copy of the app, against its service. */
const synthExample = (entry: string, out: string, env: Readonly<Record<string, string>> = {}) => synthExampleApp(app, entry, out, { CONVERGE_ENDPOINT: service.url, ...env });
