import { runProcess } from "../../support/run-process.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { AlternateContact, ConvergeConfig, Integration, Route } from "../../../constructs/index.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { ACCOUNTS, APIS, ESTATE_TOKEN, MANAGEMENT, estateWorld } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli } from "../run-cli.js";
import { builtCliPath } from "../../support/serve-process.js";
import { median } from "../stats.js";

const CONTACTS = 40;
const CONTACT_TYPES = ["BILLING", "OPERATIONS", "SECURITY"] as const;
const TERRAFORM = process.env.TERRAFORM ?? "terraform";

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

interface Timed {
  readonly code: number | null;
  readonly output: string;
  readonly wallMs: number;
}

async function terraform(args: ReadonlyArray<string>, cwd: string, env: Record<string, string>): Promise<Timed> {
  const { code, stdout, stderr, wallMs } = await runProcess(TERRAFORM, args, { cwd, env, timeoutMs: 600_000 });
  return { code, output: stdout + stderr, wallMs };
}

/** Synthesizes the stack into `directory` for `service`; returns the stack's directory and the synth's time. */
function synth(directory: string, service: RunningService, size: Size): { stackDir: string; synthMs: number } {
  const started = performance.now();
  const app = new App({ outdir: join(directory, "cdktf.out") });
  const stack = new TerraformStack(app, "bench");
  const stackDir = join(directory, "cdktf.out", "stacks", "bench");
  new LocalBackend(stack, { path: join(stackDir, "terraform.tfstate") });
  new ConvergeConfig(stack, "converge", { vehicle: "terraform_data", endpoint: service.url, cli: `${process.execPath} ${builtCliPath()}` });
  buildStack(stack, size);
  app.synth();
  return { stackDir, synthMs: performance.now() - started };
}

interface SizeResult {
  readonly resources: number;
  readonly synthMs: number[];
  readonly initMs: number[];
  readonly deployMs: number[];
  readonly applyMs: number[];
  readonly noChangeDeployMs: number[];
  readonly noChangePlanMs: number[];
  readonly deployWrites: number[];
  readonly applyWrites: number[];
}

/**
 * Issue "cdktf deploy at the engine's speed": for a stack of 100 and one of 1,000 resources, in the
 * same run, `terraform apply` of the synthesized stack from empty against `converge apply -f
 * converge.desired.json` of the same state on a fresh service, and a no-change `terraform apply`
 * against a no-change `converge plan`.
 */
export const cdktfApply: BenchExperiment = {
  name: "cdktf-apply",
  description: "terraform apply of synthesized cdktf stacks (100 and 1,000 resources), from empty and with no change, vs converge apply / plan of the same desired state",
  async run({ rounds }) {
    const problems: string[] = [];
    const results: SizeResult[] = [];
    for (const size of SIZES) {
      const result: SizeResult = { resources: size.resources, synthMs: [], initMs: [], deployMs: [], applyMs: [], noChangeDeployMs: [], noChangePlanMs: [], deployWrites: [], applyWrites: [] };
      results.push(result);
      for (let round = 0; round < rounds; round += 1) {
        const directory = await mkdtemp(join(tmpdir(), "converge-bench-cdktf-"));
        const viaTerraform = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: true });
        const viaConverge = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: true });
        const label = `cdktf-apply ${size.resources}: round ${round + 1}/${rounds}`;
        try {
          const { stackDir, synthMs } = synth(directory, viaTerraform, size);
          result.synthMs.push(synthMs);
          const cliConfig = join(directory, "terraformrc");
          await writeFile(cliConfig, "");
          const env = { PATH: process.env.PATH ?? "", HOME: directory, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", CONVERGE_TOKEN: ESTATE_TOKEN };
          const init = await terraform(["init", "-input=false", "-no-color"], stackDir, env);
          if (init.code !== 0) throw new Error(`terraform init exited ${init.code}: ${init.output.slice(-600)}`);
          result.initMs.push(init.wallMs);

          const deployed = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], stackDir, env);
          if (deployed.code !== 0) problems.push(`${label}: terraform apply exited ${deployed.code}: ${deployed.output.slice(-600)}`);
          result.deployMs.push(deployed.wallMs);
          result.deployWrites.push(viaTerraform.requests.count({ writesOnly: true }));

          const cliEnv = { CONVERGE_ENDPOINT: viaConverge.url, CONVERGE_TOKEN: ESTATE_TOKEN };
          const applied = await runCli(["apply", "-f", join(stackDir, "converge.desired.json"), "--auto-approve"], cliEnv);
          if (applied.code !== 0) problems.push(`${label}: converge apply exited ${applied.code}: ${applied.stderr.slice(0, 400)}`);
          result.applyMs.push(applied.wallMs);
          result.applyWrites.push(viaConverge.requests.count({ writesOnly: true }));
          if (result.deployWrites.at(-1) !== result.applyWrites.at(-1)) problems.push(`${label}: terraform made ${result.deployWrites.at(-1)} writes, converge ${result.applyWrites.at(-1)}: expected the same`);

          viaTerraform.requests.reset();
          const again = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], stackDir, env);
          if (again.code !== 0 || !/No changes\./.test(again.output)) problems.push(`${label}: the no-change terraform apply exited ${again.code} without "No changes."`);
          if (viaTerraform.requests.count() !== 0) problems.push(`${label}: the no-change terraform apply sent ${viaTerraform.requests.count()} requests`);
          result.noChangeDeployMs.push(again.wallMs);
          const planned = await runCli(["plan", "-f", join(stackDir, "converge.desired.json")], cliEnv);
          if (planned.code !== 0) problems.push(`${label}: the no-change converge plan exited ${planned.code}`);
          result.noChangePlanMs.push(planned.wallMs);
          process.stderr.write(`${label}: synth ${Math.round(synthMs)} ms, init ${Math.round(init.wallMs)} ms, terraform apply ${Math.round(deployed.wallMs)} ms vs converge apply ${Math.round(applied.wallMs)} ms (${result.applyWrites.at(-1)} writes); no change: terraform apply ${Math.round(again.wallMs)} ms vs converge plan ${Math.round(planned.wallMs)} ms\n`);
        } finally {
          await viaTerraform.close();
          await viaConverge.close();
          await rm(directory, { recursive: true, force: true });
        }
      }
    }
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const ratio = (a: number[], b: number[]) => median(a) / median(b);
    const rows = results.flatMap((r) => [
      `| ${r.resources.toLocaleString("en-US")} | deploy from empty | ${s(median(r.deployMs))} | converge apply ${s(median(r.applyMs))} | **${ratio(r.deployMs, r.applyMs).toFixed(2)}×** | ≤ ${r.resources === 100 ? 3 : 2}× | ${median(r.deployWrites)} / ${median(r.applyWrites)} |`,
      `| ${r.resources.toLocaleString("en-US")} | no-change deploy | ${s(median(r.noChangeDeployMs))} | converge plan ${s(median(r.noChangePlanMs))} | **${ratio(r.noChangeDeployMs, r.noChangePlanMs).toFixed(2)}×** | ≤ 2× | 0 / 0 |`,
    ]);
    const markdown = [
      "### cdktf: terraform apply of a synthesized stack vs converge of the same desired state",
      "",
      `Stacks of 100 resources (40 alternate contacts over 14 accounts, one HTTP API with 30 integrations and 30 routes targeting them) and 1,000 resources (the contacts, 4 HTTP APIs with 120 integrations and 120 routes each), synthesized in-process with cdktf and the terraform_data vehicle (3 terraform resources per stack, whatever its size). \`terraform apply\` from empty (one converge run) against \`converge apply -f converge.desired.json\` of the same stack on a fresh embedded service without latency; then a no-change \`terraform apply\` (no converge run, no request) against a no-change \`converge plan\`. ${rounds} rounds in the same run; medians.`,
      "",
      "| resources | case | terraform apply | converge | ratio | goal | writes (terraform / converge) |",
      "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
      ...rows,
      "",
      `Not in the ratios: the in-process synth (${results.map((r) => `${r.resources.toLocaleString("en-US")}: ${s(median(r.synthMs))}`).join(", ")}) and \`terraform init\` (${results.map((r) => `${s(median(r.initMs))}`).join(", ")}), which \`cdktf deploy\` adds to both.`,
      "",
    ].join("\n");
    return { markdown, data: { results }, problems };
  },
};
