import { hostname } from "node:os";
import type { ExchangeListener } from "../../clients/index.js";
import { LoadCache } from "../../desired/load-cache.js";
import { STDIN_PATH } from "../../desired/load.js";
import type { ReconcilePolicy } from "../../desired/schema.js";
import { shardBucketOf } from "../../reconcile/drift-shards.js";
import type { CycleRecord } from "../../reconciler/cycle-record.js";
import type { DesiredSource } from "../../reconciler/cycle-context.js";
import { describeSummary, EventLog, type LogFormat } from "../../reconciler/event-log.js";
import type { LockProvider } from "../../reconciler/leadership.js";
import { ReconcilerMetrics } from "../../reconciler/metrics.js";
import { Reconciler } from "../../reconciler/reconciler.js";
import { DEFAULT_LISTEN, type ReconcilerOptions } from "../../reconciler/reconciler-options.js";
import { startReconciling } from "../../reconciler/run-reconciler.js";
import { CliError } from "../cli-error.js";
import { connect, type ConnectionFlags } from "../connection.js";
import { parseDuration } from "../duration.js";
import { acquireLock, LockHeldError } from "../lock.js";
import { packageVersion } from "../release/package-version.js";
import { loadDriftInput } from "../state-input.js";
import type { VariableFlags } from "../variable-flags.js";
import { parseShard } from "./drift-command.js";

export interface ReconcileFlags extends ConnectionFlags, VariableFlags {
  readonly file: string[];
  readonly fromSynth?: string;
  readonly state: string[];
  readonly prune: boolean;
  readonly repairTwins: boolean;
  readonly interval: string;
  readonly jitter: string;
  readonly retryInterval: string;
  readonly cycleTimeout: string;
  readonly once: boolean;
  readonly policy: ReconcilePolicy;
  readonly maxChanges?: number;
  readonly allowShrink: boolean;
  readonly fightCorrections: number;
  readonly fightCycles: number;
  readonly lock?: string;
  readonly listen: string;
  readonly logFormat: LogFormat;
  readonly shard?: string;
  readonly parallelism: number;
  readonly output: "text" | "json";
}

/**
 * `converge reconcile`: the continuous reconciler (docs/manual/continuous-reconcile.md). Parses the
 * flags, makes the desired state's source, the clients, the locks and the log, and starts the loop
 * of src/reconciler/ with its endpoints; SIGHUP runs a cycle now, SIGTERM and SIGINT stop it (exit 0).
 * `--once` runs one cycle and exits as plan does: 0 nothing left to change, 2 differences left, 1 error.
 */
export async function reconcileCommand(flags: ReconcileFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const options = reconcilerOptions(flags, env);
  const listen = flags.once ? undefined : parseListen(flags.listen);
  const log = new EventLog((line) => process.stderr.write(line), flags.logFormat);
  const metrics = new ReconcilerMetrics({
    withLock: flags.lock !== undefined,
    version: packageVersion(),
    policy: options.policy,
    shard: options.shard ? `${options.shard.index}/${options.shard.count}` : "",
  });
  const deps = {
    connect: (onExchange: ExchangeListener) => connect(flags, env, { onExchange }),
    source: desiredSource(flags, options, log),
    lock: flags.lock !== undefined ? lockProvider(flags.lock) : undefined,
    lockFile: flags.lock,
    log,
    metrics,
    options,
  };
  if (!listen) return exitCodeOf(await printOnce(await new Reconciler(deps).runOnce(), flags.output));
  const running = await startReconciling(deps, listen.host, listen.port);
  process.stdout.write(`listening on ${running.endpoints.url}\n`);
  return waitForSignals(running, log);
}

function reconcilerOptions(flags: ReconcileFlags, env: NodeJS.ProcessEnv): ReconcilerOptions {
  if (flags.file.includes(STDIN_PATH) || flags.state.includes(STDIN_PATH)) {
    throw new CliError("reconcile reads its desired state again every cycle, and standard input can be read once: pass -f FILE_OR_DIRECTORY "
      + "(a renderer's output written to a file, or converge plan -f - for one run)");
  }
  if (flags.file.length === 0 && flags.fromSynth === undefined && flags.state.length === 0) {
    throw new CliError("nothing to reconcile: pass -f FILE_OR_DIRECTORY (repeatable) or --from-synth DIR");
  }
  const intervalMs = parseDuration(flags.interval, "--interval", 1000, 24 * 3_600_000);
  const jitter = Number(flags.jitter);
  if (!/^\d+(\.\d+)?$/.test(flags.jitter.trim()) || jitter > 0.5) {
    throw new CliError(`--jitter ${JSON.stringify(flags.jitter)} is not valid: expected a fraction of the interval from 0 to 0.5 (e.g. 0.1)`);
  }
  return {
    intervalMs,
    jitter: flags.once ? 0 : jitter,
    policy: flags.policy,
    maxChanges: flags.maxChanges,
    allowShrink: flags.allowShrink,
    fight: { corrections: flags.fightCorrections, cycles: flags.fightCycles },
    retryMs: Math.min(intervalMs, parseDuration(flags.retryInterval, "--retry-interval", 100, 24 * 3_600_000)),
    cycleTimeoutMs: parseDuration(flags.cycleTimeout, "--cycle-timeout", 1000, 24 * 3_600_000),
    prune: flags.prune,
    repairTwins: flags.repairTwins,
    parallelism: flags.parallelism,
    shard: flags.shard !== undefined ? parseShard(flags.shard, env) : undefined,
  };
}

/** `HOST:PORT`, `:PORT` (loopback) or `[IPv6]:PORT`; port 0 picks a free one. */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new CliError(`--listen ${JSON.stringify(text)} is not valid: expected HOST:PORT (e.g. ${DEFAULT_LISTEN}, 0.0.0.0:8474 in a container, or :0 for a free port)`);
  }
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}

/**
 * The desired state, loaded anew each cycle: unchanged files are not parsed again (LoadCache), and
 * the loader's warnings are logged once each, not every cycle.
 */
function desiredSource(flags: ReconcileFlags, options: ReconcilerOptions, log: EventLog): DesiredSource {
  const cache = new LoadCache();
  const shard = options.shard;
  // a shard parses only its own documents (and those whose shard only the list of APIs tells), as drift's shards do
  const select = shard && ((key: string) => key.startsWith("api:name:") || shardBucketOf(key, shard.count) === shard.index - 1);
  const said = new Set<string>();
  const onWarning = (warning: string) => {
    if (said.has(warning)) return;
    said.add(warning);
    log.event("warn", "desired-state", warning);
  };
  return { load: () => loadDriftInput(flags, { ...(select ? { select } : {}), cache, onWarning }) };
}

/**
 * `--lock FILE`: the reconciler's own lock at FILE.reconciler (held while this instance reconciles;
 * the others stand by), and apply's lock FILE for each cycle (waiting while an apply holds it).
 */
function lockProvider(file: string): LockProvider {
  const command = `converge reconcile (pid ${process.pid} on ${hostname()})`;
  return {
    file,
    async tryLead() {
      try {
        return { held: await acquireLock(`${file}.reconciler`, { timeoutMs: 0, command }) };
      } catch (error) {
        if (error instanceof LockHeldError) return { holder: error.holder };
        throw error;
      }
    },
    forCycle: (signal) => acquireLock(file, { timeoutMs: 24 * 3_600_000, command, signal }),
  };
}

/** Runs until SIGTERM or SIGINT (a second one ends the process at once); SIGHUP runs a cycle now. */
function waitForSignals(running: Awaited<ReturnType<typeof startReconciling>>, log: EventLog): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onHup = () => running.reconciler.trigger("SIGHUP");
    const onStop = (signal: NodeJS.Signals) => {
      if (stopping) {
        log.event("warn", "stop", `${signal} again: stopped at once; a write under way may or may not have been made (the next cycle converges it)`, { signal });
        process.exit(signal === "SIGINT" ? 130 : 143);
      }
      stopping = true;
      log.event("info", "stop", `${signal} received: the writes under way finish, no other starts (${signal} again to stop at once)`, { signal });
      running.stop().then(() => {
        process.off("SIGHUP", onHup);
        process.off("SIGINT", onStop);
        process.off("SIGTERM", onStop);
        resolve(0);
      }, (error: unknown) => {
        log.event("error", "stop", `error while stopping: ${error instanceof Error ? error.message : String(error)}`);
        resolve(1);
      });
    };
    process.on("SIGHUP", onHup);
    process.on("SIGINT", onStop);
    process.on("SIGTERM", onStop);
    // the loop ends only when stopped, or when its lock cannot be taken at all (a directory that does not exist)
    running.done.catch(async (error: unknown) => {
      log.event("error", "stop", `converge: ${error instanceof Error ? error.message : String(error)}`);
      await running.stop().catch(() => undefined);
      resolve(1);
    });
  });
}

/** `--once`: the cycle's resources that are not in sync, and its summary (or the record as JSON). */
async function printOnce(record: CycleRecord, output: "text" | "json"): Promise<CycleRecord> {
  if (output === "json") {
    const { report: _report, ...shown } = record;
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return record;
  }
  const lines = record.resources
    .filter((resource) => resource.state !== "in-sync")
    .map((resource) => `  ${resource.state.padEnd(9)} ${resource.address}${resource.withheld ? `: ${resource.withheld.reason}` : resource.reason ? `: ${resource.reason}` : ""}`);
  process.stdout.write(`${lines.join("\n")}${lines.length > 0 ? "\n" : ""}cycle ${record.result}: ${describeSummary(record)}`
    + `${record.guard ? `; writes stopped by ${record.guard.guard}: ${record.guard.message}` : ""}${record.error ? `; ${record.error}` : ""}\n`);
  return record;
}

/** plan's exit codes: 1 the cycle failed (or its desired state is not valid), 2 differences left, 0 none. */
function exitCodeOf(record: CycleRecord): number {
  if (record.result === "error" || record.guard?.guard === "desired-state") return 1;
  return record.result === "success" ? 0 : 2;
}

