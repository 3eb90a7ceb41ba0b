import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseCacheDir } from "../../../src/cli/release/bun-build.js";
import { DEMO_WORLD } from "../../../src/service/index.js";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { PACKAGE_ROOT, PACKAGE_TIMEOUT_MS, testRelease } from "./release-fixture.js";

/**
 * The CLI's single executable `converge` of the release (release-fixture.ts packages it once per
 * build), copied with the example desired state into an empty temporary directory and run in a
 * mount namespace of an unprivileged user namespace (`unshare --user --map-root-user --mount`, no
 * root needed) where Node.js (every `node` on PATH, this process's, /usr/lib/node_modules), this
 * checkout, its node_modules and the cache of Node.js builds are hidden: `serve` on port 0, then
 * `plan`, `drift` with its JSON and markdown reports, `apply` and `drift` again against it.
 */

/** Whether this machine lets an unprivileged process make a user and mount namespace (some containers and kernels do not). */
const namespace = spawnSync("unshare", ["--user", "--map-root-user", "--mount", "true"], { encoding: "utf8" });
const NAMESPACE_REFUSED = namespace.error?.message ?? (namespace.status === 0 ? undefined : namespace.stderr.trim());
const TOKEN = "demo-admin-token";

let root: string;
let converge: string;
let hideScript: string;
let version: string;
const serves: ChildProcess[] = [];
let endpoint: string;

/**
 * A shell script that hides Node.js and the checkout, then runs its arguments: an empty file bound
 * over every Node.js executable, an empty tmpfs over every directory that holds Node.js or converge's
 * files (a directory inside another goes with it).
 */
function writeHideScript(dir: string): string {
  const emptyFile = join(dir, "empty-file");
  writeFileSync(emptyFile, "");
  const onPath = spawnSync("sh", ["-c", "which -a node nodejs"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
  const executables = [...new Set([...onPath, process.execPath])];
  const candidates = [PACKAGE_ROOT, join(PACKAGE_ROOT, "node_modules"), "/usr/lib/node_modules", "/usr/local/lib/node_modules", releaseCacheDir()].filter((path) => existsSync(path)).map((path) => realpathSync(path));
  const directories = [...new Set(candidates)].filter((path) => !candidates.some((outer) => path.startsWith(`${outer}/`)));
  for (const directory of directories) {
    if (dir.startsWith(`${directory}/`)) throw new Error(`the test's directory ${dir} is inside ${directory}, which the namespace hides`);
  }
  const script = join(dir, "hide-node.sh");
  writeFileSync(script, [
    "#!/bin/sh",
    "set -e",
    ...executables.map((executable) => `mount --bind '${emptyFile}' '${executable}'`),
    ...directories.map((directory) => `mount -t tmpfs converge-hidden '${directory}'`),
    'exec "$@"',
    "",
  ].join("\n"), { mode: 0o755 });
  return script;
}

/** The arguments of `unshare` that run `command ARGS` where the hide script has hidden Node.js and the checkout. */
const hidden = (command: string, args: ReadonlyArray<string>) => ["--user", "--map-root-user", "--mount", "sh", hideScript, command, ...args];

/** `converge ARGS` (the executable) in the namespace, in the test's directory, against the served endpoint (or `at`). */
function run(args: ReadonlyArray<string>, at: string = endpoint): Promise<ProcessResult> {
  return runProcess("unshare", hidden(converge, args), { cwd: root, env: { PATH: process.env.PATH ?? "", CONVERGE_ENDPOINT: at, CONVERGE_TOKEN: TOKEN, NO_COLOR: "1" }, timeoutMs: 60_000 });
}

/** `sh -c SCRIPT` in the namespace, in the test's directory, with `converge` on PATH (the executable) and the served endpoint (or `at`). */
function shell(script: string, at: string = endpoint): Promise<ProcessResult> {
  return runProcess("unshare", hidden("sh", ["-c", script]), { cwd: root, env: { PATH: `${dirname(converge)}:${process.env.PATH ?? ""}`, CONVERGE_ENDPOINT: at, CONVERGE_TOKEN: TOKEN, NO_COLOR: "1" }, timeoutMs: 120_000 });
}

/** Starts `converge serve --port 0 ARGS` in the namespace and resolves with the URL it prints. */
function startServe(args: ReadonlyArray<string> = []): Promise<string> {
  const child = spawn("unshare", hidden(converge, ["serve", "--port", "0", ...args]), { cwd: root, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] });
  serves.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`converge serve printed no listening line within 30 s: ${stdout}${stderr}`)), 30_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const url = /^listening on (http:\/\/\S+)$/m.exec(stdout)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve(url);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`converge serve exited ${code} before listening: ${stdout}${stderr}`));
    });
  });
}

const describeInNamespace = NAMESPACE_REFUSED === undefined ? describe : describe.skip;
describeInNamespace(`the CLI as one executable, with Node.js and the checkout hidden${NAMESPACE_REFUSED === undefined ? "" : ` (skipped: unshare --user --map-root-user --mount failed here: ${NAMESPACE_REFUSED})`}`, () => {
  beforeAll(async () => {
    const release = await testRelease();
    version = release.version;
    root = mkdtempSync(join(tmpdir(), "converge-cli-executable-"));
    converge = join(root, "bin", "converge");
    mkdirSync(dirname(converge));
    copyFileSync(join(release.outDir, "executables", "linux_amd64", "converge"), converge);
    spawnSync("chmod", ["0755", converge]);
    mkdirSync(join(root, "desired"));
    for (const file of readdirSync(join(PACKAGE_ROOT, "examples", "desired-state")).filter((name) => name.endsWith(".yaml"))) {
      copyFileSync(join(PACKAGE_ROOT, "examples", "desired-state", file), join(root, "desired", file));
    }
    hideScript = writeHideScript(root);
    endpoint = await startServe();
  }, PACKAGE_TIMEOUT_MS);

  afterAll(async () => {
    for (const serve of serves.filter((child) => child.exitCode === null)) {
      const exited = new Promise((resolve) => serve.once("exit", resolve));
      serve.kill("SIGTERM");
      await exited;
    }
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("runs where no Node.js and no checkout can be seen", async () => {
    const probe = await runProcess("unshare", hidden("sh", ["-c", `node -e 'process.exit(0)' 2>/dev/null; echo "node: $?"; ls -A '${PACKAGE_ROOT}' | wc -l; '${converge}' --version`]), { env: { PATH: process.env.PATH ?? "" } });
    expect(probe.code, probe.stderr).toBe(0);
    // 126 (the empty file is not executable) or 127 (not found), never 0
    expect(probe.stdout).toMatch(new RegExp(`^node: 12[67]\\n0\\n${version.replaceAll(".", "\\.")}\\n$`));
  });

  it("serves the embedded services, plans, reports drift, applies, and then finds the estate in sync", async () => {
    const plan = await run(["plan", "-f", "desired"]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain("Plan: 15 to create, 3 to update, 0 to delete, 0 refused, 3 unchanged.");

    const before = await run(["drift", "-f", "desired", "--output", "json", "--report", "before.json", "--report", "before.md"]);
    expect(before.code, before.stderr).toBe(2);
    const beforeReport = JSON.parse(readFileSync(join(root, "before.json"), "utf8")) as { summary: Record<string, unknown> };
    expect(JSON.parse(before.stdout)).toEqual(beforeReport);
    expect(beforeReport.summary).toMatchObject({ "in-sync": 5, drifted: 3, missing: 15, unmanaged: 0, unknown: 0 });
    expect(readFileSync(join(root, "before.md"), "utf8")).toContain("### converge drift");

    const apply = await run(["apply", "-f", "desired", "--auto-approve"]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain("Apply complete: 18 done, 0 failed.");

    const after = await run(["drift", "-f", "desired", "--output", "json", "--report", "drift.json", "--report", "drift.md"]);
    expect(after.code, after.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(root, "drift.json"), "utf8")) as { summary: Record<string, unknown> };
    expect(report.summary).toMatchObject({ "in-sync": 23, drifted: 0, missing: 0, unmanaged: 0, unknown: 0, coverage: { managed: 20, live: 20, percent: 100 } });
    expect(readFileSync(join(root, "drift.md"), "utf8")).toContain("No drift: live state matches the desired state.");

    const again = await run(["plan", "-f", "desired"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("No changes.");
  }, 300_000);

  it("runs two applies at once with --lock: one waits for the other, then finds nothing left to do", async () => {
    writeFileSync(join(root, "slow-world.json"), JSON.stringify({ ...DEMO_WORLD, faults: { errorRate: 0, latencyMs: 100, dropAfterWriteRate: 0 }, regionTransitionMs: 0 }));
    const slow = await startServe(["--world", "slow-world.json"]);
    const both = await shell("converge apply -f desired --auto-approve --lock apply.lock --lock-timeout 60 > first.out 2>&1 & converge apply -f desired --auto-approve --lock apply.lock --lock-timeout 60 > second.out 2>&1; second=$?; wait $!; echo \"$? $second\"", slow);
    expect(both.stdout.trim(), `${readFileSync(join(root, "first.out"), "utf8")}${readFileSync(join(root, "second.out"), "utf8")}`).toBe("0 0");
    const outputs = ["first.out", "second.out"].map((file) => readFileSync(join(root, file), "utf8"));
    expect(outputs.filter((output) => output.includes("Apply complete: 18 done, 0 failed."))).toHaveLength(1);
    expect(outputs.filter((output) => output.includes("No changes."))).toHaveLength(1);
    expect(existsSync(join(root, "apply.lock.lock"))).toBe(false);
  }, 300_000);

  it("reads a terraform state on standard input (drift --state -) and writes every report format", async () => {
    const state = JSON.stringify({
      version: 4, terraform_version: "1.11.4", serial: 1, lineage: "executable-test", outputs: {},
      resources: [{ mode: "managed", type: "converge_route", name: "gone", provider: 'provider["registry.terraform.io/converge/converge"]', instances: [{ schema_version: 0, sensitive_attributes: [], attributes: {
        id: "a1b2c3d4e5/gone0001", api_id: "a1b2c3d4e5", route_id: "gone0001", api_gateway_managed: false, route_key: "GET /gone", target: null, authorization_type: "NONE", authorizer_id: null,
        authorization_scopes: null, api_key_required: null, model_selection_expression: null, operation_name: null, request_models: null, request_parameters: null, route_response_selection_expression: null,
      } }] }],
    });
    writeFileSync(join(root, "terraform.tfstate"), state);
    const drift = await shell("converge drift -f desired --state - --report r.json --report r.md --report r.html --report r.xml --output json < terraform.tfstate");
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout) as { resources: Array<{ address: string; outcome: string }> };
    expect(report.resources.find((resource) => resource.address === "Route/a1b2c3d4e5/GET /gone")).toMatchObject({ outcome: "missing" });
    expect(JSON.parse(readFileSync(join(root, "r.json"), "utf8"))).toEqual(report);
    expect(readFileSync(join(root, "r.md"), "utf8")).toContain("### converge drift");
    expect(readFileSync(join(root, "r.html"), "utf8")).toContain("<h1>converge drift</h1>");
    expect(readFileSync(join(root, "r.xml"), "utf8")).toMatch(/^<\?xml [^>]*\?>\n(<testsuites[^>]*>\n\s*)?<testsuite [^>]*>/);
    for (const output of ["text", "markdown"]) {
      const shown = await shell(`converge drift -f desired --state - --output ${output} < terraform.tfstate`);
      expect(shown.code, shown.stderr).toBe(2);
      expect(shown.stdout).toContain("gone");
    }
  }, 120_000);

  it("exports the live state of an API and an account as desired-state files", async () => {
    const exported = await run(["export", "--api", "a1b2c3d4e5", "--account", "self", "-o", "exported"]);
    expect(exported.code, exported.stderr).toBe(0);
    const files = readdirSync(join(root, "exported"));
    expect(files.length).toBeGreaterThan(0);
    const validated = await run(["validate", "-f", "exported"]);
    expect(validated.code, validated.stderr).toBe(0);
  });

  it("stops an apply on Ctrl-C: the writes under way finish, none other starts, exit 130; the next apply converges", async () => {
    writeFileSync(join(root, "slower-world.json"), JSON.stringify({ ...DEMO_WORLD, faults: { errorRate: 0, latencyMs: 300, dropAfterWriteRate: 0 }, regionTransitionMs: 0 }));
    const slower = await startServe(["--world", "slower-world.json"]);
    // Ctrl-C once the plan is printed: apply listens for it from there on (a fixed sleep raced the plan's reads on a busy machine)
    const interrupted = await shell("converge apply -f desired --auto-approve --parallelism 2 > interrupted.out 2> interrupted.err & pid=$!; until grep -q '^Plan: ' interrupted.out || ! kill -0 $pid 2>/dev/null; do sleep 0.05; done; kill -INT $pid; wait $pid; echo $?", slower);
    expect(interrupted.stdout.trim(), readFileSync(join(root, "interrupted.err"), "utf8")).toBe("130");
    expect(readFileSync(join(root, "interrupted.err"), "utf8")).toContain("converge: interrupt received: the writes under way finish, no other starts");
    expect(readFileSync(join(root, "interrupted.out"), "utf8")).toMatch(/^Apply interrupted: \d+ done, 0 failed, [1-9]\d* not started\.$/m);
    const again = await run(["apply", "-f", "desired", "--auto-approve"], slower);
    expect(again.code, again.stderr).toBe(0);
    const check = await run(["plan", "-f", "desired"], slower);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain("No changes.");
  }, 300_000);

  it.each([
    { name: "provider package", command: ["provider", "package"], message: "provider package is not available in the single executable converge: it bundles the compiled provider with esbuild" },
    { name: "provider install", command: ["provider", "install"], message: "provider install is not available in the single executable converge: it installs the provider of a checkout" },
    { name: "demo", command: ["demo"], message: "demo is not available in the single executable converge: it plans examples/desired-state of the repository" },
  ])("refuses $name (it needs a checkout), saying why and what to do instead", async ({ command, message }) => {
    const refused = await run(command);
    expect(refused.code).toBe(1);
    expect(refused.stderr.startsWith(`converge: ${message}`), refused.stderr).toBe(true);
    expect(refused.stderr).toMatch(/run it in a clone/);
  });
});
