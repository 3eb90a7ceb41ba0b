import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_WORLD, startService, type WorldInput } from "../../src/service/index.js";
import { startServeProcess } from "../support/serve-process.js";
import type { BenchService } from "./bench-case.js";

export const BENCH_TOKEN = "bench-token";

/**
 * The world every case starts from: an organization with one member, one all-powerful identity, the
 * demo world's 30-Region catalog, and neither throttling nor faults (they would measure themselves).
 */
export const BENCH_WORLD: WorldInput = {
  organization: { managementAccountId: "111111111111", memberAccountIds: ["222222222222"] },
  accounts: ["111111111111", "222222222222"],
  identities: [{ token: BENCH_TOKEN, accountId: "111111111111", allow: ["*"] }],
  regions: DEMO_WORLD.regions ?? [],
  regionTransitionMs: 0,
};

export interface RunningBenchService extends BenchService {
  /** Stops the service and removes its temporary files. */
  close(): Promise<void>;
}

export interface BenchServiceOptions {
  readonly durable: boolean;
  /**
   * Run the service in this process instead of a child. Autocannon then competes with it for
   * the same thread, which roughly halves what a 2-core machine measures. @default false
   */
  readonly inProcess: boolean;
  /** Directory for `--cpu-prof` profiles of the service process (child process only). */
  readonly cpuProfileDir?: string;
}

/** Starts a fresh service for one case: `converge serve` in a child process unless `inProcess`. */
export async function startBenchService(options: BenchServiceOptions): Promise<RunningBenchService> {
  const directory = await mkdtemp(join(tmpdir(), "converge-bench-"));
  const stateFile = options.durable ? join(directory, "state.jsonl") : undefined;
  const removeDirectory = () => rm(directory, { recursive: true, force: true });
  try {
    if (options.inProcess) {
      const service = await startService({ port: 0, world: BENCH_WORLD, ...(stateFile ? { stateFile } : {}) });
      return { url: service.url, world: BENCH_WORLD, token: BENCH_TOKEN, close: () => service.close().finally(removeDirectory) };
    }
    const worldFile = join(directory, "world.json");
    await writeFile(worldFile, JSON.stringify(BENCH_WORLD));
    const child = await startServeProcess({
      worldFile,
      ...(stateFile ? { stateFile } : {}),
      ...(options.cpuProfileDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] } : {}),
    });
    return {
      url: child.url,
      world: BENCH_WORLD,
      token: BENCH_TOKEN,
      async close() {
        const exit = await child.stop("SIGTERM");
        await removeDirectory();
        if (exit.code !== 0) throw new Error(`the service process ended with code ${exit.code}, signal ${exit.signal}; stderr: ${child.stderr()}`);
      },
    };
  } catch (error) {
    await removeDirectory();
    throw error;
  }
}
