import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { convergeCommand } from "./converge-command.js";
import type { ProcessExit } from "./serve-process.js";

/** A `converge reconcile` running as a child process (startReconcileProcess), with its endpoints. */
export interface ReconcileProcess {
  /** `http://host:port` of its endpoints, from the `listening on` line. */
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<ProcessExit>;
  stdout(): string;
  stderr(): string;
  /** GET (or POST) one of its endpoints: status and text. */
  request(path: string, method?: "GET" | "POST"): Promise<{ status: number; text: string }>;
  /** GET /status, parsed. */
  status(): Promise<ReconcileStatus>;
  /** The value of one series of GET /metrics (`name{labels}` as written there), or undefined. */
  metric(series: string): Promise<number | undefined>;
  /** Sends `signal` and resolves with how the process ended. */
  stop(signal: NodeJS.Signals): Promise<ProcessExit>;
}

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

const LISTENING = /^listening on (http:\/\/\S+)$/m;

/**
 * Starts `converge reconcile ARGS --listen 127.0.0.1:0` (convergeCommand: node dist/src/cli/main.js, or
 * the release's executable) with `env` on top of a clean environment (no CONVERGE_* of the test
 * process), and resolves once it printed its `listening on` line.
 */
export function startReconcileProcess(args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, cwd?: string): Promise<ReconcileProcess> {
  const converge = convergeCommand();
  const fullArgs = [...converge.args, "reconcile", ...args, "--listen", "127.0.0.1:0"];
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("CONVERGE_")) clean[key] = value;
  const child = spawn(converge.file, fullArgs, { cwd, env: { ...clean, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`converge reconcile printed no "listening on" line within 15 s; stdout: ${JSON.stringify(stdout)}; stderr: ${JSON.stringify(stderr)}`));
    }, 15_000);
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`converge reconcile exited (code ${exit.code}, signal ${exit.signal}) before listening; stderr: ${JSON.stringify(stderr)}`));
    });
    child.stdout!.on("data", () => {
      const match = LISTENING.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      resolve(reconcileProcess(match[1]!, child, exited, () => stdout, () => stderr));
    });
  });
}

function reconcileProcess(url: string, child: ChildProcess, exited: Promise<ProcessExit>, stdout: () => string, stderr: () => string): ReconcileProcess {
  const request = async (path: string, method: "GET" | "POST" = "GET") => {
    const response = await fetch(`${url}${path}`, { method });
    return { status: response.status, text: await response.text() };
  };
  return {
    url,
    child,
    exited,
    stdout,
    stderr,
    request,
    status: async () => JSON.parse((await request("/status")).text) as ReconcileStatus,
    async metric(series) {
      const text = (await request("/metrics")).text;
      const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
    stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
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
