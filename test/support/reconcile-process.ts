import { setTimeout as sleep } from "node:timers/promises";
import { startListeningProcess, type ListeningProcess, type ListeningProcessOptions } from "./serve-process.js";

/** What the tests read of GET /status (docs/manual/continuous-reconcile.md, "Endpoints"). */
export interface ReconcileStatus {
  readonly role: string;
  readonly phase: string;
  readonly cycle: number;
  readonly ready: boolean;
  readonly nextCycleAt?: string;
  readonly last: null | {
    readonly cycle: number;
    readonly result: string;
    readonly guard?: { readonly guard: string; readonly message: string };
    readonly error?: string;
    readonly summary: Readonly<Record<string, number>>;
    readonly resources: ReadonlyArray<{ readonly address: string; readonly state: string; readonly outcome: string; readonly withheld?: { readonly guard: string; readonly reason: string } }>;
    readonly writes: ReadonlyArray<{ readonly address: string; readonly type: string; readonly status: string }>;
    readonly desiredState: { readonly loaded: boolean; readonly documents: number; readonly problems: ReadonlyArray<{ readonly file: string; readonly message: string }> };
  };
}

/** A cycle's line of the reconciler's JSON log (`--log-format json`, event `cycle`: src/reconciler/event-log.ts). */
export interface CycleEvent {
  readonly cycle: number;
  readonly result: "success" | "drift" | "refused" | "error";
  readonly durationMs: number;
  /** Requests the cycle sent, retries included. */
  readonly requests: number;
  readonly throttled: boolean;
  readonly summary: Readonly<Record<string, number>>;
  readonly error?: string;
}

/** `converge reconcile` running as a child process (startReconcileProcess), with its endpoints. */
export interface ReconcileProcess extends ListeningProcess {
  /** GET (or POST) one of its endpoints: status and text. */
  request(path: string, method?: "GET" | "POST"): Promise<{ status: number; text: string }>;
  /** GET /status, parsed. */
  status(): Promise<ReconcileStatus>;
  /** The value of one series of GET /metrics (`name{labels}` as written there), or undefined. */
  metric(series: string): Promise<number | undefined>;
  /** With `logFormat: "json"`: the cycle lines logged so far, in order. */
  cycles(): CycleEvent[];
  /** With `logFormat: "json"`: cycle `number`'s line once it is logged; rejects when the process exits first or after `timeoutMs`. */
  cycle(number: number, timeoutMs?: number): Promise<CycleEvent>;
  /** With `logFormat: "json"`: `POST /reconcile`, then the line of the cycle it runs (the next one to start). */
  reconcileNow(timeoutMs?: number): Promise<CycleEvent>;
}

export interface ReconcileProcessOptions extends ListeningProcessOptions {
  /** `--log-format`; `json` makes the cycle lines readable by cycles(), cycle() and reconcileNow(). @default "text" */
  readonly logFormat?: "text" | "json";
}

const DEFAULT_CYCLE_TIMEOUT_MS = 30_000;

/**
 * Starts `converge reconcile ARGS --listen 127.0.0.1:0 --log-format FORMAT` (convergeCommand: node
 * dist/src/cli/main.js, or the release's executable) with `options.env` on top of this environment
 * without its CONVERGE_* variables, and resolves once it printed its `listening on` line.
 */
export async function startReconcileProcess(args: ReadonlyArray<string>, options: ReconcileProcessOptions = {}): Promise<ReconcileProcess> {
  const running = await startListeningProcess(["reconcile", ...args, "--listen", "127.0.0.1:0", "--log-format", options.logFormat ?? "text"], { ...options, env: { NO_COLOR: "1", ...options.env } });
  const request = async (path: string, method: "GET" | "POST" = "GET") => {
    const response = await fetch(`${running.url}${path}`, { method });
    return { status: response.status, text: await response.text() };
  };
  const log = cycleLog(running);
  return {
    ...running,
    request,
    status: async () => JSON.parse((await request("/status")).text) as ReconcileStatus,
    async metric(series) {
      const text = (await request("/metrics")).text;
      const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
    ...log,
    async reconcileNow(timeoutMs) {
      const answer = await request("/reconcile", "POST");
      if (answer.status !== 202) throw new Error(`POST ${running.url}/reconcile answered ${answer.status}: ${answer.text}`);
      const { cycle: started } = JSON.parse(answer.text) as { cycle: number };
      return log.cycle(started + 1, timeoutMs);
    },
  };
}

/** The cycle lines of a reconciler's JSON log, as they arrive on its stderr. */
function cycleLog(running: ListeningProcess): Pick<ReconcileProcess, "cycles" | "cycle"> {
  const seen: CycleEvent[] = [];
  const waiting = new Set<{ number: number; resolve: (event: CycleEvent) => void }>();
  let scanned = 0;
  const scan = () => {
    const text = running.stderr();
    const end = text.lastIndexOf("\n") + 1;
    for (const line of text.slice(scanned, end).split("\n")) {
      const event = cycleEventOf(line);
      if (event) seen.push(event);
    }
    scanned = Math.max(scanned, end);
    for (const waiter of waiting) {
      const found = seen.find((event) => event.cycle === waiter.number);
      if (found) waiter.resolve(found);
    }
  };
  running.child.stderr!.on("data", () => setImmediate(scan));
  scan();
  const tail = () => JSON.stringify(running.stderr().slice(-600));
  const cycle = (number: number, timeoutMs = DEFAULT_CYCLE_TIMEOUT_MS) => new Promise<CycleEvent>((resolve, reject) => {
    const waiter = {
      number,
      resolve: (event: CycleEvent) => {
        clearTimeout(timer);
        waiting.delete(waiter);
        resolve(event);
      },
    };
    const timer = setTimeout(() => {
      waiting.delete(waiter);
      reject(new Error(`converge reconcile logged no cycle ${number} within ${timeoutMs} ms; cycles logged: ${seen.map((event) => event.cycle).join(", ") || "none"}; stderr ends ${tail()}`));
    }, timeoutMs);
    void running.exited.then((exit) => {
      if (!waiting.has(waiter)) return;
      clearTimeout(timer);
      waiting.delete(waiter);
      reject(new Error(`converge reconcile exited (code ${exit.code}, signal ${exit.signal}) before cycle ${number}; stderr ends ${tail()}`));
    });
    waiting.add(waiter);
    scan();
  });
  return { cycles: () => [...seen], cycle };
}

function cycleEventOf(line: string): CycleEvent | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(line) as { event?: unknown } & CycleEvent;
    return parsed.event === "cycle" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Polls `probe` every 100 ms until it answers something other than undefined; rejects after `timeoutMs` saying what it waited for. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await sleep(100);
  }
}

/** Waits until the reconciler has ended a cycle numbered above `after` and answers its status. */
export function cycleAfter(process: ReconcileProcess, after: number, timeoutMs = 20_000): Promise<ReconcileStatus> {
  return eventually(`a cycle after cycle ${after}`, async () => {
    const status = await process.status();
    return status.last && status.last.cycle > after ? status : undefined;
  }, timeoutMs);
}
