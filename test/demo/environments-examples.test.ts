import { readFile, readdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { runCli, type CliResult } from "../support/cli.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, ENVIRONMENTS_DIR, environmentsWorld, useE2eResources } from "../e2e/e2e-fixture.js";
import type { WorkflowStep } from "./workflow-fixture.js";

/**
 * The CI matrices over environments (examples/ci-apply/apply-environments.yml,
 * examples/scheduled-drift/drift-environments.yml): they parse, each environment of their matrix
 * has its variable file in examples/environments, and the converge command of each step runs as
 * written (the step's line, with the matrix's values and the job's variables put in) against the
 * embedded service, through the real CLI.
 */

const EXAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples");

const { services, dirs } = useE2eResources();

interface Job {
  readonly environment?: string;
  readonly needs?: string;
  readonly concurrency?: { readonly group: string; readonly "cancel-in-progress": boolean };
  readonly strategy: { readonly "max-parallel"?: number; readonly matrix: { readonly environment: string[]; readonly shard?: number[] } };
  readonly env?: Record<string, string>;
  readonly steps: WorkflowStep[];
}
interface Workflow {
  readonly env: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

async function workflow(file: string): Promise<Workflow> {
  const text = await readFile(join(EXAMPLES, file), "utf8");
  const documents = parseAllDocuments(text);
  expect(documents, file).toHaveLength(1);
  expect(documents[0]!.errors.map((error) => error.message), file).toEqual([]);
  return parse(text) as Workflow;
}

/** The line of a step's script that runs converge. */
function convergeLine(job: Job, command: string): string {
  const lines = job.steps.flatMap((step) => (step.run ?? "").split("\n")).filter((line) => /(^|npx --no )converge /.test(line.trim()) && line.includes(command));
  expect(lines, `a line running converge ${command}`).toHaveLength(1);
  return lines[0]!.trim();
}

/**
 * A converge line as the runner's shell would run it: `${{ matrix.X }}` replaced, `$VAR` and
 * `"$VAR/…"` expanded from `env`, `> FILE` and `>> FILE` taken as where stdout goes. Only the shell
 * these examples use (words, double quotes, redirections) is read: anything else fails the test.
 */
function commandOf(line: string, matrix: Record<string, string | number>, env: Record<string, string>): { args: string[]; out?: { file: string; append: boolean } } {
  let text = line.replace(/^npx --no /, "");
  for (const [key, value] of Object.entries(matrix)) text = text.replaceAll(`\${{ matrix.${key} }}`, String(value));
  expect(text, "no other expression in a script: values come in through env").not.toContain("${{");
  const words = [...text.matchAll(/"([^"]*)"|(>>?)|(\S+)/g)].map((match) => ({ word: match[1] ?? match[3] ?? "", redirect: match[2] }));
  const expand = (word: string) => word.replace(/\$([A-Z_]+)/g, (_, name: string) => {
    expect(env[name], `$${name}`).toBeDefined();
    return env[name]!;
  });
  const args: string[] = [];
  let out: { file: string; append: boolean } | undefined;
  for (let index = 0; index < words.length; index += 1) {
    const { word, redirect } = words[index]!;
    if (redirect) {
      out = { file: expand(words[index + 1]!.word), append: redirect === ">>" };
      index += 1;
    } else {
      args.push(expand(word));
    }
  }
  expect(args[0]).toBe("converge");
  return { args: args.slice(1), ...(out ? { out } : {}) };
}

/** Runs a converge line in `workspace` through the real CLI, writing its stdout where the line sends it. */
async function runLine(line: string, matrix: Record<string, string | number>, env: Record<string, string>, service: RunningService, workspace: string): Promise<CliResult> {
  const { args, out } = commandOf(line, matrix, env);
  const result = await runCli(args, { cwd: workspace, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN } });
  if (out) await writeFile(resolve(workspace, out.file), result.stdout, { flag: out.append ? "a" : "w" });
  return result;
}

/** The jobs' variables as this machine has them: the examples' absolute paths for the workflow's relative ones. */
function localEnv(workflowEnv: Record<string, string>, workspace: string): Record<string, string> {
  expect(workflowEnv.DESIRED_STATE).toBe("examples/environments/desired-state");
  expect(workflowEnv.ENVIRONMENTS).toBe("examples/environments/envs");
  return { DESIRED_STATE: join(ENVIRONMENTS_DIR, "desired-state"), ENVIRONMENTS: join(ENVIRONMENTS_DIR, "envs"), GITHUB_STEP_SUMMARY: join(workspace, "summary.md") };
}

describe("examples/ci-apply/apply-environments.yml", () => {
  it("plans and applies each environment of its matrix in the GitHub environment of its name, with its variable file", async () => {
    const job = (await workflow("ci-apply/apply-environments.yml")).jobs.apply!;
    expect(job.strategy.matrix.environment).toEqual(["dev", "prod"]);
    expect(job.strategy["max-parallel"]).toBe(1);
    expect(job.environment).toBe("${{ matrix.environment }}");
    expect(job.concurrency).toEqual({ group: "converge-apply-${{ matrix.environment }}", "cancel-in-progress": false });
    expect((await readdir(join(ENVIRONMENTS_DIR, "envs"))).sort()).toEqual(job.strategy.matrix.environment.map((environment) => `${environment}.yaml`).sort());
    expect(convergeLine(job, "plan ")).toContain('--var-file "$ENVIRONMENTS/${{ matrix.environment }}.yaml" --out plan-${{ matrix.environment }}.json');
    const apply = job.steps.find((step) => step.run?.includes("converge apply"))!;
    expect(apply.run).toBe("converge apply plan-${{ matrix.environment }}.json --auto-approve");
    expect(apply.if).toBe("steps.plan.outputs.exit-code == '2'");
  });

  it("runs as written: each environment's plan records its file, its apply names it, and a second run plans no change", { timeout: E2E_TIMEOUT_MS * 2 }, async () => {
    const parsed = await workflow("ci-apply/apply-environments.yml");
    const job = parsed.jobs.apply!;
    const service = await services.start(environmentsWorld());
    for (const round of [1, 2]) {
      for (const environment of job.strategy.matrix.environment) {
        const workspace = await dirs.make(`apply-${environment}`);
        const env = localEnv(parsed.env, workspace);
        const plan = await runLine(convergeLine(job, "plan "), { environment }, env, service, workspace);
        expect(plan.code, plan.stderr).toBe(round === 1 ? 2 : 0);
        if (round === 2) continue;
        expect(await readFile(env.GITHUB_STEP_SUMMARY!, "utf8")).toMatch(/^### converge plan\n/);
        const applied = await runLine(convergeLine(job, "apply "), { environment }, env, service, workspace);
        expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
        expect(applied.stdout).toMatch(new RegExp(`plan-${environment}\\.json was made with variable files \\S*envs/${environment}\\.yaml; `));
        expect(applied.stdout).toContain("Apply complete:");
      }
    }
  });
});

describe("examples/scheduled-drift/drift-environments.yml", () => {
  it("checks each environment in shards with its variable file, and merges the shards of each environment apart", async () => {
    const parsed = await workflow("scheduled-drift/drift-environments.yml");
    const drift = parsed.jobs.drift!;
    expect(drift.strategy.matrix).toEqual({ environment: ["dev", "prod"], shard: [1, 2] });
    expect(drift.environment).toBe("${{ matrix.environment }}");
    expect(convergeLine(drift, "drift ")).toContain('--var-file "$ENVIRONMENTS/${{ matrix.environment }}.yaml" --shard ${{ matrix.shard }}/2');
    const report = parsed.jobs.report!;
    expect(report.needs).toBe("drift");
    expect(report.strategy.matrix.environment).toEqual(["dev", "prod"]);
    expect(report.steps.find((step) => step.uses?.startsWith("actions/download-artifact@"))?.with).toMatchObject({ pattern: "drift-${{ matrix.environment }}-*" });
  });

  it("runs as written: every shard of every environment in sync after an apply, each environment's reports merged", { timeout: E2E_TIMEOUT_MS * 2 }, async () => {
    const parsed = await workflow("scheduled-drift/drift-environments.yml");
    const service = await services.start(environmentsWorld());
    const workspace = await dirs.make("drift-environments");
    const env = localEnv(parsed.env, workspace);
    for (const environment of ["dev", "prod"]) {
      const applied = await runCli(["apply", "-f", env.DESIRED_STATE!, "--var-file", join(env.ENVIRONMENTS!, `${environment}.yaml`), "--auto-approve"],
        { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN } });
      expect(applied.code, applied.stderr).toBe(0);
    }
    const { environment: environments, shard: shards } = parsed.jobs.drift!.strategy.matrix;
    for (const environment of environments) {
      for (const shard of shards!) {
        const result = await runLine(convergeLine(parsed.jobs.drift!, "drift "), { environment, shard }, env, service, workspace);
        expect(result.code, result.stderr).toBe(0);
      }
    }
    for (const environment of environments) {
      const merge = convergeLine(parsed.jobs.report!, "drift-merge ").replace(`drift-\${{ matrix.environment }}-*.json`, `drift-${environment}-1.json drift-${environment}-2.json`);
      const merged = await runLine(merge, { environment }, env, service, workspace);
      expect(merged.code, merged.stderr).toBe(0);
      const report = JSON.parse(await readFile(join(workspace, `drift-${environment}.json`), "utf8")) as { variables: { files: string[] }; summary: { "in-sync": number } };
      expect(report.variables.files).toEqual([expect.stringMatching(new RegExp(`envs/${environment}\\.yaml$`))]);
      expect(report.summary["in-sync"]).toBe(7);
    }
  });
});
