import { spawnSync } from "node:child_process";
import { chmodSync, statSync, writeFileSync } from "node:fs";

/** What `buildSeaExecutable` made. */
export interface SeaExecutable {
  readonly file: string;
  readonly bytes: number;
  /** Whether V8's code cache of the bundle is in it. */
  readonly codeCache: boolean;
}

/**
 * Makes a Node.js single executable application of `bundle` (an ESM file) with Node.js's own
 * `--build-sea`: `builder` (a Node.js of SEA_NODE_VERSION that runs here) writes the blob into a
 * copy of `target` (the same version's executable for the release's platform) at `output`. With
 * `codeCache`, V8's code cache of the bundle, made by compiling it here, goes in too: only for a
 * target of the builder's own platform (a cache is valid only for the V8 and CPU that made it).
 * Without it the same bundle always gives the same executable, byte for byte.
 */
export function buildSeaExecutable(options: {
  readonly builder: string;
  readonly target: string;
  readonly bundle: string;
  readonly output: string;
  readonly configFile: string;
  /** Include V8's code cache (faster start; not the same bytes from one build to the next). */
  readonly codeCache: boolean;
}): SeaExecutable {
  const codeCache = options.codeCache;
  const config = {
    main: options.bundle,
    mainFormat: "module",
    executable: options.target,
    output: options.output,
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache,
    useSnapshot: false,
    // terraform's environment must not change how the provider's Node.js runs
    execArgvExtension: "none",
  };
  writeFileSync(options.configFile, `${JSON.stringify(config, null, 2)}\n`);
  const result = spawnSync(options.builder, ["--build-sea", options.configFile], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
  if (result.error || result.status !== 0) {
    throw new Error(`node --build-sea ${options.configFile} exited ${result.status ?? result.error?.message}: ${`${result.stdout}${result.stderr}`.trim()}`);
  }
  chmodSync(options.output, 0o755);
  return { file: options.output, bytes: statSync(options.output).size, codeCache };
}
