import { spawnSync } from "node:child_process";
import { builtCliPath } from "./converge-command.js";
import { runProcess, type ProcessResult } from "./run-process.js";

/**
 * What every suite that runs real terraform shares (the provider's, test/provider/terraform-fixture.ts,
 * and the constructs', test/constructs/terraform-fixture.ts): which terraform, its check, its
 * environment, how a result is described and read, and `converge provider install`.
 */

/** terraform 1.11, or $TERRAFORM. */
export const TERRAFORM = process.env.TERRAFORM ?? "/usr/local/bin/terraform";

/** One terraform command: its arguments, exit code and what it printed. */
export interface TerraformResult extends ProcessResult {
  readonly args: ReadonlyArray<string>;
}

/** A result for assertion messages: the command, its exit code and what it printed. */
export function describeTerraform(result: Pick<TerraformResult, "args" | "code" | "stdout" | "stderr">): string {
  return `terraform ${result.args.join(" ")}: exit ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

/**
 * Fails with what to do when terraform 1.11 cannot be run: the tests that need it are never
 * skipped. Returns its version line.
 */
export function assertTerraformAvailable(): string {
  const version = spawnSync(TERRAFORM, ["version"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", CHECKPOINT_DISABLE: "1" } });
  if (version.error || version.status !== 0 || !/^Terraform v1\.11\./.test(version.stdout)) {
    throw new Error(`these tests need terraform 1.11 at ${TERRAFORM} (or $TERRAFORM): ${version.error?.message ?? (version.stdout || version.stderr)}`);
  }
  return version.stdout.split("\n")[0] ?? "";
}

/**
 * The environment terraform runs in for the tests: PATH, HOME `home`, the CLI configuration
 * `cliConfig` (no network, no checkpoint), CHECKPOINT_DISABLE, TF_IN_AUTOMATION, and `extra`.
 */
export function terraformEnv(home: string, cliConfig: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    TF_CLI_CONFIG_FILE: cliConfig,
    CHECKPOINT_DISABLE: "1",
    TF_IN_AUTOMATION: "1",
    ...extra,
  };
}

/** The `Plan: …` line of a plan or apply, "No changes." when the infrastructure matches the configuration, else "(no plan line)". */
export function planLine(result: Pick<TerraformResult, "stdout">): string {
  const plan = /^Plan: .*$/m.exec(result.stdout)?.[0];
  if (plan) return plan;
  return /^No changes\. Your infrastructure matches the configuration\./m.test(result.stdout) ? "No changes." : "(no plan line)";
}

/**
 * What `converge provider install` installs for the tests (its flags): the development wrapper (`--wrapper`,
 * this checkout's compiled provider on this Node.js), or with CONVERGE_TEST_PROVIDER=packaged the
 * single executable of a release packaged for the tests (`--from`), so that the provider's tests
 * can run against the packaged executable as they do against the wrapper.
 */
export async function installSource(): Promise<string[]> {
  const choice = process.env.CONVERGE_TEST_PROVIDER ?? "wrapper";
  if (choice === "wrapper") return ["--wrapper"];
  if (choice !== "packaged") throw new Error(`CONVERGE_TEST_PROVIDER is ${JSON.stringify(choice)}: expected "wrapper" (the default) or "packaged"`);
  const { testRelease } = await import("../cli/release/release-fixture.js");
  return ["--from", (await testRelease()).outDir];
}

/** Runs `converge provider install` (installSource's flags) as a user does, with HOME `home`: into terraform's implied local mirror under it. */
export async function runProviderInstall(home: string, timeoutMs: number): Promise<{ readonly result: ProcessResult; readonly packaged: boolean }> {
  const source = await installSource();
  const result = await runProcess(process.execPath, [builtCliPath(), "provider", "install", ...source], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    timeoutMs,
  });
  return { result, packaged: source[0] === "--from" };
}
