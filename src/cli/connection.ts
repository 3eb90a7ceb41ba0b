import { Credentials, createClients, invalidRequestTimeout, requestTimeoutMs, timeoutsOfDeadline, type Clients, type ClientsOptions } from "../clients/index.js";
import type { OutputFormat } from "../reconcile/render-plan.js";
import { CliError } from "./cli-error.js";
import { VARIABLE_ENV_PREFIX } from "../desired/variable-references.js";

export interface ConnectionFlags {
  /** Client-side limit per operation, `RPS` or `RPS:BURST`. */
  readonly rateLimit?: string;
  readonly endpoint?: string;
  readonly accountEndpoint?: string;
  readonly gatewayEndpoint?: string;
  readonly tokenFile?: string;
  /** The environment variable holding the token, instead of CONVERGE_TOKEN. */
  readonly tokenEnv?: string;
  /** Deadline of one request in seconds, as typed (else CONVERGE_REQUEST_TIMEOUT, else 60). */
  readonly requestTimeout?: string;
}

/**
 * The deadline of one request in milliseconds from --request-timeout, else CONVERGE_REQUEST_TIMEOUT;
 * `undefined` when neither is set (the clients' default, 60 s). Seconds, fractions allowed.
 */
export function parseRequestTimeout(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const [source, value] = flag !== undefined ? ["--request-timeout", flag] : ["CONVERGE_REQUEST_TIMEOUT", env.CONVERGE_REQUEST_TIMEOUT];
  if (value === undefined || (flag === undefined && value === "")) return undefined;
  const requestMs = requestTimeoutMs(value);
  if (requestMs === undefined) throw new CliError(invalidRequestTimeout(source, value));
  return requestMs;
}

export interface OutputFlags {
  readonly output: OutputFormat;
  readonly color: boolean;
}

/** `RPS` or `RPS:BURST` (burst defaults to RPS / 10, at least 1). */
export function parseRateLimit(value: string): { ratePerSecond: number; burst: number } {
  const match = /^(\d+(?:\.\d+)?)(?::(\d+))?$/.exec(value);
  const ratePerSecond = Number(match?.[1]);
  if (!match || !(ratePerSecond > 0)) {
    throw new CliError(`--rate-limit ${JSON.stringify(value)} is not valid: `
      + `expected requests per second, optionally with a burst, e.g. 100 or 100:20`);
  }
  return { ratePerSecond, burst: match[2] !== undefined ? Math.max(1, Number(match[2])) : Math.max(1, Math.floor(ratePerSecond / 10)) };
}

/** Both clients for the flags and environment; the token never leaves the Credentials object. */
export function connect(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env, extra: Pick<ClientsOptions, "onExchange"> = {}): Clients {
  const endpoint = flags.endpoint ?? env.CONVERGE_ENDPOINT;
  if (!endpoint && !(flags.accountEndpoint && flags.gatewayEndpoint)) {
    throw new CliError("no endpoint: pass --endpoint URL or set CONVERGE_ENDPOINT (e.g. http://127.0.0.1:4566 for `converge serve`)");
  }
  for (const [flag, value] of [
    [flags.endpoint !== undefined ? "--endpoint" : "CONVERGE_ENDPOINT", endpoint],
    ["--account-endpoint", flags.accountEndpoint],
    ["--gateway-endpoint", flags.gatewayEndpoint],
  ] as const) {
    if (value !== undefined && !/^https?:\/\/[^\s/]+/.test(value)) {
      throw new CliError(`${flag} ${JSON.stringify(value)} is not valid: expected an http(s) origin such as http://127.0.0.1:4566`);
    }
  }
  const requestMs = parseRequestTimeout(flags.requestTimeout, env);
  const credentials = resolveCredentials(flags, env);
  return createClients({
    endpoint: (endpoint ?? flags.accountEndpoint)!,
    ...(flags.accountEndpoint ? { accountEndpoint: flags.accountEndpoint } : {}),
    ...(flags.gatewayEndpoint ? { gatewayEndpoint: flags.gatewayEndpoint } : {}),
    credentials,
    ...(flags.rateLimit !== undefined ? { rateLimit: { default: parseRateLimit(flags.rateLimit) } } : {}),
    ...(requestMs !== undefined ? { timeouts: timeoutsOfDeadline(requestMs) } : {}),
    ...extra,
  });
}

/** The token from --token-file, --token-env NAME or CONVERGE_TOKEN; messages name where it was looked for, never its value. */
function resolveCredentials(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Credentials {
  if (flags.tokenEnv === undefined) return Credentials.resolve({ tokenFile: flags.tokenFile, env });
  if (flags.tokenFile !== undefined) throw new CliError("pass either --token-file FILE or --token-env NAME, not both");
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.tokenEnv)) {
    throw new CliError(`--token-env ${JSON.stringify(flags.tokenEnv)} is not valid: expected the name of an environment variable, e.g. CONVERGE_TOKEN`);
  }
  if (flags.tokenEnv.startsWith(VARIABLE_ENV_PREFIX)) {
    // a CONVERGE_VAR_* variable is a value documents may write out (docs/manual/desired-state.md, "Environments and variables")
    throw new CliError(`--token-env ${flags.tokenEnv} is not valid: ${VARIABLE_ENV_PREFIX}* variables give values to \${var.NAME} in documents, `
      + "where a token must never be; keep it in CONVERGE_TOKEN, a --token-file or another variable");
  }
  const token = env[flags.tokenEnv];
  if (token === undefined || token.trim() === "") throw new CliError(`no token: the environment variable ${flags.tokenEnv} (--token-env) is not set or empty`);
  return new Credentials(token, flags.tokenEnv);
}

/** Colors only on a terminal, and never with --no-color or NO_COLOR. */
export function useColor(flags: { color?: boolean }, stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return flags.color !== false && stream.isTTY === true && (env.NO_COLOR ?? "") === "";
}

/** Progress for people: stderr, and only on a terminal. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): (message: string) => void {
  if (!stream.isTTY) return () => undefined;
  return (message) => stream.write(`  … ${message}\n`);
}
