import { setMaxListeners } from "node:events";
import type { Clients, ExchangeListener } from "../clients/index.js";
import type { CycleRecord } from "./cycle-record.js";
import { runCycle } from "./cycle.js";
import type { CycleMeter, DesiredSource } from "./cycle-context.js";
import type { EventLog } from "./event-log.js";
import { DesiredMemory, FightTracker, FindingMemory } from "./guards.js";
import type { HeldLock, LockProvider } from "./leadership.js";
import type { ReconcilerMetrics } from "./metrics.js";
import type { ReconcilerOptions } from "./reconciler-options.js";
import { firstWait, nextWait } from "./schedule.js";

export interface ReconcilerDeps {
  /** Makes the clients, with the reconciler's listener of every request (metrics, throttling). */
  readonly connect: (onExchange: ExchangeListener) => Clients;
  readonly source: DesiredSource;
  readonly lock?: LockProvider | undefined;
  readonly log: EventLog;
  readonly metrics: ReconcilerMetrics;
  readonly options: ReconcilerOptions;
  readonly now?: () => Date;
  readonly random?: () => number;
}

/** Whether this instance reconciles: alone (no --lock), as the holder of the lock, or standing by. */
export type Role = "single" | "leader" | "standby";
/** What the loop is doing. */
export type Phase = "starting" | "waiting" | "cycling" | "standby" | "stopping" | "stopped";

/** How often a standby instance tries the lock. */
const STANDBY_POLL_MS = 1000;
/** How long SIGTERM lets the writes under way finish before they are cut off. */
const STOP_GRACE_MS = 8000;

/**
 * The continuous reconciler (docs/manual/continuous-reconcile.md): cycles on a timer, with
 * jitter, backoff after failures, triggers (SIGHUP, `POST /reconcile`), a lock to run one of
 * several instances, and a clean stop. Each cycle is runCycle; the loop adds only scheduling, the
 * memory of earlier cycles (guards.ts) and what it reports (the status, metrics and log).
 */
export class Reconciler {
  readonly #deps: ReconcilerDeps;
  readonly #now: () => Date;
  readonly #random: () => number;
  readonly #clients: Clients;
  readonly #memory = new DesiredMemory();
  readonly #fights: FightTracker;
  readonly #findings = new FindingMemory();
  readonly #meter: CycleMeter = { requests: 0, throttled: false, retryAfterMs: 0 };
  readonly #stopWrites = new AbortController();
  readonly #hardStop = new AbortController();
  readonly startedAt: Date;
  #cycle = 0;
  #last: CycleRecord | undefined;
  #lastSuccessAt: string | undefined;
  #role: Role;
  #phase: Phase = "starting";
  #holder: string | undefined;
  #failures = 0;
  #nextAt: Date | undefined;
  #cycleStartedAt: Date | undefined;
  #wake: (() => void) | undefined;
  #pending: string | undefined;
  #leadership: HeldLock | undefined;
  #running: Promise<void> | undefined;

  constructor(deps: ReconcilerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
    this.#random = deps.random ?? Math.random;
    this.#fights = new FightTracker(deps.options.fight);
    this.#role = deps.lock ? "standby" : "single";
    this.startedAt = this.#now();
    this.#clients = deps.connect((exchange) => {
      this.#meter.requests += 1;
      if (exchange.status === 429) {
        this.#meter.throttled = true;
        this.#meter.retryAfterMs = Math.max(this.#meter.retryAfterMs, exchange.retryAfterMs ?? 0);
      }
      deps.metrics.observeExchange(exchange);
    });
  }

  /** Runs cycles until stop() (for `--once`, see runOnce). */
  start(): Promise<void> {
    this.#running ??= this.#loop();
    return this.#running;
  }

  /** One cycle now (taking apply's lock for it when there is one), then the clients are closed (`--once`). */
  async runOnce(): Promise<CycleRecord> {
    try {
      return await this.cycleNow();
    } finally {
      await this.#clients.close();
    }
  }

  /** One cycle now, outside the loop (which must not be running): what runOnce and tests step through. */
  cycleNow(): Promise<CycleRecord> {
    if (this.#running) throw new Error("cycleNow: the loop is running; use trigger()");
    return this.#cycleUnderLock();
  }

  /** Closes the clients of a reconciler stepped with cycleNow. */
  close(): Promise<void> {
    return this.#clients.close();
  }

  /** Runs a cycle as soon as possible: now when waiting, right after the cycle under way otherwise. A trigger is never lost. */
  trigger(reason: string): void {
    if (this.#phase === "stopping" || this.#phase === "stopped") return;
    this.#pending ??= reason;
    this.#wake?.();
  }

  /**
   * Stops: no write starts any more, those under way finish (cut off after a grace period), then
   * the lock is released and the clients closed. Resolves once the loop has ended.
   */
  async stop(): Promise<void> {
    if (this.#phase === "stopped") return;
    const started = this.#now();
    this.#phase = "stopping";
    this.#stopWrites.abort();
    this.#wake?.();
    const grace = setTimeout(() => this.#hardStop.abort(new Error("stopping: the writes under way were cut off")), STOP_GRACE_MS);
    try {
      await this.#running;
    } finally {
      clearTimeout(grace);
      await this.#resign();
      await this.#clients.close();
      this.#phase = "stopped";
      this.#deps.log.event("info", "stop", `stopped after ${this.#now().getTime() - started.getTime()} ms: the lock (if any) released`);
    }
  }

  /** The last cycle, or undefined before the first ends. */
  get last(): CycleRecord | undefined {
    return this.#last;
  }

  /** What the loop is and does now, for /status, /healthz and /readyz. */
  get state() {
    return {
      role: this.#role,
      phase: this.#phase,
      holder: this.#holder,
      cycle: this.#cycle,
      nextCycleAt: this.#nextAt?.toISOString(),
      cycleStartedAt: this.#cycleStartedAt?.toISOString(),
      failuresInARow: this.#failures,
      lastSuccessfulCycleAt: this.#lastSuccessAt,
      startedAt: this.startedAt.toISOString(),
    } as const;
  }

  /** Ready once a cycle has run to its end, or while standing by (ready to take over). */
  get ready(): boolean {
    return this.#last !== undefined || this.#role === "standby";
  }

  /**
   * Alive unless the loop is stuck: a cycle running well past its deadline, or a wait well past its
   * end (a bad desired state or an endpoint that fails does not make it so: those are cycles).
   */
  get alive(): boolean {
    const now = this.#now().getTime();
    const slack = 60_000;
    if (this.#phase === "cycling" && this.#cycleStartedAt) return now - this.#cycleStartedAt.getTime() < this.#deps.options.cycleTimeoutMs + slack;
    if (this.#phase === "waiting" && this.#nextAt) return now - this.#nextAt.getTime() < slack;
    return true;
  }

  async #loop(): Promise<void> {
    const { options, log } = this.#deps;
    log.event("info", "start", `reconciling every ${options.intervalMs / 1000} s with policy ${options.policy}`
      + `${options.shard ? `, shard ${options.shard.index}/${options.shard.count}` : ""}; memory of earlier cycles starts empty (a restart forgets them)`, {
      intervalMs: options.intervalMs, policy: options.policy, ...(options.shard ? { shard: `${options.shard.index}/${options.shard.count}` } : {}),
    });
    let wait = firstWait(options, this.#random);
    while (!this.#stopping) {
      if (this.#leadership?.signal.aborted) this.#lostLeadership();
      if (this.#deps.lock && !this.#leadership) {
        await this.#standBy();
        if (this.#stopping) break;
        wait = 0;
      }
      await this.#sleep(wait);
      if (this.#stopping) break;
      if (this.#leadership?.signal.aborted) continue;
      const record = await this.#cycleUnderLock().catch((error: unknown) => this.#unexpected(error));
      if (this.#stopping) break;
      const timing = { failed: record === undefined || record.result === "error", throttled: record?.throttled ?? false, retryAfterMs: this.#meter.retryAfterMs };
      const next = nextWait(timing, this.#failures, options, this.#random);
      this.#failures = next.failures;
      wait = this.#pending !== undefined ? 0 : next.waitMs;
    }
  }

  get #stopping(): boolean {
    return this.#phase === "stopping" || this.#phase === "stopped";
  }

  /** Waits `ms`, or less when triggered or stopped. */
  async #sleep(ms: number): Promise<void> {
    if (this.#pending !== undefined || ms <= 0) {
      this.#pending = undefined;
      return;
    }
    this.#phase = "waiting";
    this.#nextAt = new Date(this.#now().getTime() + ms);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = undefined;
    this.#nextAt = undefined;
    this.#pending = undefined;
  }

  /** One cycle, under apply's lock when there is one: an apply under way is waited for. */
  async #cycleUnderLock(): Promise<CycleRecord> {
    this.#phase = "cycling";
    this.#cycleStartedAt = this.#now();
    // the cycle's own signals, linked to the process's long-lived ones by listeners removed when it ends
    // (AbortSignal.any would leave each cycle's trace in them for the life of the process)
    const cycle = new CycleSignals(this.#deps.options.cycleTimeoutMs, [this.#hardStop.signal, ...(this.#leadership ? [this.#leadership.signal] : [])], this.#stopWrites.signal);
    let cycleLock: HeldLock | undefined;
    try {
      if (this.#deps.lock) cycleLock = await this.#deps.lock.forCycle(cycle.read);
      if (cycleLock) cycle.follow(cycleLock.signal);
      return this.#recorded(await this.#runCycle(cycle));
    } finally {
      cycle.dispose();
      await cycleLock?.release();
      this.#cycleStartedAt = undefined;
      if (!this.#stopping) this.#phase = "waiting";
    }
  }

  async #runCycle(cycle: CycleSignals): Promise<CycleRecord> {
    this.#cycle += 1;
    this.#meter.requests = 0;
    this.#meter.throttled = false;
    this.#meter.retryAfterMs = 0;
    return runCycle({
      clients: this.#clients,
      options: this.#deps.options,
      source: this.#deps.source,
      memory: this.#memory,
      fights: this.#fights,
      findings: this.#findings,
      meter: this.#meter,
      signal: cycle.all,
      readSignal: cycle.read,
      stop: this.#stopWrites.signal,
      now: this.#now,
    }, this.#cycle);
  }

  #recorded(record: CycleRecord): CycleRecord {
    this.#last = record;
    if (record.result === "success") this.#lastSuccessAt = record.finishedAt;
    this.#deps.metrics.observeCycle(record);
    this.#deps.log.cycle(record);
    return record;
  }

  /**
   * A cycle that threw instead of ending in a record (its lock not taken before its deadline, or a
   * bug): logged, and counted as a failure, so that the loop backs off and goes on; it never exits.
   */
  #unexpected(error: unknown): undefined {
    if (this.#stopping) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    this.#deps.log.event("error", "cycle", `a cycle did not end: ${message}`, { error: message });
    this.#deps.metrics.cycleDidNotEnd();
    return undefined;
  }

  /** Stands by until the reconciler's lock is free and taken, or the reconciler stops. */
  async #standBy(): Promise<void> {
    const lock = this.#deps.lock!;
    let said: string | undefined;
    while (!this.#stopping) {
      const attempt = await lock.tryLead();
      if ("held" in attempt) {
        this.#leadership = attempt.held;
        this.#role = "leader";
        this.#holder = undefined;
        this.#deps.metrics.lockHeld(true);
        this.#deps.log.event("info", "lock", `took the lock ${lock.file}: this instance reconciles`, { lock: lock.file, role: "leader" });
        return;
      }
      this.#role = "standby";
      this.#phase = "standby";
      this.#holder = attempt.holder;
      if (said !== attempt.holder) {
        said = attempt.holder;
        this.#deps.log.event("info", "lock", `standing by: the lock ${lock.file} is held by ${attempt.holder}`, { lock: lock.file, role: "standby", holder: attempt.holder });
      }
      await this.#sleep(STANDBY_POLL_MS);
    }
  }

  #lostLeadership(): void {
    this.#deps.log.event("warn", "lock", `lost the lock ${this.#deps.lock!.file} (another instance may have taken it over): standing by`, { lock: this.#deps.lock!.file, role: "standby" });
    this.#leadership = undefined;
    this.#role = "standby";
    this.#deps.metrics.lockHeld(false);
  }

  async #resign(): Promise<void> {
    const held = this.#leadership;
    this.#leadership = undefined;
    if (held) {
      await held.release().catch(() => undefined);
      this.#deps.metrics.lockHeld(false);
    }
  }
}

/**
 * The signals of one cycle: `all` aborts its reads and writes (its deadline passed, the process was
 * stopped hard, the lock was lost), `read` also on a stop (nothing is worth reading then). Linked to
 * the process's signals by listeners that dispose() removes, and every request of the cycle listens
 * to them (no listener limit, so that Node prints no warning).
 */
class CycleSignals {
  readonly #all = new AbortController();
  readonly #read = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #links: Array<() => void> = [];

  constructor(timeoutMs: number, sources: ReadonlyArray<AbortSignal>, stop: AbortSignal) {
    setMaxListeners(0, this.#all.signal);
    setMaxListeners(0, this.#read.signal);
    this.#timer = setTimeout(() => this.#abort(new Error(`the cycle ran longer than --cycle-timeout (${timeoutMs / 1000} s)`)), timeoutMs);
    for (const source of sources) this.follow(source);
    this.#link(stop, (reason) => this.#read.abort(reason));
  }

  get all(): AbortSignal {
    return this.#all.signal;
  }

  get read(): AbortSignal {
    return this.#read.signal;
  }

  /** Aborts the cycle when `source` aborts. */
  follow(source: AbortSignal): void {
    this.#link(source, (reason) => this.#abort(reason));
  }

  dispose(): void {
    clearTimeout(this.#timer);
    for (const unlink of this.#links.splice(0)) unlink();
  }

  #abort(reason: unknown): void {
    this.#all.abort(reason);
    this.#read.abort(reason);
  }

  #link(source: AbortSignal, abort: (reason: unknown) => void): void {
    if (source.aborted) {
      abort(source.reason);
      return;
    }
    const onAbort = () => abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    this.#links.push(() => source.removeEventListener("abort", onAbort));
  }
}
