import { startService, type RunningService } from "../service/index.js";

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly world?: string;
  readonly stateFile?: string;
  /** Seconds a request's headers and body may take to arrive. */
  readonly requestTimeout: number;
}

/**
 * `converge serve`: starts both services, prints `listening on URL` once requests are accepted (and
 * the demo tokens when the demo world is booted), and stops cleanly on SIGINT or SIGTERM.
 */
export async function serveCommand(options: ServeOptions, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const service = await startService({
    host: options.host,
    port: options.port,
    ...(options.world !== undefined ? { worldFile: options.world } : {}),
    ...(options.stateFile !== undefined ? { stateFile: options.stateFile } : {}),
    requestTimeoutMs: options.requestTimeout * 1000,
  });
  out.write(`listening on ${service.url}\n`);
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
