import { Command, InvalidArgumentError, Option } from "commander";
import { isConvergeError } from "../clients/errors.js";
import { isDesiredStateError } from "../desired/desired-state-error.js";
import { UNMANAGED_SCOPES } from "../reconcile/unmanaged-scope.js";
import { RECONCILE_POLICIES } from "../desired/schema.js";
import { LOG_FORMATS } from "../reconciler/event-log.js";
import { DEFAULT_FIGHT, DEFAULT_JITTER, DEFAULT_LISTEN, DEFAULT_RETRY_MS } from "../reconciler/reconciler-options.js";
import type { ApplyFlags } from "./commands/apply-command.js";
import type { DeleteFlags } from "./commands/delete-command.js";
import type { DriftFlags, DriftMergeFlags } from "./commands/drift-command.js";
import type { DriftIgnoreFlags } from "./commands/drift-ignore-command.js";
import type { ExportFlags } from "./commands/export-command.js";
import type { PlanFlags } from "./commands/plan-command.js";
import type { ReconcileFlags } from "./commands/reconcile-command.js";
import type { RenderFlags } from "./commands/render-command.js";
import { withConnectionOptions, withOutputOptions, withPruneOptions, withVariableOptions } from "./options.js";
import type { VariableFlags } from "./variable-flags.js";
import { packageVersion } from "./release/package-version.js";
import { refuseWithoutCheckout } from "./release/single-executable.js";
import { describeSystemError } from "./system-error.js";
import { refusedTokenHint, type TokenSourceFlags } from "./token-hint.js";
import { installUsageErrors } from "./usage-error.js";

// Each command's module is imported when it runs: `plan` in a CI job does not load the service.

function integerIn(min: number, max: number, what: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`expected ${what} from ${min} to ${max}, received ${JSON.stringify(value)}`);
    }
    return number;
  };
}

const repeatable = (value: string, previous: string[]) => [...previous, value];

const program = new Command()
  .name("converge")
  .description("Reconcile alternate contacts, Region opt-ins, routes and integrations with the state you declare.")
  .version(packageVersion(), "-V, --version", "print converge's version")
  .exitOverride();

program
  .command("serve")
  .description("run the embedded account and API gateway services on one origin")
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--port <port>", "port to listen on (0 picks a free one)", integerIn(0, 65535, "a port number"), 4566)
  .option("--world <file>", "world file (JSON) to boot; without it, the demo world")
  .option("--state-file <file>", "make state durable in this file")
  .option("--request-timeout <seconds>", "answer 408 and close the connection when a request's headers or body take longer", integerIn(1, 3600, "seconds"), 30)
  .option("--admin-token <file>", "file holding the control interface's admin token (or CONVERGE_ADMIN_TOKEN); on a loopback address without one, one is made and printed")
  .option("--journal-size <n>", "requests the control interface's journal holds, a ring (0 turns it off; default 10000)", integerIn(0, 1_000_000, "a number of requests"))
  .action(async (options: import("./serve-command.js").ServeOptions) => {
    const { serveCommand } = await import("./serve-command.js");
    process.exitCode = await serveCommand(options);
  });

withVariableOptions(program
  .command("validate")
  .description("check desired-state files offline: schema, per-protocol rules where declared, cross-document references")
  .option("-f, --file <path>", "desired-state file or directory, or - for standard input (repeatable)", repeatable, [])
  .addOption(new Option("--output <format>", "result format (json: every problem, on stdout)").choices(["text", "json"]).default("text")))
  .action(async (options: VariableFlags & { file: string[]; output: "text" | "json" }) => {
    const { validateCommand } = await import("./commands/validate-command.js");
    process.exitCode = await validateCommand(options);
  });

withVariableOptions(program
  .command("render")
  .description("print the documents as plan, apply and drift see them: variables substituted, checked, defaults filled in (like docker compose config)")
  .option("-f, --file <path>", "desired-state file or directory, or - for standard input (repeatable)", repeatable, [])
  .addOption(new Option("--output <format>", "yaml: one YAML stream; json: an array of documents").choices(["yaml", "json"]).default("yaml")))
  .action(async (options: RenderFlags) => {
    const { renderCommand } = await import("./commands/render-command.js");
    process.exitCode = await renderCommand(options);
  });

withVariableOptions(withOutputOptions(withConnectionOptions(withPruneOptions(program
  .command("plan")
  .description("show what apply would change; exit 0 in sync, 2 changes, 1 error")
  .option("-f, --file <path>", "desired-state file or directory, or - for standard input (repeatable)", repeatable, [])
  .option("--from-synth <dir>", "read the desired state a cdktf synth wrote (cdktf.out, or one stack's directory)")
  .option("--out <file>", "write the plan as JSON, to apply later with converge apply FILE"))
  .option("--target <kind/name>", "plan only this resource (repeatable), e.g. Route/GET /orders", repeatable, [])
  .option("--state <path>", "a terraform state whose converge resources (and cdktf inventories) pruning leaves alone: a file, a directory, a glob, or - (repeatable)", repeatable, [])
  .option("--parallelism <n>", "reads in flight at once", integerIn(1, 256, "a number"), 16))))
  .action(async (options: PlanFlags) => {
    const { planCommand } = await import("./commands/plan-command.js");
    process.exitCode = await planCommand(options);
  });

withVariableOptions(withOutputOptions(withConnectionOptions(withPruneOptions(program
  .command("apply")
  .description("make live state match: from -f files, or a plan file written by plan --out")
  .argument("[plan]", "a plan file written by converge plan --out")
  .option("-f, --file <path>", "desired-state file or directory, or - for standard input (repeatable)", repeatable, [])
  .option("--auto-approve", "apply without asking (required when not on a terminal)", false))
  .option("--target <kind/name>", "apply only this resource (repeatable)", repeatable, [])
  .option("--state <path>", "a terraform state whose converge resources (and cdktf inventories) pruning leaves alone: a file, a directory, a glob, or - (repeatable)", repeatable, [])
  .option("--parallelism <n>", "actions in flight at once", integerIn(1, 256, "a number"), 10)
  .option("--document-env <var>", "apply the documents held as JSON in this environment variable (one, or an array), instead of -f")
  .option("--from-synth <dir>", "apply the desired state a cdktf synth wrote (a stack's directory, or cdktf.out), instead of -f")
  .option("--expect-sha256-env <var>", "with --from-synth: refuse unless the stack's converge.desired.json has the sha256 held in this variable")
  .option(
    "--previous-env <prefix>",
    "with --from-synth: the stack's previous inventory, in PREFIX_0, PREFIX_1, …; what it lists and the desired state no longer declares is deleted",
  )
  .option("--lock <file>", "hold this advisory lock for the whole apply: runs sharing the file take turns (FILE records the holder; FILE.lock is the lock)")
  .option("--lock-timeout <seconds>", "how long to wait for --lock before giving up", integerIn(0, 86_400, "seconds"), 300))))
  .action(async (planFile: string | undefined, options: ApplyFlags) => {
    const { applyCommand } = await import("./commands/apply-command.js");
    process.exitCode = await applyCommand(planFile, options);
  });

withOutputOptions(withConnectionOptions(program
  .command("delete")
  .description("delete the resources the documents in an environment variable, or a cdktf stack, name (planned as ensure: absent; protections apply)")
  .option("--document-env <var>", "environment variable holding the documents as JSON (one, or an array)")
  .option("--keep-env <var>", "environment variable listing documents (JSON array) to leave alone")
  .option("--from-synth <dir>", "delete everything a cdktf stack's desired state makes exist (the stack's directory; RegionOptIn is left as it is)")
  .option("--expect-sha256-env <var>", "with --from-synth: refuse unless the stack's converge.desired.json has the sha256 held in this variable")
  .option("--auto-approve", "delete without asking (required when not on a terminal)", false)
  .option("--parallelism <n>", "actions in flight at once", integerIn(1, 256, "a number"), 10)
  .option("--lock <file>", "hold this advisory lock while deleting: runs sharing the file take turns")
  .option("--lock-timeout <seconds>", "how long to wait for --lock before giving up", integerIn(0, 86_400, "seconds"), 300)))
  .action(async (options: DeleteFlags) => {
    const { deleteCommand } = await import("./commands/delete-command.js");
    process.exitCode = await deleteCommand(options);
  });

withVariableOptions(withOutputOptions(withConnectionOptions(program
  .command("drift")
  .description("report how live state differs from the desired state, never writing; exit 0 in sync, 2 drift, 3 some resource unknown, 1 error")
  .option("-f, --file <path>", "desired-state file or directory, or - for standard input (repeatable)", repeatable, [])
  .option("--from-synth <dir>", "read the desired state a cdktf synth wrote (cdktf.out, or one stack's directory); combines with -f and --state")
  .option("--state <path>", "a terraform state whose converge resources (and cdktf inventories) are managed: a file, a directory of *.tfstate, a glob, or - for stdin (repeatable)", repeatable, [])
  .addOption(new Option("--unmanaged <scope>", "owned: undeclared routes and integrations of APIs an Api document owns; all: every live resource the token can list, contacts and Regions of the accounts in scope").choices(UNMANAGED_SCOPES).default("owned"))
  .option("--account <id|self>", "with --unmanaged all: also read this account's contacts and Regions (repeatable)", repeatable, [])
  .option("--shard <k/n>", "check only shard K of N (1-based, e.g. 1/4), or auto/N with K from JOB_COMPLETION_INDEX (0-based)")
  .option("--report <file>", "also write the report to FILE: .xml JUnit, .json JSON, .md markdown, .html a page (repeatable)", repeatable, [])
  .option("--ignore <file>", "ignore rules (YAML) accepting known findings, after .convergeignore.yaml of the working directory (repeatable)", repeatable, [])
  .option("--parallelism <n>", "reads in flight at once", integerIn(1, 256, "a number"), 16))))
  .action(async (options: DriftFlags) => {
    const { driftCommand } = await import("./commands/drift-command.js");
    process.exitCode = await driftCommand(options);
  });

withVariableOptions(withConnectionOptions(withPruneOptions(program
  .command("reconcile")
  .description("keep live state converged: plan and apply every interval, within the policy and guards set here; serves /healthz, /readyz, /metrics, /status and a status page")
  .option("-f, --file <path>", "desired-state file or directory, read again every cycle (repeatable; not -: standard input is read once)", repeatable, [])
  .option("--from-synth <dir>", "the desired state a cdktf synth wrote (cdktf.out, or one stack's directory)")
  .option("--state <path>", "a terraform state whose converge resources (and cdktf inventories) pruning leaves alone: a file, a directory or a glob (repeatable)", repeatable, [])
  .option("--interval <duration>", "time between cycles, e.g. 30s, 5m, 1h", "60s")
  .option("--jitter <fraction>", "spread each wait over ±this fraction of the interval, and the first cycle over [0, fraction × interval] (0: off)", String(DEFAULT_JITTER))
  .option("--once", "run one cycle and exit: 0 nothing left to change, 2 differences left (observed, or held back by a guard), 1 error", false)
  .addOption(new Option("--policy <policy>", "correct: create and update what differs, delete where the documents ask; observe: detect and report, never write").choices(RECONCILE_POLICIES).default("correct"))
  .option("--max-changes <n>", "a cycle that plans more writes than this makes none of them (default: no budget)", integerIn(0, 1_000_000, "a number"))
  .option("--allow-shrink", "accept a desired state less than half the size of the last good one (else the last good one stays in force and nothing is written)", false)
  .option("--fight-corrections <n>", "a resource corrected this many times within --fight-cycles cycles is fighting: no longer corrected, reported", integerIn(2, 1000, "a number"), DEFAULT_FIGHT.corrections)
  .option("--fight-cycles <m>", "the window of cycles --fight-corrections counts in", integerIn(2, 100_000, "a number"), DEFAULT_FIGHT.cycles)
  .option("--retry-interval <duration>", "the first wait after a failed cycle, doubled after each further failure up to --interval", `${DEFAULT_RETRY_MS / 1000}s`)
  .option("--cycle-timeout <duration>", "a cycle running longer is stopped and counted as failed", "10m")
  .option("--lock <file>", "one of the reconcilers sharing FILE reconciles, the others stand by and take over; each cycle holds apply's lock FILE")
  .option("--listen <host:port>", "where /healthz, /readyz, /metrics, /status and the status page are served (:0 picks a free port)", DEFAULT_LISTEN)
  .addOption(new Option("--log-format <format>", "text, or json: one JSON object a line").choices(LOG_FORMATS).default("text"))
  .option("--shard <k/n>", "reconcile only shard K of N (1-based), or auto/N with K from JOB_COMPLETION_INDEX (0-based)")
  .option("--parallelism <n>", "reads and writes in flight at once", integerIn(1, 256, "a number"), 16)
  .addOption(new Option("--output <format>", "with --once: the cycle as text, or as JSON (the status's record)").choices(["text", "json"]).default("text")))))
  .action(async (options: ReconcileFlags) => {
    const { reconcileCommand } = await import("./commands/reconcile-command.js");
    process.exitCode = await reconcileCommand(options);
  });

// a command of its own, not `drift merge`: commander hands a subcommand's options to its parent when they share names
withOutputOptions(program
  .command("drift-merge")
  .description("merge the JSON reports of drift --shard K/N runs into one report; exit code of the merged result")
  .argument("<reports...>", "JSON reports of every shard (drift --report FILE.json, or --output json)")
  .option("--report <file>", "also write the merged report to FILE: .xml JUnit, .json JSON, .md markdown, .html a page (repeatable)", repeatable, []))
  .action(async (files: string[], options: DriftMergeFlags) => {
    const { driftMergeCommand } = await import("./commands/drift-command.js");
    process.exitCode = await driftMergeCommand(files, options);
  });

program
  .command("drift-ignore")
  .description("print the ignore rules (YAML) that accept every finding of a drift report as it is: a baseline for drift --ignore")
  .argument("<report>", "a JSON drift report (drift --report FILE.json, or --output json)")
  .requiredOption("--reason <text>", "why the findings are accepted (every rule gives it)")
  .option("--only <outcomes>", "comma-separated outcomes to accept, of drifted, missing, unmanaged, conflict, refused, unknown (default: drifted,missing,unmanaged)")
  .option("--until <date>", "YYYY-MM-DD: the last day (UTC) the rules apply")
  .action(async (report: string, options: DriftIgnoreFlags) => {
    const { driftIgnoreCommand } = await import("./commands/drift-ignore-command.js");
    process.exitCode = await driftIgnoreCommand(report, options);
  });

withConnectionOptions(program
  .command("export")
  .description("write the live state of APIs and accounts, or what a drift report found unmanaged, as desired-state files (a plan of them shows no changes)")
  .option("--api <apiId>", "an API to export: its routes and integrations (repeatable)", repeatable, [])
  .option("--account <id|self>", "an account to export: its alternate contacts and opt-in Regions (repeatable; self = the caller's own)", repeatable, [])
  .option("--from-drift <report.json>", "export exactly the unmanaged resources of a JSON drift report (with --api/--account: only those in them)")
  .option("--include-ignored", "with --from-drift: also the unmanaged resources an ignore rule accepts")
  .option("-o, --out <dir>", "write one file per API and account into this directory (default: one YAML stream on stdout)")
  .option("--format <format>", "yaml: desired-state documents; terraform: .tf files for converge's provider, each resource with its import block (needs -o)", "yaml")
  .option("--parallelism <n>", "reads in flight at once", integerIn(1, 256, "a number"), 16))
  .action(async (options: ExportFlags) => {
    const { exportCommand } = await import("./commands/export-command.js");
    process.exitCode = await exportCommand(options);
  });

program
  .command("demo")
  .description("a first run in one process: the embedded services with the demo world; plan, apply, drift and repair of examples/desired-state")
  .action(async () => {
    const { demoCommand } = await import("./commands/demo-command.js");
    process.exitCode = await demoCommand();
  });

const providerCommand = program.command("provider").description("the terraform provider (terraform-provider-converge)");

providerCommand
  .command("install")
  .description("put the provider where terraform finds it: terraform's implied local mirror ~/.terraform.d/plugins (honouring HOME), or --dir; the packaged executable when `provider package` built one for this machine, else a wrapper that runs this converge on this Node.js")
  .option("--dir <dir>", "another filesystem mirror to install into")
  .option("--from <dir>", "the release directory of `provider package --out` to install the executable from (default: dist/release of this converge)")
  .option("--wrapper", "install the development wrapper even when a packaged executable is built")
  .action(async (options: { dir?: string; from?: string; wrapper?: boolean }) => {
    const { providerInstallCommand } = await import("./commands/provider-command.js");
    process.exitCode = providerInstallCommand(options);
  });

providerCommand
  .command("package")
  .description("build the release: per platform a single executable (Bun, compiled with its bytecode) of the provider and one of the CLI, a zip of each, one SHA256SUMS (signed with --sign-with), manifest.json and the provider's filesystem and network mirror layouts; the same commit builds the same bytes")
  .option("--out <dir>", "the release directory (default: dist/release of this converge)")
  .option("--sign-with <key>", "a gpg key (id, fingerprint or e-mail) to sign SHA256SUMS with")
  .option("--platforms <list>", "comma-separated terraform platforms to build (linux_amd64, linux_arm64, darwin_amd64, darwin_arm64, windows_amd64)", "linux_amd64")
  .option("--source-date-epoch <seconds>", "the archive entries' time, seconds since 1970 UTC (default: $SOURCE_DATE_EPOCH, else 946684800, 2000-01-01)")
  .action(async (options: { out?: string; signWith?: string; platforms: string; sourceDateEpoch?: string }) => {
    const { providerPackageCommand } = await import("./commands/provider-package-command.js");
    process.exitCode = await providerPackageCommand(options);
  });

program
  .command("schema")
  .description("print the JSON Schema of desired-state documents")
  .action(async () => {
    const { schemaCommand } = await import("./commands/schema-command.js");
    process.exitCode = schemaCommand();
  });

program.addOption(new Option("--debug", "print stack traces of unexpected errors").hideHelp());
installUsageErrors(program);

/** The options of the command that runs, for reporting its errors (in its --output format, naming its token's source). */
let runningOptions: { output?: string } & TokenSourceFlags = {};
program.hook("preAction", (_program, command) => {
  runningOptions = command.opts();
  refuseWithoutCheckout(commandPath(command));
});

/** A command's path as typed: `provider package`. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at && at !== program; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

/**
 * Runs the command `argv` names (process.argv's form) to its end: its exit code in
 * process.exitCode, every error reported once (reportError).
 */
export function runProgram(argv: ReadonlyArray<string>): void {
  // whether the command's promise settled: Node's exit 13 (an await left pending when nothing is left to run) must never be what a user sees
  let settled = false;
  process.on("beforeExit", () => {
    if (settled) return;
    process.stderr.write("converge: internal error: the command stopped before finishing (it waited on something that can no longer happen); please report this with the command you ran\n");
    process.exit(1);
  });
  // an error thrown outside the command's promise (a callback, a stream) still gets one line and exit 1, never a crash
  const onEscaped = (error: unknown) => {
    process.exitCode = reportError(error);
    process.exit();
  };
  process.on("uncaughtException", onEscaped);
  process.on("unhandledRejection", onEscaped);

  // no top-level await: the single executable's bundle is a CommonJS script (src/cli/release/cli-bundle.ts)
  void program.parseAsync([...argv]).then(
    () => (settled = true),
    (error: unknown) => {
      process.exitCode = reportError(error);
      settled = true;
    },
  );
}

/** The one place errors become messages and exit codes (docs/manual/commands.md, "Exit codes"). */
function reportError(error: unknown): number {
  const code = (error as { code?: string }).code;
  if (typeof code === "string" && code.startsWith("commander.")) {
    return code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help" ? 0 : 1;
  }
  if (isDesiredStateError(error) && runningOptions.output === "json") {
    // for machines, every problem on stdout; for people, the listed ones on stderr, unless stdout is their terminal already
    const headline = `${error.headline} (${error.problems.length} problem${error.problems.length === 1 ? "" : "s"})`;
    process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: headline, problems: error.problems } }, null, 2)}\n`);
    process.stderr.write(process.stdout.isTTY ? `converge: ${headline}: listed above (--output json)\n` : `converge: ${error.message}\n`);
    return 1;
  }
  if (isDesiredStateError(error) || isConvergeError(error) || (error as { code?: string }).code === "CONVERGE_CLI") {
    const hint = refusedTokenHint(error, runningOptions);
    process.stderr.write(`converge: ${(error as Error).message}\n${hint ? `  ${hint}\n` : ""}`);
    return 1;
  }
  const system = describeSystemError(error);
  const message = system ?? (error instanceof Error ? error.message : String(error));
  process.stderr.write(`converge: ${message}\n`);
  if (process.argv.includes("--debug") && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return 1;
}
