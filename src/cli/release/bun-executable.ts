import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

import type { ReleasePlatform } from "./release-platform.js";

/** What `buildBunExecutable` made. */
export interface BunExecutable {
  readonly file: string;
  readonly bytes: number;
}

/**
 * The flags of every release executable, each for a reason measured or a behaviour promised
 * (docs/manual/provider-release.md, "How the executables are built"):
 * - `--bytecode`: JavaScriptCore's bytecode of the bundle is compiled at build time, not in every
 *   process terraform starts: the handshake line in a third of the time; without it Bun starts
 *   slower than Node.js 26's single executables did (docs/manual/benchmarks.md);
 * - `--format=cjs`: the bundle is CommonJS (bundleProvider), which `--bytecode` requires;
 * - `--no-compile-autoload-dotenv` and `--no-compile-autoload-bunfig`: a `.env` or `bunfig.toml`
 *   in the directory terraform or a CI job runs in must not change converge (its environment, its
 *   preloads): what runs is what was built.
 * And `--bytecode-order` when an order is given (bytecode-order.ts): the bytecode of the code that
 * runs at start is laid out together, so a process reads less of it.
 */
const RELEASE_FLAGS = ["--compile", "--bytecode", "--format=cjs", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];

/** The name the bytecode order is copied under into the build's directory (no path of the build reaches Bun). */
const BYTECODE_ORDER_FILE = "bytecode.order";

/**
 * Makes `output`, a Bun single executable of `bundle` (a CommonJS script that needs nothing beside
 * it: bundleProvider) for `platform`: `builder` (Bun BUN_VERSION for this machine) compiles the
 * bundle into a copy of `target` (the same version's executable for the platform, from the npm
 * registry: `--compile-executable-path`), so a cross build needs nothing but the registry's
 * packages. `leftOut` names modules the bundle loads only on paths the executable never takes
 * (bundleProvider's `leaveOut`), which Bun must not try to resolve.
 *
 * The same bundle, target and builder give the same executable, byte for byte, wherever it is
 * built: the build runs in a directory of its own beside `output`, with the bundle copied in under
 * its own name and the executable written there under its final name, so that no path of the build
 * reaches the executable; the builder gets only PATH and that directory as its HOME.
 */
export function buildBunExecutable(options: {
  readonly builder: string;
  readonly target: string;
  readonly platform: ReleasePlatform;
  readonly bundle: string;
  readonly output: string;
  readonly leftOut?: ReadonlyArray<string>;
  /** Bun's bytecode order to lay the bytecode out by (trainBytecodeOrder): the code that runs at start, together. */
  readonly bytecodeOrder?: string | undefined;
}): BunExecutable {
  const output = resolve(options.output);
  const workDir = mkdtempSync(join(dirname(output), ".bun-build-"));
  const main = basename(options.bundle);
  const name = basename(output);
  try {
    copyFileSync(options.bundle, join(workDir, main));
    const order = options.bytecodeOrder === undefined ? [] : [`--bytecode-order=${BYTECODE_ORDER_FILE}`];
    if (options.bytecodeOrder !== undefined) copyFileSync(options.bytecodeOrder, join(workDir, BYTECODE_ORDER_FILE));
    const args = ["build", ...RELEASE_FLAGS, ...order, `--target=${options.platform.bunTarget}`, `--compile-executable-path=${resolve(options.target)}`, ...(options.leftOut ?? []).map((module) => `--external=${module}`), `--outfile=${name}`, `./${main}`];
    const result = spawnSync(options.builder, args, { cwd: workDir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", HOME: workDir } });
    if (result.error || result.status !== 0) {
      throw new Error(`bun ${args.join(" ")} (of ${options.bundle}) exited ${result.status ?? result.error?.message}: ${`${result.stdout}${result.stderr}`.trim().slice(-4000)}`);
    }
    renameSync(join(workDir, name), output);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  chmodSync(output, 0o755);
  return { file: output, bytes: statSync(output).size };
}
