import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
  /** Extra `node` flags, e.g. `--cpu-prof`. */
  readonly nodeArgs?: ReadonlyArray<string>;
  /** @default 15000 */
  readonly startTimeoutMs?: number;
}

const LISTENING = /^listening on (http:\/\/\S+)$/;

/**
 * The compiled CLI, `dist/src/cli/main.js` of the package root (found from this file, so that this
 * works both from `test/support/` under vitest and from `dist/test/support/` under node).
 * Throws a message saying how to build it when it is missing.
 */
export function builtCliPath(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, "package.json"))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`cannot find the package root above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
  const cli = join(directory, "dist", "src", "cli", "main.js");
  if (!existsSync(cli)) {
    throw new Error(`the compiled CLI ${cli} is missing: run "npm run build" first ("npm test" builds in pretest, "npx vitest" alone does not)`);
  }
  return cli;
}

/**
 * Starts `node dist/src/cli/main.js serve --port 0 [--world F] [--state-file F] [--request-timeout S]` and resolves once it
 * printed `listening on URL`. Rejects with its stderr if it exits or stays silent instead.
 */
export function startServeProcess(options: ServeProcessOptions = {}): Promise<ServeProcess> {
  const args = [
    ...(options.nodeArgs ?? []),
    builtCliPath(),
    "serve",
    "--port", "0",
    ...(options.worldFile !== undefined ? ["--world", options.worldFile] : []),
    ...(options.stateFile !== undefined ? ["--state-file", options.stateFile] : []),
    ...(options.requestTimeoutSeconds !== undefined ? ["--request-timeout", String(options.requestTimeoutSeconds)] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const describe = () => `node ${args.join(" ")}`;

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
