import { startListeningProcess, type ListeningProcess, type ListeningProcessOptions } from "./serve-process.js";

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

/** `converge reconcile` running as a child process with its endpoints on a free port and its log as JSON lines. */
export interface ReconcileProcess extends ListeningProcess {
  /** The cycle lines logged so far, in order. */
  cycles(): CycleEvent[];
  /** Resolves with cycle `number`'s line once it is logged; rejects when the process exits first or after `timeoutMs`. */
  cycle(number: number, timeoutMs?: number): Promise<CycleEvent>;
  /** `POST /reconcile`, then the line of the cycle it runs (the next one to start). */
  reconcileNow(timeoutMs?: number): Promise<CycleEvent>;
}

const DEFAULT_CYCLE_TIMEOUT_MS = 30_000;

/**
 * Starts `converge reconcile ARGS --listen 127.0.0.1:0 --log-format json` (convergeCommand: `node
 * dist/src/cli/main.js`, or the release's executable) with `options.env` added to the environment
 * (CONVERGE_ENDPOINT, CONVERGE_TOKEN), and resolves once it printed `listening on URL`.
 */
export async function startReconcileProcess(args: ReadonlyArray<string>, options: ListeningProcessOptions = {}): Promise<ReconcileProcess> {
  const running = await startListeningProcess(["reconcile", ...args, "--listen", "127.0.0.1:0", "--log-format", "json"], options);
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
      reject(new Error(`converge reconcile logged no cycle ${number} within ${timeoutMs} ms; cycles logged: ${seen.map((event) => event.cycle).join(", ") || "none"}; stderr ends ${JSON.stringify(running.stderr().slice(-600))}`));
    }, timeoutMs);
    void running.exited.then((exit) => {
      if (!waiting.has(waiter)) return;
      clearTimeout(timer);
      waiting.delete(waiter);
      reject(new Error(`converge reconcile exited (code ${exit.code}, signal ${exit.signal}) before cycle ${number}; stderr ends ${JSON.stringify(running.stderr().slice(-600))}`));
    });
    waiting.add(waiter);
    scan();
  });
  return {
    ...running,
    cycles: () => [...seen],
    cycle,
    async reconcileNow(timeoutMs) {
      const answer = await fetch(`${running.url}/reconcile`, { method: "POST" });
      if (answer.status !== 202) throw new Error(`POST ${running.url}/reconcile answered ${answer.status}: ${await answer.text()}`);
      const { cycle: started } = (await answer.json()) as { cycle: number };
      return cycle(started + 1, timeoutMs);
    },
  };
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
