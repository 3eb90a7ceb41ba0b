import { Option, type Command } from "commander";
import { collectVariableFlag } from "./variable-flags.js";

/** Option definitions shared by commands (kept apart from connecting, so that --help loads no client). */

/** Adds --endpoint, --account-endpoint, --gateway-endpoint, --token-file, --token-env, --rate-limit and --request-timeout. */
export function withConnectionOptions(command: Command): Command {
  return command
    .option("--endpoint <url>", "origin of both services (or CONVERGE_ENDPOINT)")
    .option("--account-endpoint <url>", "origin of the account service, when it differs")
    .option("--gateway-endpoint <url>", "origin of the gateway service, when it differs")
    .option("--token-file <file>", "file holding the bearer token (else CONVERGE_TOKEN)")
    .option("--token-env <name>", "environment variable holding the bearer token, instead of CONVERGE_TOKEN")
    .option("--rate-limit <rps[:burst]>", "client-side limit per operation, e.g. 100 or 100:20 (default: none until the service throttles, then adaptive)")
    .option(
      "--request-timeout <seconds>",
      "give up on one request to the services when its whole answer has not arrived after this long; a read is retried (or CONVERGE_REQUEST_TIMEOUT; default 60)",
    );
}

/** Adds --output and --no-color. */
export function withOutputOptions(command: Command): Command {
  return command
    .addOption(new Option("--output <format>", "result format").choices(["text", "json", "markdown"]).default("text"))
    .option("--no-color", "plain text (also NO_COLOR)");
}

/** Adds --prune and --repair-twins: what plan and apply may delete beyond the documents. */
export function withPruneOptions(command: Command): Command {
  return command
    .option("--prune", "prune every API an Api document declares, as if each said prune: true", false)
    .option(
      "--repair-twins",
      "also repair identical twin integrations in APIs no Api document prunes (keep the first, retarget routes, delete the others)",
      false,
    );
}

/** Adds --var and --var-file, for the `${var.NAME}` references of -f documents (docs/manual/desired-state.md, "Environments and variables"). */
export function withVariableOptions(command: Command): Command {
  return command
    .option("--var <name=value>", "a value for ${var.NAME} in the -f documents (repeatable; a later --var or --var-file wins; also CONVERGE_VAR_NAME)", collectVariableFlag, [])
    .option("--var-file <file>", "a YAML mapping of NAME: value for ${var.NAME} in the -f documents (repeatable; a later one wins)", collectVariableFlag, []);
}
