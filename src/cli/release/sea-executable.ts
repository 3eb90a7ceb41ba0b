import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

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
 * V8's flag for the builder of a startup snapshot: memory the garbage collector frees is zeroed.
 * Without it, an object allocated where another was can keep the old one's bytes where it has no
 * field of its own, and the serializer copies them: under load, one build in two of the same bundle
 * differed in 5 to 9 bytes (a stale address), and none of 16 with the flag. It is the builder's
 * alone: the executable runs with V8's defaults, and takes the snapshot.
 */
const SNAPSHOT_BUILDER_FLAG = "--clear-free-memory";

/**
 * The name a startup snapshot's main script is built under. Node.js's snapshot builder compiles the
 * main script under its absolute path (which stays in the heap) unless it is this name, its own for
 * a script with no file (`anonymousMainPath` of lib/internal/main/mksnapshot.js): so the snapshot
 * does not depend on the directory the release is built in.
 */
const SNAPSHOT_MAIN = "__node_anonymous_main";

/**
 * Makes a Node.js single executable application of `bundle` (a CommonJS script) with Node.js's
 * own `--build-sea`: `builder` (a Node.js of SEA_NODE_VERSION that runs here) writes the blob into
 * a copy of `target` (the same version's executable for the release's platform) at `output`. With
 * `codeCache`, V8's code cache of the bundle, made by compiling it here, goes in too; with
 * `snapshot`, the builder runs the bundle and puts a V8 startup snapshot of its heap in instead
 * (the executable then calls only the main function the bundle set with
 * `v8.startupSnapshot.setDeserializeMainFunction`). Either only for a target of the builder's own
 * platform (valid only for the V8 and CPU that made it).
 *
 * The same bundle and target give the same executable, byte for byte, with the cache, the snapshot
 * or neither, wherever it is built: the builder compiles with a fixed random seed
 * (BUILDER_RANDOM_SEED), and a snapshot's zeroes the memory it frees (SNAPSHOT_BUILDER_FLAG); it
 * runs in a directory of its own beside `output`, where the bundle is copied (as SNAPSHOT_MAIN for
 * a snapshot, else under its own file name, by which the blob names it) and the configuration is
 * written as `configName`, both named relative to it, so that no path of the build is in the blob
 * or the heap. The rest is the bundle's to keep out of its heap: the builder's process ID, and any
 * DataView, whose data address V8 writes verbatim (the provider's: src/provider/main.ts). The
 * directory is removed after.
 */
export function buildSeaExecutable(options: {
  readonly builder: string;
  readonly target: string;
  readonly bundle: string;
  readonly output: string;
  /** The configuration's file name (a snapshot's heap holds it: keep it the same from build to build). */
  readonly configName: string;
  /** Include V8's code cache (faster start). */
  readonly codeCache: boolean;
  /** Start from a V8 startup snapshot (faster still; replaces the code cache). */
  readonly snapshot?: boolean;
}): SeaExecutable {
  const snapshot = options.snapshot === true;
  const codeCache = options.codeCache && !snapshot;
  const output = resolve(options.output);
  const workDir = mkdtempSync(join(dirname(output), ".sea-build-"));
  const main = snapshot ? SNAPSHOT_MAIN : basename(options.bundle);
  const config = {
    main,
    mainFormat: "commonjs",
    executable: resolve(options.target),
    output,
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache,
    useSnapshot: snapshot,
    // terraform's environment must not change how the provider's Node.js runs
    execArgvExtension: "none",
  };
  try {
    copyFileSync(options.bundle, join(workDir, main));
    writeFileSync(join(workDir, options.configName), `${JSON.stringify(config, null, 2)}\n`);
    const result = spawnSync(options.builder, [BUILDER_RANDOM_SEED, ...(snapshot ? [SNAPSHOT_BUILDER_FLAG] : []), "--build-sea", options.configName], {
      cwd: workDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "" },
    });
    if (result.error || result.status !== 0) {
      throw new Error(`node --build-sea ${options.configName} (of ${options.bundle}) exited ${result.status ?? result.error?.message}: ${`${result.stdout}${result.stderr}`.trim()}`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  chmodSync(output, 0o755);
  return { file: output, bytes: statSync(output).size, codeCache, snapshot };
}
