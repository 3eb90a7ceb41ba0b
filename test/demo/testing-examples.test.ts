import { cp, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlClient, collect, createClients, Credentials } from "../../src/clients/index.js";
import { convergeCommandLine, PACKAGE_ROOT } from "../support/converge-command.js";
import { runProcess, type ProcessResult } from "../support/run-process.js";
import { describeTerraform, installProvider, TerraformDir, type ProviderHome } from "../provider/terraform-fixture.js";
import { startTestService } from "../../src/testing/index.js";
import { TempDirs } from "../e2e/e2e-fixture.js";
import type { WorkflowStep } from "./workflow-fixture.js";

/**
 * examples/testing: the GitHub Actions workflow parses and starts the released converge as the test
 * double in each job, and its steps run as written under bash (converge on PATH being the converge the
 * tests run: the release's executable in the packaged project) — `converge serve` started in the
 * background, `terraform test` of the HCL module with converge's provider (its six runs: assertions,
 * a 429 injected through the control interface and retried, the journal read back, teardown), and
 * the SDK code's vitest suite, each test file in an isolated world. The steps that download the
 * release and set up terraform are what installProvider and the test's PATH stand for here.
 */

const TESTING_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/testing");
const TIMEOUT_MS = 300_000;

interface Job {
  readonly steps: WorkflowStep[];
}
interface Workflow {
  readonly env: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

async function workflow(): Promise<Workflow> {
  const text = await readFile(join(TESTING_DIR, "github-actions.yml"), "utf8");
  const documents = parseAllDocuments(text);
  expect(documents).toHaveLength(1);
  expect(documents[0]!.errors.map((error) => error.message)).toEqual([]);
  return parse(text) as Workflow;
}

/** The step that stops converge serve, whatever happened before it. */
function stopStep(job: Job): WorkflowStep {
  const step = job.steps.find((candidate) => candidate.if === "always()" && candidate.run?.includes("kill "));
  expect(step, "a step that stops converge serve").toBeDefined();
  return step!;
}

function stepRunning(job: Job, command: string): WorkflowStep {
  const step = job.steps.find((candidate) => candidate.run?.includes(command));
  expect(step, `a step running ${command}`).toBeDefined();
  return step!;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const dirs = new TempDirs();
let provider: ProviderHome | undefined;
afterAll(async () => {
  provider?.remove();
  await dirs.cleanup();
});

describe("examples/testing/github-actions.yml", () => {
  it("starts the released converge serve in each job, ready before the tests run, stopped whatever happens", async () => {
    const parsed = await workflow();
    expect(Object.keys(parsed.jobs).sort()).toEqual(["sdk-tests", "terraform-test"]);
    for (const [name, job] of Object.entries(parsed.jobs)) {
      const install = stepRunning(job, "converge_${CONVERGE_VERSION}_linux_amd64.zip");
      expect(install.run, name).toContain("sha256sum -c -");
      const start = stepRunning(job, "converge serve --port 0");
      expect(start.run, name).toContain('echo "::add-mask::$token"');
      expect(start.run, name).toContain('curl -fsS "$endpoint/_converge/health"');
      const tests = job.steps.findIndex((step) => /terraform -chdir="\$TF_MODULE" test|npx vitest run/.test(step.run ?? ""));
      const stop = job.steps.indexOf(stopStep(job));
      expect([job.steps.indexOf(install), job.steps.indexOf(start), tests, stop].every((index, i, all) => index >= 0 && (i === 0 || index > all[i - 1]!)), name).toBe(true);
      expect(job.steps.some((step) => step.uses?.startsWith("docker") || step.run?.includes("docker ")), name).toBe(false);
    }
    // the same start in both jobs
    expect(stepRunning(parsed.jobs["sdk-tests"]!, "converge serve").run).toBe(stepRunning(parsed.jobs["terraform-test"]!, "converge serve").run);
  });

  describe("run as written", () => {
    let workspace: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      provider = await installProvider("testing-example");
      expect(provider.install.code, provider.install.stderr).toBe(0);
      workspace = await dirs.make("testing-example");
      await cp(TESTING_DIR, join(workspace, "examples/testing"), { recursive: true });
      const bin = await dirs.make("converge-bin");
      await writeFile(join(bin, "converge"), `#!/bin/sh\nexec ${convergeCommandLine()} "$@"\n`, { mode: 0o755 });
      const runnerTemp = await dirs.make("runner-temp");
      const parsed = await workflow();
      env = {
        PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
        HOME: provider.home,
        TF_CLI_CONFIG_FILE: provider.cliConfig,
        CHECKPOINT_DISABLE: "1",
        TF_IN_AUTOMATION: "1",
        RUNNER_TEMP: runnerTemp,
        GITHUB_ENV: join(runnerTemp, "github-env"),
        TF_MODULE: parsed.env.TF_MODULE!,
        VITEST_CONFIG: parsed.env.VITEST_CONFIG!,
        CONVERGE_TOKEN: parsed.env.CONVERGE_TOKEN!,
        NO_COLOR: "1",
      };
    }, TIMEOUT_MS);

    /** A step's script under `bash -e`, as a runner runs it, with what earlier steps wrote to GITHUB_ENV. */
    async function runStep(step: WorkflowStep, cwd: string): Promise<ProcessResult> {
      const written = await readFile(env.GITHUB_ENV!, "utf8").catch(() => "");
      const exported = Object.fromEntries(written.split("\n").filter((line) => line.includes("=")).map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
      expect(step.run).not.toContain("${{"); // the job's variables come in through env
      return runProcess("bash", ["-e", "-c", step.run!], { cwd, env: { ...env, ...exported }, timeoutMs: TIMEOUT_MS });
    }

    /** The start step's output (the runner's mask command, then the health check's answer) and what it exported: the endpoint and the admin token. */
    async function startedDouble(started: ProcessResult): Promise<{ readonly endpoint: string; readonly adminToken: string }> {
      expect(started.code, started.stderr).toBe(0);
      const [mask, health] = started.stdout.split("\n");
      expect(mask).toMatch(/^::add-mask::[0-9a-f]{64}$/);
      expect(JSON.parse(health!)).toMatchObject({ status: "ready" });
      const exported = await readFile(env.GITHUB_ENV!, "utf8");
      const endpoint = /^CONVERGE_ENDPOINT=(http:\/\/127\.0\.0\.1:\d+)$/m.exec(exported)?.[1];
      const adminToken = /^CONVERGE_ADMIN_TOKEN=([0-9a-f]{64})$/m.exec(exported)?.[1];
      expect({ endpoint: endpoint !== undefined, adminToken: adminToken !== undefined }).toEqual({ endpoint: true, adminToken: true });
      return { endpoint: endpoint!, adminToken: adminToken! };
    }

    /** terraform test's step: its six runs pass; the journal saw the 429 and the retry; teardown removed what the runs made. */
    async function expectTerraformTestGreen(step: WorkflowStep, control: ControlClient): Promise<void> {
      const terraformTest = await runStep(step, workspace);
      const output = stripVTControlCharacters(terraformTest.stdout);
      expect(terraformTest.code, `${output}\n${terraformTest.stderr}`).toBe(0);
      for (const run of ["start_from_the_seed", "creates_the_route_and_the_contact", "throttle_the_next_contact_write", "changes_the_contact_through_a_429", "read_the_journal", "the_journal_shows_the_429_and_the_retry"]) {
        expect(output).toContain(`run "${run}"... pass`);
      }
      expect(output).toContain("Success! 6 passed, 0 failed.");
      const writes = await control.requests({ world: "default", write: true });
      expect(writes.filter((entry) => entry.operation === "PutAlternateContact").map((entry) => [entry.status, entry.fault?.effect ?? null]))
        .toEqual([[200, null], [429, "error"], [200, null]]);
      expect(writes.map((entry) => entry.operation)).toEqual(expect.arrayContaining(["DeleteRoute", "DeleteIntegration", "DeleteAlternateContact"]));
      const clients = createClients({ endpoint: control.endpoint, credentials: new Credentials(env.CONVERGE_TOKEN!) });
      try {
        expect((await collect(clients.gateway.routes("a1b2c3d4e5"))).map((route) => route.routeKey)).toEqual(["$default"]);
      } finally {
        await clients.close();
      }
    }

    /** The SDK job's vitest step: both files pass, each in a world of its own, dropped after. */
    async function expectVitestGreen(step: WorkflowStep, control: ControlClient): Promise<void> {
      const vitest = await runStep(step, PACKAGE_ROOT);
      const output = stripVTControlCharacters(vitest.stdout);
      expect(vitest.code, `${output}\n${vitest.stderr}`).toBe(0);
      expect(output).toMatch(/Test Files\s+2 passed \(2\)/);
      expect(output).toMatch(/Tests\s+5 passed \(5\)/);
      expect((await control.worlds()).map((world) => world.id)).toEqual(["default"]);
      expect(new Set((await control.requests()).map((entry) => entry.world).filter((world) => world !== "default")).size).toBe(2);
    }

    it("points converge's provider at an isolated world by its endpoint and token: the module's apply and destroy stay in that world", { timeout: TIMEOUT_MS }, async () => {
      const double = await startTestService();
      try {
        const world = await double.control.createWorld();
        const terraform = new TerraformDir(provider!, "module-in-a-world", { CONVERGE_ENDPOINT: world.endpoint, CONVERGE_TOKEN: world.token() });
        await cp(join(TESTING_DIR, "terraform/main.tf"), terraform.path("main.tf"));
        for (const result of [await terraform.init(), await terraform.apply()]) expect(result.code, describeTerraform(result)).toBe(0);
        const writes = await double.control.requests({ write: true });
        // terraform writes the contact and the integration at once, then the route: compared in any order
        expect(writes.map((entry) => `${entry.world} ${entry.operation} ${entry.status}`).sort()).toEqual([
          `${world.id} CreateIntegration 201`, `${world.id} CreateRoute 201`, `${world.id} PutAlternateContact 200`,
        ]);
        const serverRoutes = createClients({ endpoint: double.url, credentials: new Credentials("demo-admin-token") });
        try {
          expect((await collect(serverRoutes.gateway.routes("a1b2c3d4e5"))).map((route) => route.routeKey)).toEqual(["$default"]);
        } finally {
          await serverRoutes.close();
        }
        const destroyed = await terraform.destroy();
        expect(destroyed.code, describeTerraform(destroyed)).toBe(0);
        expect((await double.control.requests({ write: true })).every((entry) => entry.world === world.id)).toBe(true);
        await world.drop();
      } finally {
        await double.close();
      }
    });

    it("passes terraform test of the HCL module and the SDK code's vitest suite against the test double", { timeout: TIMEOUT_MS }, async () => {
      const parsed = await workflow();
      const terraformJob = parsed.jobs["terraform-test"]!;
      const started = await runStep(stepRunning(terraformJob, "converge serve --port 0"), workspace);
      let adminToken: string | undefined;
      try {
        const double = await startedDouble(started);
        adminToken = double.adminToken;
        const control = new ControlClient(double);
        try {
          await expectTerraformTestGreen(stepRunning(terraformJob, "terraform -chdir"), control);
          await expectVitestGreen(stepRunning(parsed.jobs["sdk-tests"]!, "npx vitest run"), control);
        } finally {
          await control.close();
        }
      } finally {
        const stopped = await runStep(stopStep(terraformJob), workspace);
        expect(stopped.code, stopped.stderr).toBe(0);
      }
      // stopped: its pid answers no signal any more (within a few seconds of SIGTERM)
      const pid = Number(await readFile(join(env.RUNNER_TEMP!, "converge-serve.pid"), "utf8"));
      for (let i = 0; i < 100 && alive(pid); i += 1) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
      expect(alive(pid)).toBe(false);
      const log = await readFile(join(env.RUNNER_TEMP!, "converge-serve.log"), "utf8");
      expect(log).toContain("(admin token from CONVERGE_ADMIN_TOKEN)");
      expect(log).not.toContain(adminToken!);
    });
  });
});
