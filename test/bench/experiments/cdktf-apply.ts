import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { AlternateContact, ConvergeConfig, Integration, Route, type Vehicle } from "../../../constructs/index.js";
import { installProvider } from "../../../src/cli/provider-install.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { ACCOUNTS, APIS, ESTATE_TOKEN, MANAGEMENT, estateWorld } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runTerraform } from "../run-terraform.js";
import { runCli } from "../run-cli.js";
import { builtCliPath } from "../../support/serve-process.js";
import { median } from "../stats.js";

const CONTACTS = 40;
const CONTACT_TYPES = ["BILLING", "OPERATIONS", "SECURITY"] as const;

/** The stack sizes measured: 40 contacts, then integrations and the routes that target them, spread over HTTP APIs. */
const SIZES = [
  { resources: 100, apis: 1, perApi: 30 },
  { resources: 1000, apis: 4, perApi: 120 },
] as const;
type Size = (typeof SIZES)[number];

/** `size.resources` resources: 40 contacts over 14 accounts, and per API `perApi` integrations with a route targeting each. */
function buildStack(stack: TerraformStack, size: Size): void {
  for (let i = 0; i < CONTACTS; i += 1) {
    const account = ACCOUNTS[Math.floor(i / CONTACT_TYPES.length)]!;
    const type = CONTACT_TYPES[i % CONTACT_TYPES.length]!;
    new AlternateContact(stack, `contact-${i}`, {
      ...(account === MANAGEMENT ? {} : { account }),
      type,
      name: `${type.toLowerCase()} team ${i}`,
      title: `${type.toLowerCase()} lead`,
      emailAddress: `${type.toLowerCase()}-${i}@example.com`,
      phoneNumber: `+1 555 ${String(i).padStart(4, "0")}`,
    });
  }
  for (let a = 0; a < size.apis; a += 1) {
    const apiId = APIS[a]!.apiId;
    for (let i = 0; i < size.perApi; i += 1) {
      const integration = new Integration(stack, `api-${a}-backend-${i}`, {
        api: apiId,
        integrationType: "HTTP_PROXY",
        integrationUri: `https://svc-${i}.internal.example/api`,
        integrationMethod: "ANY",
        payloadFormatVersion: "1.0",
        timeoutInMillis: 5000 + i,
      });
      new Route(stack, `api-${a}-route-${i}`, { api: apiId, routeKey: `GET /resource-${i}/{id}`, target: integration });
    }
  }
}

/** The vehicles measured: the CLI vehicle that needs no download (null_resource's hashicorp/null cannot be downloaded here), and converge's own provider. */
const VEHICLES = ["terraform_data", "provider"] as const satisfies ReadonlyArray<Vehicle>;
type MeasuredVehicle = (typeof VEHICLES)[number];

/** Synthesizes the stack with `vehicle` into `directory` for `service`; returns the stack's directory and the synth's time. */
function synth(directory: string, service: RunningService, size: Size, vehicle: MeasuredVehicle): { stackDir: string; synthMs: number } {
  const started = performance.now();
  const app = new App({ outdir: join(directory, "cdktf.out") });
  const stack = new TerraformStack(app, "bench");
  const stackDir = join(directory, "cdktf.out", "stacks", "bench");
  new LocalBackend(stack, { path: join(stackDir, "terraform.tfstate") });
  new ConvergeConfig(stack, "converge", vehicle === "provider" ? { vehicle, endpoint: service.url } : { vehicle, endpoint: service.url, cli: `${process.execPath} ${builtCliPath()}` });
  buildStack(stack, size);
  app.synth();
  return { stackDir, synthMs: performance.now() - started };
}

interface VehicleResult {
  readonly synthMs: number[];
  readonly initMs: number[];
  readonly deployMs: number[];
  readonly noChangeDeployMs: number[];
  readonly deployWrites: number[];
  /** Requests of the no-change deploy (reads: the provider refreshes every resource; the CLI vehicles send none). */
  readonly noChangeRequests: number[];
}

interface SizeResult {
  readonly resources: number;
  readonly vehicles: Readonly<Record<MeasuredVehicle, VehicleResult>>;
  readonly applyMs: number[];
  readonly noChangePlanMs: number[];
  readonly applyWrites: number[];
}

const emptyVehicleResult = (): VehicleResult => ({ synthMs: [], initMs: [], deployMs: [], noChangeDeployMs: [], deployWrites: [], noChangeRequests: [] });

/**
 * Issue "cdktf deploy at the engine's speed", and issue "cdktf and cdktn" (which vehicle should be
 * the default): for a stack of 100 and one of 1,000 resources, in the same run, `terraform apply` of
 * the stack synthesized with the terraform_data vehicle and with the provider vehicle, each from
 * empty on a fresh service, against `converge apply -f converge.desired.json` of the same state on a
 * fresh service; then a no-change `terraform apply` of each against a no-change `converge plan`.
 */
export const cdktfApply: BenchExperiment = {
  name: "cdktf-apply",
  description: "terraform apply of synthesized cdktf stacks (100 and 1,000 resources) with the terraform_data and the provider vehicle, from empty and with no change, vs converge apply / plan of the same desired state",
  async run({ rounds }) {
    const problems: string[] = [];
    const results: SizeResult[] = [];
    for (const size of SIZES) {
      const result: SizeResult = { resources: size.resources, vehicles: { terraform_data: emptyVehicleResult(), provider: emptyVehicleResult() }, applyMs: [], noChangePlanMs: [], applyWrites: [] };
      results.push(result);
      for (let round = 0; round < rounds; round += 1) {
        const directory = await mkdtemp(join(tmpdir(), "converge-bench-cdktf-"));
        const viaConverge = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: true });
        const label = `cdktf-apply ${size.resources}: round ${round + 1}/${rounds}`;
        try {
          const cliConfig = join(directory, "terraformrc");
          await writeFile(cliConfig, "");
          // converge's provider in terraform's implied local mirror of this HOME, as `converge provider install` puts it
          installProvider({ env: { HOME: directory }, wrapper: true });
          const env = { PATH: process.env.PATH ?? "", HOME: directory, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", CONVERGE_TOKEN: ESTATE_TOKEN };
          const line: string[] = [];
          let desiredFile = "";
          for (const vehicle of VEHICLES) {
            const measured = result.vehicles[vehicle];
            const service = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: true });
            try {
              await mkdir(join(directory, vehicle));
              const { stackDir, synthMs } = synth(join(directory, vehicle), service, size, vehicle);
              desiredFile = join(stackDir, "converge.desired.json");
              measured.synthMs.push(synthMs);
              const init = await runTerraform(["init", "-input=false", "-no-color"], stackDir, env);
              if (init.code !== 0) throw new Error(`${vehicle}: terraform init exited ${init.code}: ${init.output.slice(-600)}`);
              measured.initMs.push(init.wallMs);

              const deployed = await runTerraform(["apply", "-auto-approve", "-input=false", "-no-color"], stackDir, env);
              if (deployed.code !== 0) problems.push(`${label}: ${vehicle}: terraform apply exited ${deployed.code}: ${deployed.output.slice(-600)}`);
              measured.deployMs.push(deployed.wallMs);
              measured.deployWrites.push(service.requests.count({ writesOnly: true }));

              service.requests.reset();
              const again = await runTerraform(["apply", "-auto-approve", "-input=false", "-no-color"], stackDir, env);
              if (again.code !== 0 || !/No changes\./.test(again.output)) problems.push(`${label}: ${vehicle}: the no-change terraform apply exited ${again.code} without "No changes."`);
              if (service.requests.count({ writesOnly: true }) !== 0) problems.push(`${label}: ${vehicle}: the no-change terraform apply sent ${service.requests.count({ writesOnly: true })} writes`);
              if (vehicle !== "provider" && service.requests.count() !== 0) problems.push(`${label}: ${vehicle}: the no-change terraform apply sent ${service.requests.count()} requests`);
              measured.noChangeDeployMs.push(again.wallMs);
              measured.noChangeRequests.push(service.requests.count());
              line.push(`${vehicle}: synth ${Math.round(synthMs)} ms, init ${Math.round(init.wallMs)} ms, apply ${Math.round(deployed.wallMs)} ms (${measured.deployWrites.at(-1)} writes), no-change apply ${Math.round(again.wallMs)} ms (${measured.noChangeRequests.at(-1)} requests)`);
            } finally {
              await service.close();
            }
          }

          const cliEnv = { CONVERGE_ENDPOINT: viaConverge.url, CONVERGE_TOKEN: ESTATE_TOKEN };
          const applied = await runCli(["apply", "-f", desiredFile, "--auto-approve"], cliEnv);
          if (applied.code !== 0) problems.push(`${label}: converge apply exited ${applied.code}: ${applied.stderr.slice(0, 400)}`);
          result.applyMs.push(applied.wallMs);
          result.applyWrites.push(viaConverge.requests.count({ writesOnly: true }));
          for (const vehicle of VEHICLES) {
            if (result.vehicles[vehicle].deployWrites.at(-1) !== result.applyWrites.at(-1)) problems.push(`${label}: ${vehicle} made ${result.vehicles[vehicle].deployWrites.at(-1)} writes, converge ${result.applyWrites.at(-1)}: expected the same`);
          }
          const planned = await runCli(["plan", "-f", desiredFile], cliEnv);
          if (planned.code !== 0) problems.push(`${label}: the no-change converge plan exited ${planned.code}`);
          result.noChangePlanMs.push(planned.wallMs);
          process.stderr.write(`${label}: ${line.join("; ")}; converge apply ${Math.round(applied.wallMs)} ms (${result.applyWrites.at(-1)} writes), converge plan ${Math.round(planned.wallMs)} ms\n`);
        } finally {
          await viaConverge.close();
          await rm(directory, { recursive: true, force: true });
        }
      }
    }
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const ratio = (a: number[], b: number[]) => `${(median(a) / median(b)).toFixed(2)}×`;
    const rows = results.flatMap((r) => {
      const { terraform_data: data, provider } = r.vehicles;
      const n = r.resources.toLocaleString("en-US");
      return [
        `| ${n} | deploy from empty | ${s(median(data.deployMs))} | ${s(median(provider.deployMs))} | apply ${s(median(r.applyMs))} | **${ratio(data.deployMs, r.applyMs)}** | **${ratio(provider.deployMs, r.applyMs)}** | **${ratio(provider.deployMs, data.deployMs)}** | ${median(data.deployWrites)} / ${median(provider.deployWrites)} / ${median(r.applyWrites)} |`,
        `| ${n} | no-change deploy | ${s(median(data.noChangeDeployMs))} | ${s(median(provider.noChangeDeployMs))} | plan ${s(median(r.noChangePlanMs))} | **${ratio(data.noChangeDeployMs, r.noChangePlanMs)}** | **${ratio(provider.noChangeDeployMs, r.noChangePlanMs)}** | **${ratio(provider.noChangeDeployMs, data.noChangeDeployMs)}** | 0 / 0 / 0 (requests: ${median(data.noChangeRequests)} / ${median(provider.noChangeRequests)}) |`,
      ];
    });
    const others = (pick: (v: VehicleResult) => number[]) => results.map((r) => `${r.resources.toLocaleString("en-US")}: ${VEHICLES.map((vehicle) => `${vehicle} ${s(median(pick(r.vehicles[vehicle])))}`).join(", ")}`).join("; ");
    const markdown = [
      "### cdktf: terraform apply of a synthesized stack, by vehicle, vs converge of the same desired state",
      "",
      `Stacks of 100 resources (40 alternate contacts over 14 accounts, one HTTP API with 30 integrations and 30 routes targeting them) and 1,000 resources (the contacts, 4 HTTP APIs with 120 integrations and 120 routes each), synthesized in-process with cdktf, once with the terraform_data vehicle (3 terraform resources per stack) and once with the provider vehicle (one \`converge_*\` resource per construct). \`terraform apply\` of each from empty, each on a fresh embedded service without latency, against \`converge apply -f converge.desired.json\` of the same stack on a fresh service; then a no-change \`terraform apply\` of each against a no-change \`converge plan\`. ${rounds} rounds in the same run; medians.`,
      "",
      "| resources | case | terraform_data | provider | converge | terraform_data / converge | provider / converge | provider / terraform_data | writes (terraform_data / provider / converge) |",
      "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
      ...rows,
      "",
      `Not in the ratios: the in-process synth (${others((v) => v.synthMs)}) and \`terraform init\` (${others((v) => v.initMs)}), which \`cdktf deploy\` adds.`,
      "",
    ].join("\n");
    return { markdown, data: { results }, problems };
  },
};
