import { spawnSync } from "node:child_process";
import { chmodSync, statSync, writeFileSync } from "node:fs";

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
 * Makes a Node.js single executable application of `bundle` (a CommonJS script) with Node.js's own
 * `--build-sea`: `builder` (a Node.js of SEA_NODE_VERSION that runs here) writes the blob into a
 * copy of `target` (the same version's executable for the release's platform) at `output`. With
 * `snapshot`, the builder runs the bundle and puts a V8 startup snapshot of its heap in (the bundle's
 * modules compiled and run, Node.js's own modules it loaded at start loaded: the executable then
 * calls only the main function the bundle set with `v8.startupSnapshot.setDeserializeMainFunction`);
 * with `codeCache` alone, V8's code cache of the bundle, made by compiling it here. Either only for
 * a target of the builder's own platform (valid only for the V8 and CPU that made it), and neither
 * the same bytes from one build to the next; without both, the same bundle always gives the same
 * executable, byte for byte.
 */
export function buildSeaExecutable(options: {
  readonly builder: string;
  readonly target: string;
  readonly bundle: string;
  readonly output: string;
  readonly configFile: string;
  /** Include V8's code cache (faster start; not the same bytes from one build to the next). */
  readonly codeCache: boolean;
  /** Start from a V8 startup snapshot (faster still; replaces the code cache; not the same bytes from one build to the next). */
  readonly snapshot?: boolean;
}): SeaExecutable {
  const snapshot = options.snapshot === true;
  const codeCache = options.codeCache && !snapshot;
  const config = {
    main: options.bundle,
    mainFormat: "commonjs",
    executable: options.target,
    output: options.output,
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache,
    useSnapshot: snapshot,
    // terraform's environment must not change how the provider's Node.js runs
    execArgvExtension: "none",
  };
  writeFileSync(options.configFile, `${JSON.stringify(config, null, 2)}\n`);
  const result = spawnSync(options.builder, ["--build-sea", options.configFile], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
  if (result.error || result.status !== 0) {
    throw new Error(`node --build-sea ${options.configFile} exited ${result.status ?? result.error?.message}: ${`${result.stdout}${result.stderr}`.trim()}`);
  }
  chmodSync(options.output, 0o755);
  return { file: options.output, bytes: statSync(options.output).size, codeCache, snapshot };
}
