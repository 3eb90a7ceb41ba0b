#!/usr/bin/env node
import { Command, InvalidArgumentError } from "commander";
import { serveCommand } from "./serve-command.js";

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`expected a port number from 0 to 65535, received ${JSON.stringify(value)}`);
  }
  return port;
}

const program = new Command()
  .name("converge")
  .description("Reconcile alternate contacts, Region opt-ins, routes and integrations with what you declare.")
  .showHelpAfterError();

program
  .command("serve")
  .description("run the embedded account and API gateway services on one origin")
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--port <port>", "port to listen on (0 picks a free one)", portNumber, 4566)
  .option("--world <file>", "world file (JSON) to boot; without it, the demo world")
  .option("--state-file <file>", "make state durable in this file")
  .action(async (options: { host: string; port: number; world?: string; stateFile?: string }) => {
    process.exitCode = await serveCommand(options);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`converge: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
