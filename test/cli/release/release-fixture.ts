import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { releaseCacheDir } from "../../../src/cli/release/bun-build.js";
import { runProcess } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";
import { PACKAGE_ROOT, releaseStamp, TEST_RELEASE_DIR } from "../../support/converge-command.js";
import { TERRAFORM, TerraformDir, type ProviderHome, type TerraformResult } from "../../provider/terraform-fixture.js";

export { PACKAGE_ROOT, TEST_RELEASE_DIR };
/** The throwaway gpg key's user id that signs the tests' release. */
export const SIGNING_KEY = "converge-test@example.invalid";
/** Packaging: bundling, two `bun build --compile`, two 55 MB zips, on 2 busy cores (and the first time, the Bun build's download). */
export const PACKAGE_TIMEOUT_MS = 300_000;

/** The release the tests use and what `converge provider package` printed making it. */
export interface TestRelease {
  readonly outDir: string;
  readonly version: string;
  /** `terraform-provider-converge_VERSION_linux_amd64.zip`. */
  readonly zip: string;
  /** The single executable inside it, as packaging kept it. */
  readonly executable: string;
  /** The CLI's single executable `converge`, as packaging kept it. */
  readonly cli: string;
  /** The armored public key of the throwaway key that signed SHA256SUMS. */
  readonly publicKey: string;
  /** What the packaging printed (empty when an earlier test's release was reused). */
  readonly output: string;
}

/**
 * `converge provider package --out TEST_RELEASE_DIR` (the compiled CLI), unless the release there
 * was packaged from the same dist/ (the newest file under dist/src and the release's Bun version are
 * its stamp): the test files that need a release share one, packaged once per build and run.
 */
export async function testRelease(): Promise<TestRelease> {
  mkdirSync(TEST_RELEASE_DIR, { recursive: true });
  const release = await lockfile.lock(TEST_RELEASE_DIR, { retries: { retries: 600, minTimeout: 500, maxTimeout: 500 }, stale: 600_000 });
  try {
    const version = (JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
    const stampFile = join(TEST_RELEASE_DIR, "stamp");
    const stamp = releaseStamp();
    const zip = join(TEST_RELEASE_DIR, `terraform-provider-converge_${version}_linux_amd64.zip`);
    const executable = join(TEST_RELEASE_DIR, "executables", "linux_amd64", `terraform-provider-converge_v${version}`);
    let output = "";
    const publicKey = join(TEST_RELEASE_DIR, "signing-key.asc");
    const cli = join(TEST_RELEASE_DIR, "executables", "linux_amd64", "converge");
    if (!existsSync(stampFile) || readFileSync(stampFile, "utf8") !== stamp || !existsSync(zip) || !existsSync(executable) || !existsSync(cli)) {
      const gnupgHome = mkdtempSync(join(tmpdir(), "converge-gpg-"));
      try {
        const gpg = (args: ReadonlyArray<string>) => runProcess("gpg", ["--batch", ...args], { env: { PATH: process.env.PATH ?? "", GNUPGHOME: gnupgHome }, timeoutMs: 60_000 });
        const generated = await gpg(["--passphrase", "", "--quick-gen-key", `converge test <${SIGNING_KEY}>`, "ed25519", "sign", "1d"]);
        if (generated.code !== 0) throw new Error(`gpg --quick-gen-key exited ${generated.code}: ${generated.stderr}`);
        const packaged = await runProcess(process.execPath, [builtCliPath(), "provider", "package", "--out", TEST_RELEASE_DIR, "--sign-with", SIGNING_KEY], {
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", CONVERGE_CACHE_DIR: releaseCacheDir(), GNUPGHOME: gnupgHome },
          timeoutMs: PACKAGE_TIMEOUT_MS,
        });
        if (packaged.code !== 0) throw new Error(`converge provider package exited ${packaged.code}: ${packaged.stdout}${packaged.stderr}`);
        const exported = await gpg(["--armor", "--export", SIGNING_KEY]);
        writeFileSync(publicKey, exported.stdout);
        writeFileSync(stampFile, stamp);
        output = packaged.stdout;
      } finally {
        // gpg started an agent for the throwaway home: it ends with it
        await runProcess("gpgconf", ["--kill", "gpg-agent"], { env: { PATH: process.env.PATH ?? "", GNUPGHOME: gnupgHome }, timeoutMs: 30_000 });
        rmSync(gnupgHome, { recursive: true, force: true });
      }
    }
    return { outDir: TEST_RELEASE_DIR, version, zip, executable, cli, publicKey, output };
  } finally {
    await release();
  }
}

/**
 * A shell script that hides Node.js and this checkout from what it runs, then runs its arguments:
 * meant for `unshare -m` (a mount namespace of its own, private), it binds an empty file over
 * every `node` and `nodejs` on PATH and an empty directory over the checkout, the shared
 * node_modules and the cache of Node.js builds. Written under `root`.
 */
export function writeHideNodeScript(root: string): string {
  const emptyFile = join(root, "empty-file");
  const emptyDir = join(root, "empty-dir");
  writeFileSync(emptyFile, "");
  mkdirSync(emptyDir, { recursive: true });
  const candidates = [realpathSync(PACKAGE_ROOT), realpathSync(join(PACKAGE_ROOT, "node_modules")), releaseCacheDir()].filter((path) => existsSync(path));
  // a directory inside another is hidden with it (and its mount point is gone once the outer one is covered)
  const directories = [...new Set(candidates)].filter((path) => !candidates.some((outer) => path.startsWith(`${outer}/`)));
  const script = join(root, "hide-node.sh");
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      "set -e",
      `for node in $(which -a node nodejs 2>/dev/null | sort -u); do mount --bind '${emptyFile}' "$node"; done`,
      ...directories.map((directory) => `mount --bind '${emptyDir}' '${directory}'`),
      'exec "$@"',
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return script;
}

/** Runs `command ARGS` in a mount namespace of its own where `hideScript` has hidden Node.js and the checkout. */
export function runWithoutNode(hideScript: string, command: string, args: ReadonlyArray<string>, options: { readonly cwd?: string; readonly env: Readonly<Record<string, string>>; readonly timeoutMs?: number }) {
  return runProcess("unshare", ["--mount", "--propagation", "private", "sh", hideScript, command, ...args], options);
}

/** A terraform working directory whose every command runs where Node.js and the checkout are hidden. */
export class NodelessTerraformDir extends TerraformDir {
  constructor(home: Pick<ProviderHome, "root" | "home" | "cliConfig">, name: string, env: Readonly<Record<string, string>>, private readonly hideScript: string) {
    super(home, name, env);
  }

  override async run(args: ReadonlyArray<string>, options: { readonly env?: Readonly<Record<string, string>>; readonly timeoutMs?: number } = {}): Promise<TerraformResult> {
    const result = await runWithoutNode(this.hideScript, TERRAFORM, args, { cwd: this.dir, env: { ...this.env, ...options.env }, timeoutMs: options.timeoutMs ?? 150_000 });
    return { ...result, args };
  }
}
