import { runProcess } from "../../support/run-process.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { AlternateContact, ConvergeConfig, Integration, Route } from "../../../constructs/index.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { ACCOUNTS, APIS, ESTATE_TOKEN, MANAGEMENT, estateWorld } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli } from "../run-cli.js";
import { builtCliPath } from "../../support/serve-process.js";
import { median } from "../stats.js";

const CONTACTS = 40;
const INTEGRATIONS = 30;
const CONTACT_TYPES = ["BILLING", "OPERATIONS", "SECURITY"] as const;
const TERRAFORM = process.env.TERRAFORM ?? "terraform";

/** 40 contacts over 14 accounts, and one HTTP API with 30 integrations and 30 routes targeting them: 100 resources. */
function buildStack(stack: TerraformStack): void {
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
  const apiId = APIS[0]!.apiId;
  for (let i = 0; i < INTEGRATIONS; i += 1) {
    const integration = new Integration(stack, `backend-${i}`, {
      api: apiId,
      integrationType: "HTTP_PROXY",
      integrationUri: `https://svc-${i}.internal.example/api`,
      integrationMethod: "ANY",
      payloadFormatVersion: "1.0",
      timeoutInMillis: 5000 + i,
    });
    new Route(stack, `route-${i}`, { api: apiId, routeKey: `GET /resource-${i}/{id}`, target: integration });
  }
}

interface Run {
  readonly code: number | null;
  readonly output: string;
  readonly wallMs: number;
}

async function terraform(args: ReadonlyArray<string>, cwd: string, env: Record<string, string>): Promise<Run> {
  const { code, stdout, stderr, wallMs } = await runProcess(TERRAFORM, args, { cwd, env });
  return { code, output: stdout + stderr, wallMs };
}

/** Synthesizes the stack into `directory` for `service`; returns the stack's directory. */
function synth(directory: string, service: RunningService): string {
  const app = new App({ outdir: join(directory, "cdktf.out") });
  const stack = new TerraformStack(app, "bench");
  const stackDir = join(directory, "cdktf.out", "stacks", "bench");
  new LocalBackend(stack, { path: join(stackDir, "terraform.tfstate") });
  new ConvergeConfig(stack, "converge", { vehicle: "terraform_data", endpoint: service.url, cli: `${process.execPath} ${builtCliPath()}` });
  buildStack(stack);
  app.synth();
  return stackDir;
}

/**
 * Issue "cdktf constructs": `terraform apply` of a synthesized 100-resource stack (terraform_data
 * vehicle: one CLI run per resource, in terraform's dependency order) against `converge apply` of
 * the same desired state (converge.desired.json) in one process, each against a fresh service, in
 * the same run.
 */
export const cdktfApply: BenchExperiment = {
  name: "cdktf-apply",
  description: "terraform apply of a synthesized 100-resource cdktf stack vs converge apply of the same desired state",
  async run({ rounds }) {
    const problems: string[] = [];
    const terraformMs: number[] = [];
    const convergeMs: number[] = [];
    const terraformWrites: number[] = [];
    const convergeWrites: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const directory = await mkdtemp(join(tmpdir(), "converge-bench-cdktf-"));
      const viaTerraform = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: true });
      const viaConverge = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }), recordRequests: true });
      try {
        const stackDir = synth(directory, viaTerraform);
        const cliConfig = join(directory, "terraformrc");
        await writeFile(cliConfig, "");
        const env = { PATH: process.env.PATH ?? "", HOME: directory, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", CONVERGE_TOKEN: ESTATE_TOKEN };
        const init = await terraform(["init", "-input=false", "-no-color"], stackDir, env);
        if (init.code !== 0) throw new Error(`terraform init exited ${init.code}: ${init.output.slice(-600)}`);
        const applied = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], stackDir, env);
        if (applied.code !== 0) problems.push(`round ${round + 1}: terraform apply exited ${applied.code}: ${applied.output.slice(-600)}`);
        terraformMs.push(applied.wallMs);
        terraformWrites.push(viaTerraform.requests.count({ writesOnly: true }));

        const cli = await runCli(["apply", "-f", join(stackDir, "converge.desired.json"), "--auto-approve"], { CONVERGE_ENDPOINT: viaConverge.url, CONVERGE_TOKEN: ESTATE_TOKEN });
        if (cli.code !== 0) problems.push(`round ${round + 1}: converge apply exited ${cli.code}: ${cli.stderr.slice(0, 400)}`);
        convergeMs.push(cli.wallMs);
        convergeWrites.push(viaConverge.requests.count({ writesOnly: true }));
        if (terraformWrites.at(-1) !== convergeWrites.at(-1)) problems.push(`round ${round + 1}: terraform made ${terraformWrites.at(-1)} writes, converge ${convergeWrites.at(-1)}: expected the same`);
        process.stderr.write(`cdktf-apply: round ${round + 1}/${rounds}: terraform apply ${Math.round(applied.wallMs)} ms (${terraformWrites.at(-1)} writes), converge apply ${Math.round(cli.wallMs)} ms (${convergeWrites.at(-1)} writes)\n`);
      } finally {
        await viaTerraform.close();
        await viaConverge.close();
        await rm(directory, { recursive: true, force: true });
      }
    }
    const tf = median(terraformMs);
    const cv = median(convergeMs);
    const markdown = [
      "### cdktf: terraform apply vs converge apply of a 100-resource stack",
      "",
      `40 alternate contacts over 14 accounts and one HTTP API with ${INTEGRATIONS} integrations and ${INTEGRATIONS} routes targeting them (100 resources), synthesized with the terraform_data vehicle; \`terraform apply\` (default parallelism 10; each document resource runs the converge CLI once, routes after their integrations) against \`converge apply -f converge.desired.json\` of the same stack, each against a fresh embedded service without latency, ${rounds} rounds in the same run.`,
      "",
      "| measure | terraform apply | converge apply |",
      "| --- | --- | --- |",
      `| wall time (median) | ${(tf / 1000).toFixed(1)} s | ${(cv / 1000).toFixed(2)} s |`,
      `| write requests | ${median(terraformWrites)} | ${median(convergeWrites)} |`,
      `| ratio | ${(tf / cv).toFixed(1)}× converge's time | 1 |`,
      "",
      `Per round — terraform ms: ${terraformMs.map(Math.round).join(" / ")}; converge ms: ${convergeMs.map(Math.round).join(" / ")}.`,
      "",
    ].join("\n");
    return { markdown, data: { terraformMs, convergeMs, terraformWrites, convergeWrites, ratio: tf / cv }, problems };
  },
};
