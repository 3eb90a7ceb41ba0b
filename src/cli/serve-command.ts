import { readFile } from "node:fs/promises";
import { startService, type RunningService } from "../service/index.js";
import { CliError } from "./cli-error.js";

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly world?: string;
  readonly stateFile?: string;
  /** Seconds a request's headers and body may take to arrive. */
  readonly requestTimeout: number;
  /** A file holding the control interface's admin token. */
  readonly adminToken?: string;
  /** Requests the control interface's journal holds. @default the service's */
  readonly journalSize?: number;
}

/**
 * `converge serve`: starts both services and their control interface, prints `listening on URL` once
 * they are ready (the state loaded, requests accepted), then where the control interface stands (with
 * the admin token only when it was made here: one given by file or environment is never printed), and
 * the demo tokens when the demo world is booted; stops cleanly on SIGINT or SIGTERM.
 */
export async function serveCommand(options: ServeOptions, out: NodeJS.WritableStream = process.stdout, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const adminToken = await adminTokenOf(options.adminToken, env);
  const service = await startService({
    host: options.host,
    port: options.port,
    ...(options.world !== undefined ? { worldFile: options.world } : {}),
    ...(options.stateFile !== undefined ? { stateFile: options.stateFile } : {}),
    requestTimeoutMs: options.requestTimeout * 1000,
    ...(adminToken !== undefined ? { adminToken: adminToken.token } : {}),
    ...(options.journalSize !== undefined ? { journalSize: options.journalSize } : {}),
  });
  out.write(`listening on ${service.url}\n`);
  out.write(describeControl(service, adminToken?.source));
  if (service.demo) out.write(describeDemoWorld(service));
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      service.close().then(() => {
        process.stderr.write(`converge serve: stopped on ${signal}\n`);
        resolve(0);
      }, (error: unknown) => {
        process.stderr.write(`converge serve: error while stopping: ${(error as Error).message}\n`);
        resolve(1);
      });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** The admin token from `--admin-token FILE` (which wins) or CONVERGE_ADMIN_TOKEN, and where it came from; none when neither is given. */
async function adminTokenOf(file: string | undefined, env: NodeJS.ProcessEnv): Promise<{ readonly token: string; readonly source: string } | undefined> {
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new CliError(`--admin-token ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; expected a file holding the control interface's admin token`);
    }
    return { token: checkedToken(text, `--admin-token ${file}`), source: `--admin-token ${file}` };
  }
  const fromEnv = env.CONVERGE_ADMIN_TOKEN;
  if (fromEnv === undefined || fromEnv === "") return undefined;
  return { token: checkedToken(fromEnv, "CONVERGE_ADMIN_TOKEN"), source: "CONVERGE_ADMIN_TOKEN" };
}

function checkedToken(text: string, source: string): string {
  const token = text.trim();
  if (token.length === 0) throw new CliError(`the admin token from ${source} is empty: expected a token of at least 16 characters`);
  if (/\s/.test(token)) throw new CliError(`the admin token from ${source} contains whitespace: expected one token, no spaces or line breaks inside it`);
  if (token.length < 16) throw new CliError(`the admin token from ${source} has ${token.length} characters: expected at least 16, so that it cannot be guessed`);
  return token;
}

/** Where the control interface stands: its token when made here, where it came from when given, or why it is off. */
function describeControl(service: RunningService, source: string | undefined): string {
  const at = `${service.url}/_converge/`;
  if (service.adminToken === undefined) {
    return "control interface: off (this address is reachable from other machines and no admin token was given: "
      + "give one with --admin-token FILE or CONVERGE_ADMIN_TOKEN to turn it on)\n";
  }
  if (source !== undefined) return `control interface: ${at} (admin token from ${source})\n`;
  return `control interface: ${at} (admin token made for this run: ${service.adminToken}; `
    + "give one with --admin-token FILE or CONVERGE_ADMIN_TOKEN to choose it)\n";
}

function describeDemoWorld(service: RunningService): string {
  const lines = [
    "demo world (no --world given): these are demo credentials, valid only on this local service",
    ...service.world.identities.map((identity) => `  token ${identity.token.padEnd(22)} account ${identity.accountId}  allow ${identity.allow.join(", ")}`),
    `try: curl -s -X POST ${service.url}/listRegions -H 'authorization: Bearer demo-admin-token' -H 'content-type: application/json' -d '{"MaxResults": 5}'`,
    "every operation's curl (changing a contact or a route by hand among them): docs/manual/calling-services.md",
    "",
  ];
  return lines.join("\n");
}
