import { runProcess } from "../support/run-process.js";
import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { accountCall } from "../support/http.js";
import { convergeCommand, convergeCommandLine } from "../support/converge-command.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, EXAMPLES_DIR, ORDERS_API, convergedExamples, useE2eResources } from "../e2e/e2e-fixture.js";
import { TERRAFORM, assertTerraformAvailable, runProviderInstall } from "../support/terraform.js";
import type { WorkflowStep } from "./workflow-fixture.js";

/**
 * examples/scheduled-drift: the GitHub Actions workflow and the Kubernetes CronJob parse and carry
 * the fields they are about, and their commands run as written (the workflow's shell steps under
 * bash, the pod's arguments with JOB_COMPLETION_INDEX) against the embedded service.
 */

const SCHEDULED_DRIFT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/scheduled-drift");
const CI_APPLY_DIR = resolve(SCHEDULED_DRIFT_DIR, "../ci-apply");
const CRON = /^(\S+\s+){4}\S+$/;

const { services, dirs } = useE2eResources();

interface Job {
  readonly needs?: string;
  readonly if?: string;
  readonly strategy?: { readonly "fail-fast"?: boolean; readonly matrix: { readonly shard: number[] } };
  readonly steps: WorkflowStep[];
}
interface Workflow {
  readonly on: { readonly schedule: Array<{ readonly cron: string }> };
  readonly concurrency: { readonly group: string; readonly "cancel-in-progress": boolean };
  readonly env: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

async function readYaml<T>(name: string, directory = SCHEDULED_DRIFT_DIR): Promise<T> {
  const text = await readFile(join(directory, name), "utf8");
  const documents = parseAllDocuments(text);
  expect(documents, name).toHaveLength(1);
  expect(documents[0]!.errors.map((error) => error.message), name).toEqual([]);
  expect(documents[0]!.warnings.map((warning) => warning.message), name).toEqual([]);
  return parse(text) as T;
}

const workflow = () => readYaml<Workflow>("drift.yml");
// the manifest's shape is Kubernetes', not ours: read it loosely and assert the fields that matter
const cronJob = () => readYaml<any>("cronjob.yaml");

function stepRunning(job: Job, command: string): WorkflowStep {
  const step = job.steps.find((candidate) => candidate.run?.includes(command));
  expect(step, `a step running ${command}`).toBeDefined();
  return step!;
}

/**
 * Runs a shell script as a GitHub runner does (`bash -e`) in `cwd`; resolves with its exit code and
 * output. `converge` on its PATH is converge's built CLI, where the workflow's install step puts the
 * release's executable.
 */
async function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = await convergeBin();
  return run("bash", ["-e", "-c", script], cwd, { PATH: `${bin}:${process.env.PATH ?? ""}`, ...env });
}

let convergeBinDir: Promise<string> | undefined;
/** A directory holding `converge`, a script running converge (convergeCommandLine): made once, before any step runs it (shards run at once). */
function convergeBin(): Promise<string> {
  convergeBinDir ??= (async () => {
    const bin = await dirs.make("converge-bin");
    await writeFile(join(bin, "converge"), `#!/bin/sh\nexec ${convergeCommandLine()} "$@"\n`, { mode: 0o755 });
    return bin;
  })();
  return convergeBinDir;
}

function run(command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string>) {
  return runProcess(command, args, { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } });
}

/** The script of a workflow step as a runner would run it here: the shard's number in, converge as the tests run it (convergeCommandLine) for `npx --no converge`. */
function runnable(script: string, shard?: number): string {
  const substituted = script.replaceAll("${{ matrix.shard }}", String(shard));
  expect(substituted).not.toContain("${{"); // no other expression inside scripts: secrets and variables come in through env
  return substituted.replaceAll("npx --no converge", convergeCommandLine());
}

/** A fresh service with the example estate applied, then one contact changed behind converge's back. */
async function driftedEstate(): Promise<RunningService> {
  const { service } = await convergedExamples(services, dirs);
  const changed = await accountCall(service, "PutAlternateContact", {
    AccountId: "222222222222", AlternateContactType: "SECURITY", Name: "Payments Security", Title: "Security Lead",
    EmailAddress: "payments-security@example.com", PhoneNumber: "+1 555 0199",
  }, ADMIN_TOKEN);
  expect(changed.status, changed.text).toBe(200);
  return service;
}

describe("examples/scheduled-drift/drift.yml (GitHub Actions)", () => {
  it("runs on a cron schedule, in a matrix of 4 shards, with the token from a secret and the endpoint from a variable", async () => {
    const parsed = await workflow();
    expect(parsed.on.schedule).toHaveLength(1);
    expect(parsed.on.schedule[0]!.cron).toMatch(CRON);
    expect(parsed.env.CONVERGE_ENDPOINT).toBe("${{ vars.CONVERGE_ENDPOINT }}");
    const drift = parsed.jobs.drift!;
    expect(drift.strategy).toEqual({ "fail-fast": false, matrix: { shard: [1, 2, 3, 4] } });
    const detect = stepRunning(drift, "converge drift ");
    expect(detect.env).toEqual({ CONVERGE_TOKEN: "${{ secrets.CONVERGE_TOKEN }}" });
    expect(detect.run).toContain('converge drift -f "$DESIRED_STATE" --shard ${{ matrix.shard }}/4 --output json --report junit-${{ matrix.shard }}.xml > drift-${{ matrix.shard }}.json');
    const upload = drift.steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"))!;
    expect(upload.if).toBe("always()");
    expect(String(upload.with?.path)).toContain("drift-${{ matrix.shard }}.json");
    expect(String(upload.with?.path)).toContain("junit-${{ matrix.shard }}.xml");
  });

  it("downloads the release's single executable in every job, checked against SHA256SUMS, with no Node.js and no npm", async () => {
    const parsed = await workflow();
    for (const [name, job] of Object.entries(parsed.jobs)) {
      expect(job.steps.some((step) => step.uses?.startsWith("actions/setup-node@") || step.run?.includes("npm ")), name).toBe(false);
      const install = stepRunning(job, "converge_${CONVERGE_VERSION}_linux_amd64.zip");
      expect(install.run, name).toContain('grep "  $zip\\$" "$sums" | sha256sum -c -');
      expect(install.run, name).toContain('echo "$RUNNER_TEMP/converge" >> "$GITHUB_PATH"');
      expect(job.steps.indexOf(install), name).toBeLessThan(job.steps.findIndex((step) => /(^|\| )converge (drift|drift-merge) /m.test(step.run ?? "")));
    }
  });

  it("checks what a terraform root module's state manages, the state piped from terraform state pull", async () => {
    const job = (await workflow()).jobs.terraform!;
    const detect = stepRunning(job, "converge drift ");
    expect(detect.run).toContain('terraform -chdir="$TF_ROOT" state pull | converge drift --state - ');
    expect(detect.run).toContain("set -o pipefail");
    expect(detect.env).toEqual({ CONVERGE_TOKEN: "${{ secrets.CONVERGE_TOKEN }}" });
    expect(job.steps.findIndex((step) => step.run?.includes('cd "$TF_ROOT" && terraform init'))).toBeLessThan(job.steps.indexOf(detect));
  });

  it("runs the terraform job as written on a fresh runner: installs the release's provider into the root module, init -lockfile=readonly, drift of its state", { timeout: E2E_TIMEOUT_MS * 3 }, async () => {
    assertTerraformAvailable();
    const parsed = await workflow();
    const job = parsed.jobs.terraform!;
    const service = await services.start();
    // a release directory as the workflow downloads it: the provider's zip and the SHA256SUMS listing it
    const home = await dirs.make("terraform-home");
    const { result: installed } = await runProviderInstall(home, 60_000);
    expect(installed.code, installed.stderr).toBe(0);
    const release = await dirs.make("release");
    const version = parsed.env.CONVERGE_VERSION!;
    const zip = `terraform-provider-converge_${version}_linux_amd64.zip`;
    const executable = join(home, ".terraform.d/plugins/registry.terraform.io/converge/converge", version, "linux_amd64", `terraform-provider-converge_v${version}`);
    expect((await run("zip", ["-jq", join(release, zip), executable], release, {})).code).toBe(0);
    const sums = await run("sha256sum", [zip], release, {});
    await writeFile(join(release, `terraform-provider-converge_${version}_SHA256SUMS`), sums.stdout);
    // the repository: a root module managing one route, applied once with its lock file recorded (what the team commits)
    const workspace = await dirs.make("terraform-job");
    const root = join(workspace, parsed.env.TF_ROOT!);
    await mkdir(root);
    await writeFile(join(root, "main.tf"), `terraform {\n  required_providers {\n    converge = { source = "converge/converge", version = "${version}" }\n  }\n}\n\n`
      + `provider "converge" {}\n\nresource "converge_route" "health" {\n  api_id    = "${ORDERS_API}"\n  route_key = "GET /health"\n}\n`);
    const runnerTemp = await dirs.make("runner-temp");
    const env = {
      CONVERGE_VERSION: version, CONVERGE_RELEASE_URL: `file://${release}`, RUNNER_TEMP: runnerTemp, GITHUB_WORKSPACE: workspace,
      TF_ROOT: parsed.env.TF_ROOT!, CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, NO_COLOR: "1",
      HOME: await dirs.make("runner-home"), TF_CLI_CONFIG_FILE: join(runnerTemp, "no-terraformrc"), CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1",
    };
    await writeFile(env.TF_CLI_CONFIG_FILE, "");
    // the converge install step leaves the release's SHA256SUMS in RUNNER_TEMP (its own zip is the tests' converge on PATH)
    await cp(join(release, `terraform-provider-converge_${version}_SHA256SUMS`), join(runnerTemp, `terraform-provider-converge_${version}_SHA256SUMS`));
    const installProvider = stepRunning(job, "terraform.d/plugins").run!;
    expect((await bash(installProvider, workspace, env)).code).toBe(0);
    for (const args of [["init", "-input=false"], ["apply", "-auto-approve", "-input=false"]]) {
      const setup = await run(TERRAFORM, args, root, env);
      expect(setup.code, setup.stderr).toBe(0);
    }
    // a fresh runner: the checkout (main.tf, the lock file) and the backend's state, nothing installed
    await rm(join(root, "terraform.d"), { recursive: true });
    await rm(join(root, ".terraform"), { recursive: true });
    for (const step of [installProvider, stepRunning(job, "terraform init -input=false -lockfile=readonly").run!, stepRunning(job, "converge drift ").run!]) {
      const ran = await bash(step, workspace, env);
      expect(ran.code, `${step}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
    }
    const report = JSON.parse(await readFile(join(workspace, "drift-terraform.json"), "utf8")) as { summary: Record<string, number>; resources: Array<{ address: string; outcome: string }> };
    expect(report.resources.map((resource) => `${resource.outcome} ${resource.address}`)).toEqual([expect.stringMatching(/^in-sync Route\/a1b2c3d4e5\//)]);
  });

  it("never runs twice at once: a concurrency group that queues a new run rather than cancelling one in progress", async () => {
    expect((await workflow()).concurrency).toEqual({ group: "converge-drift", "cancel-in-progress": false });
  });

  it("merges the shards' reports in a final job that runs even when a shard failed", async () => {
    const report = (await workflow()).jobs.report!;
    expect(report.needs).toBe("drift");
    expect(report.if).toBe("always()");
    expect(report.steps.find((step) => step.uses?.startsWith("actions/download-artifact@"))?.with).toMatchObject({ pattern: "drift-shard-*", "merge-multiple": true });
    expect(stepRunning(report, "drift-merge").run).toContain("converge drift-merge drift-*.json");
    expect(stepRunning(report, "drift-merge").run).toContain("--report drift.html");
    // the page people open is published with the merged reports
    const upload = report.steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"));
    expect(upload?.if).toBe("always()");
    expect(String(upload?.with?.path).split("\n").map((line) => line.trim()).filter(Boolean).sort()).toEqual(["drift.html", "drift.json", "junit.xml"]);
    expect(report.steps.findIndex((step) => step.uses?.startsWith("actions/download-artifact@"))).toBeLessThan(report.steps.findIndex((step) => step.run?.includes("drift-merge")));
  });

  it("runs as written: each shard's step passes on drift and records its exit code; the merge exits 2 and writes the step summary", { timeout: E2E_TIMEOUT_MS }, async () => {
    const service = await driftedEstate();
    const parsed = await workflow();
    const workspace = await dirs.make("actions");
    const env = {
      DESIRED_STATE: EXAMPLES_DIR, CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, NO_COLOR: "1",
      GITHUB_OUTPUT: join(workspace, "github-output"), GITHUB_STEP_SUMMARY: join(workspace, "step-summary.md"),
    };
    const detect = stepRunning(parsed.jobs.drift!, "converge drift ").run!;
    const outcomes = await Promise.all(parsed.jobs.drift!.strategy!.matrix.shard.map((shard) => bash(runnable(detect, shard), workspace, env)));
    for (const outcome of outcomes) expect(outcome.code, outcome.stderr).toBe(0);
    const exitCodes = (await readFile(env.GITHUB_OUTPUT, "utf8")).trim().split("\n").sort();
    expect(exitCodes.filter((line) => line === "exit-code=2")).toHaveLength(1); // the shard holding the changed contact
    expect(exitCodes.filter((line) => line === "exit-code=0")).toHaveLength(3);
    expect((await readdir(workspace)).filter((name) => /^(drift|junit)-\d\.(json|xml)$/.test(name)).sort()).toEqual([
      "drift-1.json", "drift-2.json", "drift-3.json", "drift-4.json", "junit-1.xml", "junit-2.xml", "junit-3.xml", "junit-4.xml",
    ]);

    const merge = await bash(runnable(stepRunning(parsed.jobs.report!, "drift-merge").run!), workspace, env);
    expect(merge.code, `${merge.stdout}\n${merge.stderr}`).toBe(2);
    expect(merge.stdout).toContain("AlternateContact/222222222222/SECURITY");
    const merged = JSON.parse(await readFile(join(workspace, "drift.json"), "utf8")) as { summary: Record<string, number> & { coverage: unknown }; resources: Array<{ address: string; outcome: string }> };
    expect(merged.summary).toMatchObject({ drifted: 1, missing: 0, unknown: 0 });
    expect(merged.resources.filter((resource) => resource.outcome !== "in-sync").map((resource) => resource.address)).toEqual(["AlternateContact/222222222222/SECURITY"]);
    expect(await readFile(env.GITHUB_STEP_SUMMARY, "utf8")).toContain("AlternateContact/222222222222/SECURITY");
    // the HTML page of the merged report: its counts are the merged report's, the drifted contact is listed
    const page = await readFile(join(workspace, "drift.html"), "utf8");
    expect(page).toMatch(/^<!doctype html>/);
    const { coverage: _coverage, ...counts } = merged.summary;
    expect(Object.fromEntries([...page.matchAll(/<b data-count="([a-z-]+)">(\d+)<\/b>/g)].map((match) => [match[1], Number(match[2])]))).toEqual(counts);
    expect(page).toContain("<code>AlternateContact/222222222222/SECURITY</code>");
  });
});

describe("examples/scheduled-drift/cronjob.yaml (Kubernetes)", () => {
  it("schedules an Indexed Job of 4 pods, each checking the shard of its JOB_COMPLETION_INDEX", async () => {
    const parsed = await cronJob();
    expect(parsed).toMatchObject({ apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "converge-drift" } });
    expect(parsed.spec.schedule).toMatch(CRON);
    // a run still going when the next is due: the next is skipped, never run alongside
    expect(parsed.spec.concurrencyPolicy).toBe("Forbid");
    const job = parsed.spec.jobTemplate.spec;
    expect(job).toMatchObject({ completionMode: "Indexed", completions: 4, parallelism: 4 });
    const pod = job.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    expect(pod.containers).toHaveLength(1);
    const container = pod.containers[0];
    expect(container.args.slice(0, 1)).toEqual(["drift"]);
    expect(container.args.join(" ")).toContain("--shard auto/4");
    // exit 2 and 3 fail their index at once; the rule names this container
    expect(job.podFailurePolicy.rules).toEqual([{ action: "FailIndex", onExitCodes: { containerName: container.name, operator: "In", values: [2, 3] } }]);
    expect(await readFile(join(SCHEDULED_DRIFT_DIR, "cronjob.yaml"), "utf8")).toContain("JOB_COMPLETION_INDEX");
  });

  it("takes the token from a Secret and the desired state from a ConfigMap volume", async () => {
    const pod = (await cronJob()).spec.jobTemplate.spec.template.spec;
    const container = pod.containers[0];
    const env = Object.fromEntries(container.env.map((entry: { name: string }) => [entry.name, entry]));
    expect(env.CONVERGE_TOKEN).toEqual({ name: "CONVERGE_TOKEN", valueFrom: { secretKeyRef: { name: "converge-token", key: "token" } } });
    expect(env.CONVERGE_ENDPOINT.value).toMatch(/^https?:\/\//);
    const mount = container.volumeMounts.find((candidate: { name: string }) => candidate.name === "desired-state");
    expect(pod.volumes).toContainEqual({ name: "desired-state", configMap: { name: "converge-desired-state" } });
    const file = container.args[container.args.indexOf("-f") + 1] as string;
    expect(file.startsWith(`${mount.mountPath}/`) || file === mount.mountPath).toBe(true);
  });

  it("writes each shard's HTML and JSON report to a ReadWriteMany volume the pods may write", async () => {
    const pod = (await cronJob()).spec.jobTemplate.spec.template.spec;
    const container = pod.containers[0];
    const reports = container.volumeMounts.find((candidate: { name: string }) => candidate.name === "reports");
    expect(reports.readOnly).toBeUndefined();
    const files = container.args.filter((_: string, i: number) => container.args[i - 1] === "--report");
    expect(files).toEqual([`${reports.mountPath}/drift-index-$(JOB_COMPLETION_INDEX).html`, `${reports.mountPath}/drift-index-$(JOB_COMPLETION_INDEX).json`]);
    expect(pod.securityContext.fsGroup).toBe(pod.securityContext.runAsUser);
    const volume = pod.volumes.find((candidate: { name: string }) => candidate.name === "reports");
    const claim = await readYaml<any>("reports-volume.yaml");
    expect(claim).toMatchObject({ apiVersion: "v1", kind: "PersistentVolumeClaim", spec: { accessModes: ["ReadWriteMany"] } });
    expect(volume.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
  });

  it("runs as written: the pods' arguments on a ConfigMap-shaped directory check every resource once across the 4 indexes", { timeout: E2E_TIMEOUT_MS }, async () => {
    const service = await driftedEstate();
    const container = (await cronJob()).spec.jobTemplate.spec.template.spec.containers[0];
    const mountPath = container.volumeMounts[0].mountPath as string;
    // what the kubelet writes for a ConfigMap volume: the files in a timestamped directory, `..data` linking to it, and links to each file
    const volume = await dirs.make("configmap");
    const stamped = "..2026_01_01_00_00_00.000000001";
    await mkdir(join(volume, stamped));
    const names = (await readdir(EXAMPLES_DIR)).filter((name) => name.endsWith(".yaml"));
    for (const name of names) await cp(join(EXAMPLES_DIR, name), join(volume, stamped, name));
    await symlink(stamped, join(volume, "..data"));
    for (const name of names) await symlink(join("..data", name), join(volume, name));
    const reportsMount = container.volumeMounts.find((candidate: { name: string }) => candidate.name === "reports").mountPath as string;
    const reportsDir = await dirs.make("reports-volume");
    // the volumes' paths here, and $(JOB_COMPLETION_INDEX) expanded as the kubelet does from the pod's variable
    const argsOf = (index: number) => (container.args as string[])
      .map((arg) => arg.replace(mountPath, volume).replace(reportsMount, reportsDir).replaceAll("$(JOB_COMPLETION_INDEX)", String(index)));
    const env = Object.fromEntries((container.env as Array<{ name: string; value?: string }>).filter((entry) => entry.value !== undefined).map((entry) => [entry.name, entry.value!]));

    const shards = await Promise.all([0, 1, 2, 3].map((index) =>
      run(convergeCommand().file, [...convergeCommand().args, ...argsOf(index)], volume, { ...env, CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, JOB_COMPLETION_INDEX: String(index) })));
    // the index holding the changed contact exits 2 (its index fails at once, by the podFailurePolicy); the others 0
    expect(shards.map((shard) => shard.code).sort(), shards.map((shard) => shard.stderr).join("\n")).toEqual([0, 0, 0, 2]);
    const reports = shards.map((shard) => JSON.parse(shard.stdout) as { shard: { index: number; count: number }; resources: Array<{ address: string; outcome: string }> });
    expect(reports.map((report) => report.shard)).toEqual([1, 2, 3, 4].map((index) => ({ index, count: 4 })));
    const addresses = reports.flatMap((report) => report.resources.map((resource) => resource.address));
    expect(new Set(addresses).size).toBe(addresses.length); // no resource in two shards: the files were read once
    expect(addresses).toHaveLength(23);
    expect(reports.flatMap((report) => report.resources).filter((resource) => resource.outcome !== "in-sync").map((resource) => resource.address)).toEqual(["AlternateContact/222222222222/SECURITY"]);

    // each pod's reports on the volume: its JSON report (also on stdout) and its page
    expect((await readdir(reportsDir)).sort()).toEqual([0, 1, 2, 3].flatMap((index) => [`drift-index-${index}.html`, `drift-index-${index}.json`]));
    for (const [index, shard] of shards.entries()) {
      expect(JSON.parse(await readFile(join(reportsDir, `drift-index-${index}.json`), "utf8"))).toEqual(JSON.parse(shard.stdout));
      expect(await readFile(join(reportsDir, `drift-index-${index}.html`), "utf8")).toContain(`<h1>converge drift (shard ${index + 1}/4)</h1>`);
    }
    // the README's merge of the volume's JSON reports into one page
    const merged = await run("bash", ["-e", "-c", `${convergeCommandLine()} drift-merge drift-index-*.json --report drift.html`], reportsDir, { NO_COLOR: "1" });
    expect(merged.code, merged.stderr).toBe(2);
    const page = await readFile(join(reportsDir, "drift.html"), "utf8");
    expect(page).toContain("<h1>converge drift</h1>");
    expect(page).toContain("<code>AlternateContact/222222222222/SECURITY</code>");
  });
});

describe("examples/scheduled-drift/README.md", () => {
  it("explains both jobs and every exit code", async () => {
    const text = await readFile(join(SCHEDULED_DRIFT_DIR, "README.md"), "utf8");
    for (const needle of ["drift.yml", "cronjob.yaml", "reports-volume.yaml", "JOB_COMPLETION_INDEX", "CONVERGE_TOKEN", "drift-merge", "drift.html", "converge drift-merge drift-index-*.json --report drift.html"]) expect(text).toContain(needle);
    const exitCodes = text.split("\n").filter((line) => /^\| [0-3] \|/.test(line)).map((line) => line.slice(2, 3));
    expect(exitCodes.sort()).toEqual(["0", "1", "2", "3"]);
  });
});

describe("examples/ci-apply/apply.yml (GitHub Actions)", () => {
  const applyWorkflow = () => readYaml<Workflow & { on: { push: { branches: string[] } } }>("apply.yml", CI_APPLY_DIR);

  it("applies on pushes to main, one run at a time: a concurrency group that never cancels an apply in progress", async () => {
    const parsed = await applyWorkflow();
    expect(parsed.on.push.branches).toEqual(["main"]);
    expect(parsed.concurrency).toEqual({ group: "converge-apply", "cancel-in-progress": false });
    const job = parsed.jobs.apply!;
    expect(stepRunning(job, "converge plan ").env).toEqual({ CONVERGE_TOKEN: "${{ secrets.CONVERGE_TOKEN }}" });
    const apply = stepRunning(job, "converge apply ");
    expect(apply.run).toBe("converge apply plan.json --auto-approve");
    // the release's single executable, as drift.yml's jobs: no Node.js, no npm project
    expect(job.steps.some((step) => step.uses?.startsWith("actions/setup-node@") || step.run?.includes("npm "))).toBe(false);
    expect(job.steps.indexOf(stepRunning(job, "converge_${CONVERGE_VERSION}_linux_amd64.zip"))).toBeLessThan(job.steps.indexOf(apply));
    expect(apply.if).toBe("steps.plan.outputs.exit-code == '2'");
  });

  it("runs as written: the plan step records exit 2 and writes the summary, the apply step applies the plan file, a second run plans no change", { timeout: E2E_TIMEOUT_MS }, async () => {
    const service = await services.start();
    const job = (await applyWorkflow()).jobs.apply!;
    const run = async () => {
      const workspace = await dirs.make("apply-actions");
      const env = {
        DESIRED_STATE: EXAMPLES_DIR, CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, NO_COLOR: "1",
        GITHUB_OUTPUT: join(workspace, "github-output"), GITHUB_STEP_SUMMARY: join(workspace, "step-summary.md"),
      };
      const plan = await bash(runnable(stepRunning(job, "converge plan ").run!), workspace, env);
      expect(plan.code, plan.stderr).toBe(0);
      const exitCode = (await readFile(env.GITHUB_OUTPUT, "utf8")).trim();
      if (exitCode !== "exit-code=2") return { exitCode };
      expect(await readFile(env.GITHUB_STEP_SUMMARY, "utf8")).toMatch(/^### converge plan\n\n\*\*15\*\* to create/);
      const applied = await bash(runnable(stepRunning(job, "converge apply ").run!), workspace, env);
      expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
      return { exitCode, applied: applied.stdout };
    };
    const first = await run();
    expect(first.exitCode).toBe("exit-code=2");
    expect(first.applied).toContain("Apply complete:");
    expect((await run()).exitCode).toBe("exit-code=0");
  });

  it("has a README explaining the concurrency group, the lock and the plan file", async () => {
    const text = await readFile(join(CI_APPLY_DIR, "README.md"), "utf8");
    for (const needle of ["concurrency", "cancel-in-progress: false", "concurrencyPolicy: Forbid", "--lock FILE", "--repair-twins", "apply plan.json"]) expect(text).toContain(needle);
  });
});
