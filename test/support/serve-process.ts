import { spawn, type ChildProcess } from "node:child_process";
import { convergeCommand } from "./converge-command.js";

export { builtCliPath } from "./converge-command.js";

/** How a `converge serve` child process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A `converge serve` running as a child process, started by {@link startServeProcess}. */
export interface ServeProcess {
  /** `http://host:port` from the `listening on` line. */
  readonly url: string;
  /** The first line the process printed on stdout. */
  readonly listeningLine: string;
  readonly child: ChildProcess;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  /** Everything written on stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with how the process ended. */
  stop(signal: NodeJS.Signals): Promise<ProcessExit>;
}

export interface ServeProcessOptions {
  readonly worldFile?: string;
  readonly stateFile?: string;
  /** `--request-timeout SECONDS`. @default the CLI's default */
  readonly requestTimeoutSeconds?: number;
  /** Extra `node` flags, e.g. `--cpu-prof` (only where converge runs on Node.js: CONVERGE_TEST_CLI=node). */
  readonly nodeArgs?: ReadonlyArray<string>;
  /** More arguments of `converge serve`, after the others (`--admin-token FILE`, `--host 0.0.0.0`, …). */
  readonly args?: ReadonlyArray<string>;
  /** The process's environment: this one's without its `CONVERGE_*` variables, and these. @default this one's, as is */
  readonly env?: Readonly<Record<string, string>>;
  /** @default 15000 */
  readonly startTimeoutMs?: number;
}

const LISTENING = /^listening on (http:\/\/\S+)$/;


/**
 * Starts `converge serve --port 0 [--world F] [--state-file F] [--request-timeout S]` (convergeCommand:
 * `node dist/src/cli/main.js`, or the release's executable) and resolves once it printed
 * `listening on URL`. Rejects with its stderr if it exits or stays silent instead.
 */
export function startServeProcess(options: ServeProcessOptions = {}): Promise<ServeProcess> {
  const converge = convergeCommand();
  if (converge.packaged && options.nodeArgs !== undefined) throw new Error(`startServeProcess: node flags ${options.nodeArgs.join(" ")} given, but converge is the release's executable (CONVERGE_TEST_CLI=packaged)`);
  const args = [
    ...(options.nodeArgs ?? []),
    ...converge.args,
    "serve",
    "--port", "0",
    ...(options.worldFile !== undefined ? ["--world", options.worldFile] : []),
    ...(options.stateFile !== undefined ? ["--state-file", options.stateFile] : []),
    ...(options.requestTimeoutSeconds !== undefined ? ["--request-timeout", String(options.requestTimeoutSeconds)] : []),
    ...(options.args ?? []),
  ];
  const env = options.env === undefined ? process.env : {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("CONVERGE_"))),
    ...options.env,
  };
  const child = spawn(converge.file, args, { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const describe = () => [converge.file, ...args].join(" ");

  return new Promise<ServeProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${describe()} printed no "listening on" line within ${options.startTimeoutMs ?? 15_000} ms; stdout: ${JSON.stringify(stdout)}; stderr: ${JSON.stringify(stderr)}`));
    }, options.startTimeoutMs ?? 15_000);
    void exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`${describe()} exited (code ${exit.code}, signal ${exit.signal}) before listening; stderr: ${JSON.stringify(stderr)}`));
    });
    child.stdout!.on("data", (chunk: string) => {
      const before = stdout;
      stdout += chunk;
      if (before.includes("\n")) return;
      const newline = stdout.indexOf("\n");
      if (newline === -1) return;
      clearTimeout(timer);
      const listeningLine = stdout.slice(0, newline);
      const match = LISTENING.exec(listeningLine);
      if (!match) {
        child.kill("SIGKILL");
        reject(new Error(`${describe()} printed ${JSON.stringify(listeningLine)} first: expected "listening on http://HOST:PORT"`));
        return;
      }
      resolve({
        url: match[1]!,
        listeningLine,
        child,
        exited,
        stdout: () => stdout,
        stderr: () => stderr,
        stop(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}
