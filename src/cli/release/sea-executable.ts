import { spawnSync } from "node:child_process";
import { chmodSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";

/** What `buildSeaExecutable` made. */
export interface SeaExecutable {
  readonly file: string;
  readonly bytes: number;
  /** Whether V8's code cache of the bundle is in it. */
  readonly codeCache: boolean;
  /** Whether it starts from a V8 startup snapshot taken after the bundle ran. */
  readonly snapshot: boolean;
}

/**
 * V8's seed of the builder's random numbers (and of its string hash seed, derived from it): the
 * code cache V8 writes holds values drawn from them, so a random seed gives other bytes from each
 * build and a fixed one the same bytes. It does not change what the cache does: the executable
 * runs with seeds of its own, and V8 accepts the cache (NODE_DEBUG_NATIVE=SEA says "accepted").
 */
const BUILDER_RANDOM_SEED = "--random-seed=1";

/**
 * Makes a Node.js single executable application of `bundle` (a CommonJS script) with Node.js's
 * own `--build-sea`: `builder` (a Node.js of SEA_NODE_VERSION that runs here) writes the blob into
 * a copy of `target` (the same version's executable for the release's platform) at `output`. With
 * `codeCache`, V8's code cache of the bundle, made by compiling it here, goes in too; with
 * `snapshot`, the builder runs the bundle and puts a V8 startup snapshot of its heap in instead (the executable then calls only the main function
 * the bundle set with `v8.startupSnapshot.setDeserializeMainFunction`). Either only for a target of
 * the builder's own platform (valid only for the V8 and CPU that made it).
 *
 * The same bundle and target give the same executable, byte for byte, with or without the cache
 * (not with a snapshot: V8 writes other bytes each time, even with fixed seeds):
 * the blob names its main script by the bundle's file name alone (the builder runs in the bundle's
 * directory, so the output directory is not in it), and the builder compiles with a fixed random
 * seed (BUILDER_RANDOM_SEED). The configuration is written to `configFile` and removed after.
 */
export function buildSeaExecutable(options: {
  readonly builder: string;
  readonly target: string;
  readonly bundle: string;
  readonly output: string;
  readonly configFile: string;
  /** Include V8's code cache (faster start). */
  readonly codeCache: boolean;
  /** Start from a V8 startup snapshot (faster still; replaces the code cache; not the same bytes from one build to the next). */
  readonly snapshot?: boolean;
}): SeaExecutable {
  const snapshot = options.snapshot === true;
  const codeCache = options.codeCache && !snapshot;
  const output = resolve(options.output);
  const config = {
    main: basename(options.bundle),
    mainFormat: "commonjs",
    executable: resolve(options.target),
    output,
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache,
    useSnapshot: snapshot,
    // terraform's environment must not change how the provider's Node.js runs
    execArgvExtension: "none",
  };
  const configFile = resolve(options.configFile);
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  try {
    const result = spawnSync(options.builder, [BUILDER_RANDOM_SEED, "--build-sea", configFile], {
      cwd: dirname(resolve(options.bundle)),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "" },
    });
    if (result.error || result.status !== 0) {
      throw new Error(`node --build-sea ${configFile} exited ${result.status ?? result.error?.message}: ${`${result.stdout}${result.stderr}`.trim()}`);
    }
  } finally {
    rmSync(configFile, { force: true });
  }
  chmodSync(output, 0o755);
  return { file: output, bytes: statSync(output).size, codeCache, snapshot };
}
