import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClients, Credentials } from "../../../src/clients/index.js";
import { DEMO_WORLD, startService, type RunningService } from "../../../src/service/index.js";
import { runProcess } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";
import { buildPairs, buildTerraformEstate, ESTATE_ACCOUNTS, ESTATE_APIS } from "../../export/terraform-estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli } from "../run-cli.js";
import { runTerraform, type TimedTerraform } from "../run-terraform.js";
import { median } from "../stats.js";

const TOKEN = "export-bench-token";

/** Items of the estate (test/export/terraform-estate.ts): 45 with no extra pair, two more per pair. */
const BASE_ITEMS = 45;
/** Pairs in the demo world's HTTP API, and in each further HTTP API (an API holds at most 300 routes). */
const SIZES = [{ items: 51, pairs: 3, apis: 0 }, { items: 1001, pairs: 78, apis: 2 }] as const;
const PAIRS_PER_EXTRA_API = 200;

const SCOPE = ["--api", ESTATE_APIS.http, "--api", ESTATE_APIS.websocket, "--account", "self", "--account", ESTATE_ACCOUNTS.member];

interface Series {
  export: number[];
  plan: number[];
  apply: number[];
  cleanPlan: number[];
}

/** The demo world with the bench's token, no throttle, and Region transitions of 50 ms. */
async function startEstateService(): Promise<RunningService> {
  return startService({
    port: 0,
    world: { ...DEMO_WORLD, identities: [...(DEMO_WORLD.identities ?? []), { token: TOKEN, accountId: ESTATE_ACCOUNTS.self, allow: ["*"] }], regionTransitionMs: 50, throttle: { ratePerSecond: 1_000_000, burst: 1_000_000 } },
    recordRequests: false,
  });
}

/**
 * Issue 26, "bring an estate under terraform": at about 50 and 1,000 live items (routes,
 * integrations, contacts, opt-in Regions), the whole round trip a user makes, timed step by step:
 * `converge export --format terraform`, `terraform plan` (only imports), `terraform apply` (the
 * imports; no write), and the next, clean `terraform plan`. Each round starts from no state.
 */
export const exportTerraform: BenchExperiment = {
  name: "export-terraform",
  description: "converge export --format terraform, then terraform plan / apply of the imports and a clean plan, at about 50 and 1,000 live items",
  async run({ rounds }) {
    const problems: string[] = [];
    const home = await mkdtemp(join(tmpdir(), "converge-bench-export-"));
    const results: Array<{ items: number; series: Series }> = [];
    try {
      const baseEnv = { PATH: process.env.PATH ?? "", HOME: home, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", TF_CLI_CONFIG_FILE: "/dev/null", CONVERGE_TOKEN: TOKEN };
      const install = await runProcess(process.execPath, [builtCliPath(), "provider", "install"], { env: baseEnv });
      if (install.code !== 0) throw new Error(`converge provider install exited ${install.code}: ${install.stderr}`);
      for (const size of SIZES) {
        const service = await startEstateService();
        const series: Series = { export: [], plan: [], apply: [], cleanPlan: [] };
        const extraApis: string[] = [];
        results.push({ items: size.items, series });
        try {
          const clients = createClients({ endpoint: service.url, credentials: new Credentials(TOKEN) });
          try {
            await buildTerraformEstate(clients, size.pairs);
            for (let n = 0; n < size.apis; n += 1) {
              const api = await clients.gateway.createApi({ name: `estate-${n}`, protocolType: "HTTP" });
              extraApis.push(api.apiId);
              await buildPairs(clients, api.apiId, PAIRS_PER_EXTRA_API, size.pairs + n * PAIRS_PER_EXTRA_API);
            }
          } finally {
            await clients.close();
          }
          const env = { ...baseEnv, CONVERGE_ENDPOINT: service.url };
          for (let round = 0; round < rounds; round += 1) {
            const dir = join(home, `estate-${size.items}-${round}`);
            const check = (what: string, timed: TimedTerraform, expected: number) => {
              if (timed.code !== expected) problems.push(`${size.items} items, round ${round + 1}: ${what} exited ${timed.code} (expected ${expected}): ${timed.output.slice(-400)}`);
            };
            const exported = await runCli(["export", ...SCOPE, ...extraApis.flatMap((apiId) => ["--api", apiId]), "--format", "terraform", "-o", dir], env);
            check("export", { code: exported.code, output: exported.stderr, wallMs: exported.wallMs }, 0);
            const init = await runTerraform(["init", "-input=false", "-no-color"], dir, env);
            check("init", init, 0);
            const plan = await runTerraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], dir, env);
            check("plan", plan, 2);
            if (!plan.output.includes(`Plan: ${size.items} to import, 0 to add, 0 to change, 0 to destroy.`)) problems.push(`${size.items} items: the plan is not ${size.items} imports only`);
            const apply = await runTerraform(["apply", "-auto-approve", "-input=false", "-no-color"], dir, env);
            check("apply", apply, 0);
            const clean = await runTerraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"], dir, env);
            check("clean plan", clean, 0);
            series.export.push(exported.wallMs);
            series.plan.push(plan.wallMs);
            series.apply.push(apply.wallMs);
            series.cleanPlan.push(clean.wallMs);
            process.stderr.write(`export-terraform ${size.items}: round ${round + 1}/${rounds}: export ${Math.round(exported.wallMs)} ms, plan ${Math.round(plan.wallMs)} ms, apply ${Math.round(apply.wallMs)} ms, clean plan ${Math.round(clean.wallMs)} ms\n`);
            await rm(dir, { recursive: true, force: true });
          }
        } finally {
          await service.close();
        }
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
    const s = (values: number[]) => `${(median(values) / 1000).toFixed(2)} s`;
    const rows = results.map(({ items, series }) => {
      const total = median(series.export) + median(series.plan) + median(series.apply) + median(series.cleanPlan);
      return `| ${items.toLocaleString("en-US")} | ${s(series.export)} | ${s(series.plan)} | ${s(series.apply)} | ${s(series.cleanPlan)} | ${(total / 1000).toFixed(2)} s |`;
    });
    const markdown = [
      "### Bringing an estate under terraform: export, plan, apply the imports",
      "",
      `A live estate (test/export/terraform-estate.ts: ${BASE_ITEMS} items of every kind, plus HTTP_PROXY integrations with a route each, over 1 and 3 HTTP APIs) on the embedded service in the bench process (no latency, no throttle); each round from no state: \`converge export --format terraform\`, \`terraform plan\` (imports only), \`terraform apply\`, the next \`terraform plan\` (no changes); ${rounds} rounds, medians (terraform init not counted).`,
      "",
      "| live items | export | plan (imports) | apply (imports) | clean plan | total |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n");
    return { markdown, data: results, problems };
  },
};
