import { expect } from "vitest";
import { runProcess } from "../support/run-process.js";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_WORLD, type WorldInput } from "../../src/service/index.js";
import { convergeCommandLine } from "../support/converge-command.js";
import { runProviderInstall, TERRAFORM, terraformEnv, type TerraformResult } from "../support/terraform.js";
import { e2eWorld } from "../e2e/e2e-fixture.js";
import { readSynth, type SynthOutput } from "./synth-fixture.js";

/**
 * Real terraform against the embedded service: a temp directory per stack, a CLI configuration of
 * its own (no network, no checkpoint), and the converge CLI compiled by `npm run build` as the
 * command the provisioners run.
 */

/** A token distinctive enough to grep for. */
export const SECRET_TOKEN = "tok-cdktf-SECRET-91ac";
/** A token of the same account that may read but not write. */
export const READ_ONLY_TOKEN = "tok-cdktf-READONLY-3b7e";
/** The CLI the provisioners run: converge as the tests run it (convergeCommandLine: the compiled CLI on Node.js, or the release's executable). */
export const CLI_COMMAND = convergeCommandLine();
export { assertTerraformAvailable, describeTerraform, planLine, type TerraformResult } from "../support/terraform.js";

/** The demo world with an administrator whose token is SECRET_TOKEN, and short Region transitions. */
export function cdktfWorld(): WorldInput {
  return e2eWorld({ identities: [...(DEMO_WORLD.identities ?? []), { token: SECRET_TOKEN, accountId: "111111111111", allow: ["*"] }, { token: READ_ONLY_TOKEN, accountId: "111111111111", allow: ["account:Get*", "account:ListRegions", "apigateway:Get*"] }], regionTransitionMs: 50 });
}

/**
 * terraform in one stack directory, with an environment of its own: PATH, a HOME and CLI
 * configuration inside `home`, CHECKPOINT_DISABLE, and `extraEnv` (the token variable). Every
 * result is kept, to search terraform's output for secrets afterwards.
 */
export class Terraform {
  readonly results: TerraformResult[] = [];
  readonly #env: Record<string, string>;

  constructor(readonly stackDir: string, home: string, extraEnv: Readonly<Record<string, string>>) {
    const cliConfig = join(home, "terraformrc");
    // empty: terraform_data is built in, converge's provider is in the implied local mirror of `home`
    writeFileSync(cliConfig, "# no provider_installation block: nothing but terraform's defaults\n");
    this.#env = terraformEnv(home, cliConfig, extraEnv);
  }

  async run(args: ReadonlyArray<string>, timeoutMs = 60_000): Promise<TerraformResult> {
    const result = { ...(await runProcess(TERRAFORM, args, { cwd: this.stackDir, env: this.#env, timeoutMs })), args };
    this.results.push(result);
    return result;
  }

  init(): Promise<TerraformResult> {
    return this.run(["init", "-input=false", "-no-color"]);
  }

  apply(): Promise<TerraformResult> {
    return this.run(["apply", "-auto-approve", "-input=false", "-no-color"]);
  }

  destroy(): Promise<TerraformResult> {
    return this.run(["destroy", "-auto-approve", "-input=false", "-no-color"]);
  }
}

/** Every file under `directory`, recursively, with its contents. */
export function filesUnder(directory: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile() && statSync(path).size < 50 * 1024 * 1024) out.push({ path, text: readFileSync(path, "latin1") });
  }
  return out;
}

/**
 * Fails unless a stack's life kept `token` out of everything it left: at least 10 terraform runs,
 * each file under `outdir` (cdk.tf.json, converge.desired.json, the state and its backup among
 * them), every synth output (`synthesized` and the latest), and all that terraform printed.
 */
export function expectTokenNowhere(token: string, outdir: string, synthesized: ReadonlyArray<SynthOutput>, results: ReadonlyArray<TerraformResult>): void {
  expect(results.length).toBeGreaterThanOrEqual(10);
  const latest = readSynth(outdir);
  const files = filesUnder(outdir);
  const names = files.map((file) => file.path.slice(outdir.length + 1));
  expect(names).toEqual(expect.arrayContaining(["stacks/shop/cdk.tf.json", "stacks/shop/converge.desired.json", "stacks/shop/terraform.tfstate", "stacks/shop/terraform.tfstate.backup"]));
  for (const file of files) expect(file.text.includes(token), `the token in ${file.path}`).toBe(false);
  for (const output of [...synthesized, latest]) {
    expect(output.text).not.toContain(token);
    expect(output.desiredText).not.toContain(token);
  }
  for (const result of results) {
    expect(result.stdout.includes(token), `the token in the output of terraform ${result.args.join(" ")}`).toBe(false);
    expect(result.stderr.includes(token), `the token in the errors of terraform ${result.args.join(" ")}`).toBe(false);
  }
}

/** The resources terraform destroyed and created in an apply, as `-address` / `+address`, sorted. */
export function replacedResources(result: TerraformResult): string[] {
  const destroyed = [...result.stdout.matchAll(/^(\S+): Destruction complete/gm)].map((match) => `-${match[1]}`);
  const created = [...result.stdout.matchAll(/^(\S+): Creation complete/gm)].map((match) => `+${match[1]}`);
  return [...destroyed, ...created].sort();
}

/** The resources whose provisioner ran in an apply or destroy (each is one converge run), in order. */
export function convergeRuns(result: TerraformResult): string[] {
  return [...result.stdout.matchAll(/^(\S+): Provisioning with 'local-exec'/gm)].map((match) => match[1]!);
}

/**
 * `converge provider install` as a user runs it (the wrapper, or the packaged executable with CONVERGE_TEST_PROVIDER=packaged: see installSource), into terraform's implied local mirror of `home`
 * (`home/.terraform.d/plugins`): the compiled CLI with HOME set to `home`. Fails the test when the
 * install fails.
 */
export async function installConvergeProvider(home: string): Promise<string> {
  const { code, stdout, stderr } = (await runProviderInstall(home, 30_000)).result;
  if (code !== 0) throw new Error(`converge provider install exited ${code}: ${stdout}${stderr}`);
  return stdout;
}

/**
 * Proxies that refuse every connection (nothing listens on port 9): a terraform that tried the
 * network (the registry, a checkpoint) would fail. converge's provider reaches the embedded
 * service on 127.0.0.1 directly (NO_PROXY, and Node's fetch ignores the proxy variables).
 */
export const NO_NETWORK: Readonly<Record<string, string>> = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1,localhost" };
