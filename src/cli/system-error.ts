import { describeFileError } from "../contract/file-errors.js";

/** What Node.js says of a failed system call: its code and what it was about. */
interface SystemCallError {
  readonly code: string;
  readonly syscall?: string;
  readonly path?: string;
  readonly address?: string;
  readonly port?: number;
}

function isSystemCallError(error: unknown): error is SystemCallError {
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    && typeof (error as { syscall?: unknown }).syscall === "string" && /^E[A-Z]+$/.test((error as { code: string }).code);
}

/**
 * A system error (ENOENT, EISDIR, EACCES, EADDRINUSE, …) in converge's words: the path or the port
 * (with the flag that gave it, when the command line did), what is wrong and what to do. Undefined
 * for any other error.
 */
export function describeSystemError(error: unknown, argv: ReadonlyArray<string> = process.argv): string | undefined {
  if (!isSystemCallError(error)) return undefined;
  if (error.syscall === "listen" || error.syscall === "bind") return describeListenError(error, argv);
  if (error.path === undefined) return undefined;
  return `${givenAs(error.path, argv)}: ${describeFileError(error)}`;
}

function describeListenError(error: SystemCallError, argv: ReadonlyArray<string>): string {
  // Bun's error names neither: then the flags (or serve's defaults) say where it listened
  const where = `${error.address ?? flagValue(argv, "--host") ?? "127.0.0.1"}:${error.port ?? flagValue(argv, "--port") ?? "4566"}`;
  switch (error.code) {
    case "EADDRINUSE":
      return `cannot listen on ${where}: the port is in use (another converge serve?); stop what holds it, `
        + "or pick another port with --port PORT (--port 0 picks a free one)";
    case "EACCES":
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick another port with --port PORT, e.g. --port 4566`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${where}: it is not an address of this machine; pass --host 127.0.0.1, or one of its addresses`;
    default:
      return `cannot listen on ${where}: ${error.code}`;
  }
}

/** `--report out/drift.xml` when the command line gave `path` to a flag, else the path. */
function givenAs(path: string, argv: ReadonlyArray<string>): string {
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === path && argv[index - 1]!.startsWith("-")) return `${argv[index - 1]} ${path}`;
    const joined = /^(--[\w-]+)=(.*)$/s.exec(arg);
    if (joined && joined[2] === path) return `${joined[1]} ${path}`;
  }
  return path;
}

/** The value of `--flag VALUE` or `--flag=VALUE` on the command line, the last one given. */
function flagValue(argv: ReadonlyArray<string>, flag: string): string | undefined {
  let value: string | undefined;
  for (let index = 0; index < argv.length; index += 1) {
    if (argv[index] === flag && index + 1 < argv.length) value = argv[index + 1];
    else if (argv[index]!.startsWith(`${flag}=`)) value = argv[index]!.slice(flag.length + 1);
  }
  return value;
}
