import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hclReference, hclTemplate, renderHcl, type HclBodyItem } from "../../../src/desired/hcl-writer.js";
import { requiredProvidersBlock } from "../../../src/desired/terraform-attributes.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { runProcess } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";
import { APIS, ESTATE_TOKEN, estateWorld } from "../estate.js";
import { handshakeMs } from "../handshake.js";
import type { BenchExperiment } from "../experiment.js";
import { runTerraform, type TimedTerraform } from "../run-terraform.js";
import { runCli } from "../run-cli.js";
import { median } from "../stats.js";

const REPOSITORY = resolve(import.meta.dirname, "../../../..");
const VERSION = (JSON.parse(readFileSync(join(REPOSITORY, "package.json"), "utf8")) as { version: string }).version;
/** Where `converge provider package` writes by default, and the linux_amd64 executable in it. */
const RELEASE_DIR = join(REPOSITORY, "dist/release");
const PACKAGED_EXECUTABLE = join(RELEASE_DIR, `executables/linux_amd64/terraform-provider-converge_v${VERSION}`);
/** The protocol floor packaged as the release is (test/bench/packaged-floor.ts), made by the experiment. */
const PACKAGED_FLOOR = join(REPOSITORY, "dist/bench/packaged-floor");

/** The reads of a no-change plan, as the service names them. */
const READS = ["GetApis", "GetApi", "GetRoutes", "GetIntegrations", "GetRoute", "GetIntegration"];

/** The sizes measured: routes and integrations (half each, every route targeting its integration), over HTTP APIs. */
const SIZES = [
  { resources: 100, apis: 1 },
  { resources: 1000, apis: 4 },
] as const;
type Size = (typeof SIZES)[number];

/** The i-th pair of a size: its API and its index. */
function pairs(size: Size): Array<{ apiId: string; i: number }> {
  return Array.from({ length: size.resources / 2 }, (_, i) => ({ apiId: APIS[i % size.apis]!.apiId, i }));
}

/** Resources of a size as HCL, written by the project's HCL writer (src/desired/hcl-writer.ts). */
function resources(blocks: ReadonlyArray<HclBodyItem>): string {
  return renderHcl(blocks.flatMap((block, index) => (index === 0 ? [block] : [{ blank: true } as const, block])));
}

function providerConfig(size: Size): string {
  return resources([
    requiredProvidersBlock(),
    ...pairs(size).flatMap(({ apiId, i }): HclBodyItem[] => [
      {
        block: "resource",
        labels: ["converge_integration", `backend_${i}`],
        body: [
          { attribute: "api_id", value: apiId },
          { attribute: "integration_type", value: "HTTP_PROXY" },
          { attribute: "integration_uri", value: `https://svc-${i}.internal.example/api` },
          { attribute: "integration_method", value: "ANY" },
          { attribute: "payload_format_version", value: "1.0" },
        ],
      },
      {
        block: "resource",
        labels: ["converge_route", `route_${i}`],
        body: [
          { attribute: "api_id", value: apiId },
          { attribute: "route_key", value: `GET /resource-${i}/{id}` },
          { attribute: "target", value: hclTemplate("integrations/", hclReference("converge_integration", `backend_${i}`, "integration_id")) },
        ],
      },
    ]),
  ]);
}

/** terraform's own floor: as many terraform_data resources, each route's depending on its integration's. */
function terraformDataConfig(size: Size): string {
  return resources(pairs(size).flatMap(({ apiId, i }): HclBodyItem[] => [
    {
      block: "resource",
      labels: ["terraform_data", `backend_${i}`],
      body: [{ attribute: "input", value: { api_id: apiId, integration_uri: `https://svc-${i}.internal.example/api`, integration_type: "HTTP_PROXY" } }],
    },
    {
      block: "resource",
      labels: ["terraform_data", `route_${i}`],
      body: [{ attribute: "input", value: { api_id: apiId, route_key: `GET /resource-${i}/{id}`, target: hclReference("terraform_data", `backend_${i}`, "id") } }],
    },
  ]));
}

function desiredState(size: Size): string {
  return pairs(size).map(({ apiId, i }) => `kind: Integration
name: backend-${i}
api: ${apiId}
spec: {integrationType: HTTP_PROXY, integrationUri: "https://svc-${i}.internal.example/api", integrationMethod: ANY, payloadFormatVersion: "1.0"}
---
kind: Route
api: ${apiId}
spec: {routeKey: "GET /resource-${i}/{id}", target: {integration: backend-${i}}}
`).join("---\n");
}

function reads(service: RunningService): number {
  return READS.reduce((sum, operation) => sum + service.requests.count({ operation }), 0);
}

/** Runs `use` against a fresh service of the estate's world (no latency, no throttle). */
async function withService<T>(use: (service: RunningService) => Promise<T>): Promise<T> {
  const service = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: false });
  try {
    return await use(service);
  } finally {
    await service.close();
  }
}

interface Series {
  apply: number[];
  plan: number[];
  planReads: number[];
}

const series = (): Series => ({ apply: [], plan: [], planReads: [] });

/**
 * Issue "a native Terraform provider": at 100 and 1,000 routes and integrations, in the same run,
 * `terraform apply` from empty and a no-change `terraform plan` with converge's provider, against as
 * many `terraform_data` resources (terraform's own floor: no provider process, no I/O), against the
 * same provider with every resource's work taken out (the protocol floor of this runtime), and
 * against `converge apply` / `converge plan` of the same desired state; with the requests each
 * no-change plan sends.
 */
/**
 * Provider executables timed beside the installed provider, each through terraform's dev_overrides
 * against a service of its own: one line each (a packaged provider's executable, say). The protocol
 * floor is the runtime with every resource's work taken out; packaged, the release's executable
 * with none of converge's own work.
 */
const OVERRIDDEN_PROVIDERS: ReadonlyArray<{ readonly label: string; readonly command: ReadonlyArray<string> }> = [
  { label: "packaged executable", command: [PACKAGED_EXECUTABLE] },
  { label: "protocol floor", command: [process.execPath, resolve(import.meta.dirname, "../floor-provider.js")] },
  { label: "packaged protocol floor", command: [PACKAGED_FLOOR] },
];

/** Each way's handshake (spawn to go-plugin's line, as terraform starts a provider), median of HANDSHAKES runs taken in turns. */
const HANDSHAKES = 20;
const HANDSHAKE_WAYS: ReadonlyArray<{ readonly label: string; readonly command: ReadonlyArray<string> }> = [
  { label: "Node.js printing a line (this machine's Node.js)", command: [process.execPath, "-e", "console.log(1)"] },
  { label: "converge provider, development wrapper (dist/src/provider/main.js)", command: [process.execPath, resolve(REPOSITORY, "dist/src/provider/main.js")] },
  ...OVERRIDDEN_PROVIDERS,
];

/** The release's executable for this machine, built by `converge provider package` when dist/release has none of this version. */
async function ensurePackagedExecutable(): Promise<void> {
  if (existsSync(PACKAGED_EXECUTABLE)) return;
  const packaged = await runProcess(process.execPath, [builtCliPath(), "provider", "package", "--out", RELEASE_DIR], { env: { ...process.env } as Record<string, string>, timeoutMs: 600_000 });
  if (packaged.code !== 0 || !existsSync(PACKAGED_EXECUTABLE)) throw new Error(`converge provider package exited ${packaged.code} without ${PACKAGED_EXECUTABLE}: ${packaged.stderr.slice(-600)}`);
}

/** The packaged protocol floor, made again for each run (from this build, padded to the release's executable's size). */
async function packageFloor(): Promise<void> {
  const packaged = await runProcess(process.execPath, [resolve(import.meta.dirname, "../packaged-floor.js"), PACKAGED_FLOOR, PACKAGED_EXECUTABLE], { env: { ...process.env } as Record<string, string>, timeoutMs: 300_000 });
  if (packaged.code !== 0 || !existsSync(PACKAGED_FLOOR)) throw new Error(`packaged-floor.js exited ${packaged.code} without ${PACKAGED_FLOOR}: ${packaged.stderr.slice(-600)}`);
}

export const terraformProvider: BenchExperiment = {
  name: "terraform-provider",
  description: "terraform apply from empty and no-change plan with the converge provider (100 and 1,000 routes + integrations), its development wrapper and its packaged executable, vs terraform_data, the protocol floor (from the checkout and packaged as the release), and converge apply / plan; each way's handshake",
  async run({ rounds }) {
    const problems: string[] = [];
    const home = await mkdtemp(join(tmpdir(), "converge-bench-provider-"));
    const results: Array<{ size: Size; provider: Series; overridden: Series[]; data: Series; converge: Series }> = [];
    await ensurePackagedExecutable();
    await packageFloor();
    const handshakes = HANDSHAKE_WAYS.map((): number[] => []);
    for (let run = 0; run < HANDSHAKES; run += 1) {
      for (const [index, way] of HANDSHAKE_WAYS.entries()) handshakes[index]!.push(await handshakeMs(way.command));
    }
    try {
      const cliConfig = join(home, "terraformrc");
      const overrideConfigs: string[] = [];
      for (const [index, { command }] of OVERRIDDEN_PROVIDERS.entries()) {
        const executableDir = join(home, `overridden-${index}`);
        await mkdir(executableDir);
        await writeFile(join(executableDir, "terraform-provider-converge"), `#!/bin/sh\nexec ${command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ")} "$@"\n`, { mode: 0o755 });
        const config = join(home, `overridden-${index}.tfrc`);
        await writeFile(config, `provider_installation {\n  dev_overrides {\n    "converge/converge" = "${executableDir}"\n  }\n  direct {}\n}\n`);
        overrideConfigs.push(config);
      }
      await writeFile(cliConfig, "");
      const baseEnv = { PATH: process.env.PATH ?? "", HOME: home, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", CONVERGE_TOKEN: ESTATE_TOKEN };
      const install = await runProcess(process.execPath, [builtCliPath(), "provider", "install", "--wrapper"], { env: baseEnv });
      if (install.code !== 0) throw new Error(`converge provider install exited ${install.code}: ${install.stderr}`);

      for (const size of SIZES) {
        const result = { size, provider: series(), overridden: OVERRIDDEN_PROVIDERS.map(() => series()), data: series(), converge: series() };
        results.push(result);
        const dirs = { provider: join(home, `provider-${size.resources}`), data: join(home, `data-${size.resources}`), desired: join(home, `desired-${size.resources}`) };
        const overriddenDirs = OVERRIDDEN_PROVIDERS.map((_, index) => join(home, `overridden-${index}-${size.resources}`));
        for (const dir of [...Object.values(dirs), ...overriddenDirs]) await mkdir(dir);
        await writeFile(join(dirs.provider, "main.tf"), providerConfig(size));
        for (const dir of overriddenDirs) await writeFile(join(dir, "main.tf"), providerConfig(size));
        await writeFile(join(dirs.data, "main.tf"), terraformDataConfig(size));
        await writeFile(join(dirs.desired, "estate.yaml"), desiredState(size));
        const env = { ...baseEnv, TF_CLI_CONFIG_FILE: cliConfig };
        for (const [dir, dirEnv] of [[dirs.provider, env], [dirs.data, env]] as const) {
          const init = await runTerraform(["init", "-input=false", "-no-color"], dir, dirEnv);
          if (init.code !== 0) throw new Error(`terraform init in ${dir} exited ${init.code}: ${init.output.slice(-600)}`);
        }

        for (let round = 0; round < rounds; round += 1) {
          const check = (what: string, timed: TimedTerraform, expected: number) => {
            if (timed.code !== expected) problems.push(`${size.resources}, round ${round + 1}: ${what} exited ${timed.code} (expected ${expected}): ${timed.output.slice(-400)}`);
          };
          // each way in turn, the order rotating by round, each from empty on a service of its own
          const ways: Array<() => Promise<void>> = [
            () => withService(async (service) => {
              await rm(join(dirs.provider, "terraform.tfstate"), { force: true });
              const withEndpoint = { ...env, CONVERGE_ENDPOINT: service.url };
              service.requests.recordBodies = false;
              const applied = await runTerraform(["apply", "-auto-approve", "-input=false", "-no-color"], dirs.provider, withEndpoint);
              check("provider apply", applied, 0);
              service.requests.reset();
              const planned = await runTerraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], dirs.provider, withEndpoint);
              check("provider plan", planned, 0);
              result.provider.apply.push(applied.wallMs);
              result.provider.plan.push(planned.wallMs);
              result.provider.planReads.push(reads(service));
            }),
            ...OVERRIDDEN_PROVIDERS.map(({ label }, index) => () => withService(async (service) => {
              const dir = overriddenDirs[index]!;
              await rm(join(dir, "terraform.tfstate"), { force: true });
              const overriddenEnv = { ...baseEnv, TF_CLI_CONFIG_FILE: overrideConfigs[index]!, CONVERGE_ENDPOINT: service.url };
              service.requests.recordBodies = false;
              const applied = await runTerraform(["apply", "-auto-approve", "-input=false", "-no-color"], dir, overriddenEnv);
              check(`${label} apply`, applied, 0);
              const planned = await runTerraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], dir, overriddenEnv);
              check(`${label} plan`, planned, 0);
              result.overridden[index]!.apply.push(applied.wallMs);
              result.overridden[index]!.plan.push(planned.wallMs);
            })),
            async () => {
              await rm(join(dirs.data, "terraform.tfstate"), { force: true });
              const applied = await runTerraform(["apply", "-auto-approve", "-input=false", "-no-color"], dirs.data, env);
              check("terraform_data apply", applied, 0);
              const planned = await runTerraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], dirs.data, env);
              check("terraform_data plan", planned, 0);
              result.data.apply.push(applied.wallMs);
              result.data.plan.push(planned.wallMs);
            },
            () => withService(async (service) => {
              const cliEnv = { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ESTATE_TOKEN };
              const applied = await runCli(["apply", "-f", dirs.desired, "--auto-approve"], cliEnv);
              check("converge apply", { code: applied.code, output: applied.stderr, wallMs: applied.wallMs }, 0);
              service.requests.reset();
              const planned = await runCli(["plan", "-f", dirs.desired], cliEnv);
              check("converge plan", { code: planned.code, output: planned.stderr + planned.stdout, wallMs: planned.wallMs }, 0);
              result.converge.apply.push(applied.wallMs);
              result.converge.plan.push(planned.wallMs);
              result.converge.planReads.push(reads(service));
            }),
          ];
          for (let k = 0; k < ways.length; k += 1) await ways[(k + round) % ways.length]!();
          process.stderr.write(`terraform-provider ${size.resources}: round ${round + 1}/${rounds}: provider apply ${Math.round(result.provider.apply.at(-1)!)} ms, plan ${Math.round(result.provider.plan.at(-1)!)} ms (${result.provider.planReads.at(-1)} reads); terraform_data ${Math.round(result.data.apply.at(-1)!)} / ${Math.round(result.data.plan.at(-1)!)} ms; ${OVERRIDDEN_PROVIDERS.map(({ label }, index) => `${label} ${Math.round(result.overridden[index]!.apply.at(-1)!)} / ${Math.round(result.overridden[index]!.plan.at(-1)!)} ms; `).join("")}converge ${Math.round(result.converge.apply.at(-1)!)} / ${Math.round(result.converge.plan.at(-1)!)} ms (${result.converge.planReads.at(-1)} reads)\n`);
        }
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }

    const ms = (values: number[]) => `${(median(values) / 1000).toFixed(2)} s`;
    const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
    const rows = results.flatMap(({ size, provider, overridden, data, converge }) => {
      const applyRatio = median(provider.apply) / median(data.apply);
      const planRatio = median(provider.plan) / median(data.plan);
      return [
        `| ${size.resources} | apply from empty | ${ms(provider.apply)} | ${ms(data.apply)} | ${ratio(provider.apply, data.apply)} (goal ≤ 1.5: ${applyRatio <= 1.5 ? "met" : "NOT met"}) | ${overridden.map((timed) => `${ms(timed.apply)} | `).join("")}${ms(converge.apply)} |`,
        `| ${size.resources} | no-change plan | ${ms(provider.plan)} | ${ms(data.plan)} | ${ratio(provider.plan, data.plan)} (goal ≤ 1.5: ${planRatio <= 1.5 ? "met" : "NOT met"}) | ${overridden.map((timed) => `${ms(timed.plan)} | `).join("")}${ms(converge.plan)} |`,
      ];
    });
    const readRows = results.map(({ size, provider, converge }) => {
      const ours = median(provider.planReads);
      const theirs = median(converge.planReads);
      return `| ${size.resources} | ${ours} | ${theirs} | ${ours <= theirs ? "met" : "NOT met"} |`;
    });
    const markdown = [
      "### Terraform provider: terraform apply and plan of routes and integrations",
      "",
      `Routes and integrations (half each, each route targeting its integration; 100 in one HTTP API, 1,000 over 4), against the embedded service in the bench process with no latency or throttle; ${rounds} rounds, the ways in rotating order, each from empty; medians. terraform_data: as many resources of terraform's built-in type (no provider process, no I/O). Protocol floor: the runtime serving the same schemas with all of the provider's own work taken out (test/bench/floor-provider.ts); packaged: the same, made a single executable as the release's is, padded to its size (test/bench/packaged-floor.ts).`,
      "",
      `| resources | run | converge provider | terraform_data | ratio | ${OVERRIDDEN_PROVIDERS.map(({ label }) => `${label} | `).join("")}converge CLI |`,
      `| --- | --- | --- | --- | --- | ${OVERRIDDEN_PROVIDERS.map(() => "--- | ").join("")}--- |`,
      ...rows,
      "",
      `Handshake: spawn to go-plugin's line on stdout, as terraform starts a provider; median of ${HANDSHAKES}, the ways in turn:`,
      "",
      "| way | handshake |",
      "| --- | --- |",
      ...HANDSHAKE_WAYS.map(({ label }, index) => `| ${label} | ${median(handshakes[index]!).toFixed(1)} ms |`),
      "",
      "Requests a no-change plan sends (reads; the provider's include its one GetApis):",
      "",
      "| resources | terraform plan with the provider | converge plan | provider ≤ converge |",
      "| --- | --- | --- | --- |",
      ...readRows,
      "",
    ].join("\n");
    return { markdown, data: { results, handshakes: HANDSHAKE_WAYS.map(({ label }, index) => ({ label, ms: handshakes[index] })) }, problems };
  },
};
