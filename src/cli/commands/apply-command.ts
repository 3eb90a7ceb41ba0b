import { createInterface } from "node:readline/promises";
import { DesiredStateError, DesiredStateHeadline } from "../../desired/desired-state-error.js";
import type { LoadedDocument } from "../../desired/load.js";
import { applyPlan, type ApplyReport } from "../../reconcile/apply.js";
import { hasChanges, type Plan } from "../../reconcile/model.js";
import { planFileDifference } from "../../reconcile/plan-file-check.js";
import { fromPlanFile, readAndPlan } from "../../reconcile/reconcile.js";
import { renderApplyReport } from "../../reconcile/render-plan.js";
import { CliError } from "../cli-error.js";
import { connect, progressReporter, useColor, type ConnectionFlags, type OutputFlags } from "../connection.js";
import { desiredLoadOptions, loadDesiredInput } from "../desired-input.js";
import { describeVariables, type VariablesRecord } from "../../desired/variable-record.js";
import { hasVariableFlags, type VariableFlags } from "../variable-flags.js";
import { loadStateInput, type StateInput } from "../state-input.js";
import { documentsFromEnvironment } from "../document-env.js";
import { readPlanFile } from "../plan-file-input.js";
import { warnOfConflicts } from "../conflict-warnings.js";
import { onInterrupt } from "../interrupt.js";
import { withLock, type LockOptions } from "../lock.js";
import { loadSynthStack, readPreviousInventory, removedDocuments } from "../synth-stack.js";
import { ProgressLine } from "../progress-line.js";
import { renderPlan } from "./plan-command.js";
import type { Clients } from "../../clients/index.js";

export interface ApplyFlags extends ConnectionFlags, OutputFlags, VariableFlags {
  readonly file: string[];
  readonly target: string[];
  readonly autoApprove: boolean;
  readonly prune: boolean;
  readonly parallelism: number;
  /** The name of an environment variable holding the documents as JSON (one, or an array), instead of -f. */
  readonly documentEnv?: string;
  /** Repair identical twins of declared integrations in every API, not only pruned ones. */
  readonly repairTwins: boolean;
  /** Hold this advisory lock (a file path) for the whole apply. */
  readonly lock?: string;
  /** Seconds to wait for the lock. */
  readonly lockTimeout: number;
  /** A cdktf synth output (a stack's directory, or cdktf.out) instead of -f. */
  readonly fromSynth?: string;
  /** With --from-synth: the variable holding the sha256 the stack's file must have. */
  readonly expectSha256Env?: string;
  /** With --from-synth: the prefix of the variables holding the stack's previous inventory (deleted where no longer declared). */
  readonly previousEnv?: string;
  /** terraform states whose converge resources (and cdktf inventories) pruning leaves alone. */
  readonly state?: ReadonlyArray<string>;
}

/**
 * `converge apply -f PATH…` plans and applies; `converge apply PLAN.json` plans the saved plan's
 * documents again and applies that plan only when it is the file's (refusing when live state changed
 * since it was made, or the file was edited). Both verify by reading again: exit 0 when
 * live matches the documents afterwards, 1 when an action failed or live still differs.
 * `--document-env VAR` takes the documents from an environment variable instead (cdktf provisioners).
 */
export async function applyCommand(planFile: string | undefined, flags: ApplyFlags): Promise<number> {
  const sources = [planFile !== undefined, flags.file.length > 0, flags.documentEnv !== undefined, flags.fromSynth !== undefined].filter(Boolean).length;
  if (sources > 1) throw new CliError("pass one of a plan file, -f PATH, --document-env VAR or --from-synth DIR, not several");
  if (planFile !== undefined && hasVariableFlags(flags)) {
    throw new CliError(`--var and --var-file shape a plan: ${planFile} holds its documents with their variables substituted `
      + `(apply shows which); run converge plan again to change them`);
  }
  if (flags.fromSynth === undefined && (flags.expectSha256Env !== undefined || flags.previousEnv !== undefined)) {
    throw new CliError("--expect-sha256-env and --previous-env go with --from-synth DIR (the cdktf constructs' provisioners pass all three)");
  }
  if (flags.fromSynth !== undefined) {
    if (flags.target.length > 0) throw new CliError("--target selects among -f files: with --from-synth, the stack's whole desired state is applied");
    const stack = await loadSynthStack({ fromSynth: flags.fromSynth, expectSha256Env: flags.expectSha256Env });
    const removed = flags.previousEnv === undefined ? [] : removedDocuments(readPreviousInventory(flags.previousEnv), stack.inventory, flags.previousEnv);
    return applyDocuments(stack.documents, flags, removed);
  }
  if (flags.documentEnv !== undefined) {
    if (flags.target.length > 0) throw new CliError("--target selects among -f files: with --document-env VAR, put only the documents to apply in VAR");
    return applyDocuments(documentsFromEnvironment(flags.documentEnv), flags);
  }
  const savedPlan = planFile === undefined ? undefined : await readPlanFile(planFile);
  const desired = planFile === undefined ? await loadDesiredInput(flags.file, flags.target, desiredLoadOptions(flags)) : undefined;
  const documents = desired?.documents;
  const states = await loadStateInput(flags.state ?? []);
  if (desired?.variables) showVariables(`Variables: ${describeVariables(desired.variables)}`, flags);
  return withLock(flags.lock, lockOptions(flags), async (signal) => {
    const clients = connect(flags);
    const line = new ProgressLine();
    try {
      if (planFile !== undefined) {
        const saved = await replanPlanFile(planFile, savedPlan, clients, flags, signal, line, states);
        return await applyPlanned(saved.plan, saved.documents, clients, flags, signal, line, [], states);
      }
      line.phase("reading");
      const result = await readAndPlan(documents!, clients, {
        prune: flags.prune,
        repairTwins: flags.repairTwins,
        parallelism: flags.parallelism,
        signal,
        progress: line.progress,
        states,
      });
      if (result.problems.length > 0) throw new DesiredStateError(result.problems, DesiredStateHeadline.unplannable);
      warnOfConflicts(documents!, states, result.live);
      return await applyPlanned(result.plan, documents!, clients, flags, signal, line, [], states);
    } finally {
      line.close();
      await clients.close();
    }
  });
}

/**
 * A saved plan, re-planned: the file's documents planned against live state now, with the file's
 * options. The result is applied only when it is the file's plan in every field (planFileDifference);
 * so apply runs what planning yields now, and the protections hold whatever the file says. Refuses
 * (nothing applied) when live state changed since the plan was made, when its documents no longer
 * plan cleanly, and when the file's actions, options or summary are not what its documents plan.
 */
async function replanPlanFile(
  planFile: string,
  savedPlan: unknown,
  clients: Clients,
  flags: ApplyFlags,
  signal: AbortSignal | undefined,
  line: ProgressLine,
  states: StateInput,
): Promise<{ plan: Plan; documents: LoadedDocument[] }> {
  if (flags.prune || flags.repairTwins || flags.target.length > 0) {
    throw new CliError(`--prune, --repair-twins and --target shape a plan: ${planFile} was made with its own `
      + `(its "prune" and "repairTwins" say which); run converge plan again to change them`);
  }
  const saved = fromPlanFile(savedPlan, planFile);
  showPlanVariables(planFile, saved.variables, flags);
  line.phase("reading");
  const current = await readAndPlan(saved.documents, clients, {
    prune: saved.plan.prune,
    repairTwins: saved.plan.repairTwins,
    parallelism: flags.parallelism,
    signal,
    progress: line.progress,
    states,
  });
  const difference = planFileDifference(saved.plan, current.plan);
  if (difference?.kind === "stale") {
    throw new CliError(`live state changed since ${planFile} was made: nothing was applied; run converge plan again and review the new plan`);
  }
  if (current.problems.length > 0) throw new DesiredStateError(current.problems, DesiredStateHeadline.unplannable);
  warnOfConflicts(saved.documents, states, current.live);
  if (difference) {
    throw new CliError(`${planFile} is not the plan its documents make against the live state now: ${difference.detail}. `
      + `Nothing was applied: a plan file is applied only as converge plan --out wrote it `
      + `(was it edited, or written by another version of converge?); run converge plan again and review the new plan`);
  }
  return { plan: current.plan, documents: saved.documents };
}

/**
 * Plans and applies already loaded documents (not from files: no --target), then verifies; used by
 * `apply --document-env` and `delete`.
 */
export async function applyDocuments(
  documents: ReadonlyArray<LoadedDocument>,
  flags: Omit<ApplyFlags, "file" | "target">,
  removed: ReadonlyArray<LoadedDocument> = [],
): Promise<number> {
  const states = await loadStateInput(flags.state ?? []);
  return withLock(flags.lock, lockOptions(flags), async (signal) => {
    const clients = connect(flags);
    const line = new ProgressLine();
    try {
      line.phase("reading");
      const result = await readAndPlan(documents, clients, {
        prune: flags.prune,
        repairTwins: flags.repairTwins,
        parallelism: flags.parallelism,
        signal,
        progress: line.progress,
        removed,
        states,
      });
      if (result.problems.length > 0) throw new DesiredStateError(result.problems, DesiredStateHeadline.unplannable);
      warnOfConflicts(documents, states, result.live);
      return await applyPlanned(result.plan, documents, clients, flags, signal, line, removed, states);
    } finally {
      line.close();
      await clients.close();
    }
  });
}

/** Shows the plan, asks (unless --auto-approve), applies it and verifies: exit 0 when live matches the documents afterwards. */
async function applyPlanned(
  plan: Plan,
  documents: ReadonlyArray<LoadedDocument>,
  clients: Clients,
  flags: OutputFlags & Pick<ApplyFlags, "autoApprove" | "parallelism">,
  signal: AbortSignal | undefined,
  line: ProgressLine,
  removed: ReadonlyArray<LoadedDocument> = [],
  states?: StateInput,
): Promise<number> {
  line.pause();
  process.stdout.write(renderPlan(plan, flags));
  if (!hasChanges(plan)) return 0;
  if (!flags.autoApprove && !(await confirm())) {
    throw new CliError(process.stdin.isTTY
      ? "apply cancelled: nothing was changed"
      : "apply needs --auto-approve when not run on a terminal: nothing was changed");
  }
  line.phase("writing");
  const interrupt = onInterrupt((text) => line.say(text.trimEnd()));
  let report: ApplyReport;
  try {
    report = await applyPlan(plan, clients, { parallelism: flags.parallelism, notice: (message) => line.notice(message), progress: line.progress, signal, stop: interrupt.signal });
  } finally {
    interrupt.dispose();
  }
  const interrupted = interrupt.exitCode();
  if (interrupted !== undefined) {
    line.close();
    if (flags.output === "json") process.stdout.write(`${JSON.stringify({ apply: report, converged: false, interrupted: true }, null, 2)}\n`);
    else process.stdout.write(renderApplyReport(report, { color: useColor(flags) }));
    return interrupted;
  }
  line.phase("verifying");
  const after = await readAndPlan(documents, clients, {
    prune: plan.prune,
    repairTwins: plan.repairTwins,
    parallelism: flags.parallelism,
    signal,
    progress: line.progress,
    removed,
    states,
  });
  line.close();
  const converged = !hasChanges(after.plan) && after.problems.length === 0;
  if (flags.output === "json") {
    process.stdout.write(`${JSON.stringify({
      apply: report,
      converged,
      remaining: after.plan.actions.filter((a) => a.type !== "no-op" && a.type !== "refused"),
    }, null, 2)}\n`);
  } else {
    process.stdout.write(renderApplyReport(report, { color: useColor(flags) }));
    if (!converged) process.stdout.write(`Live state does not match yet:\n${renderPlan(after.plan, flags)}`);
  }
  return report.failed === 0 && converged ? 0 : 1;
}

/**
 * Says which variables a saved plan was made with, before anything is read or written, so that
 * whoever approves sees which environment it is for: on stdout with the plan, on stderr when
 * stdout holds JSON.
 */
function showPlanVariables(planFile: string, variables: VariablesRecord | undefined, flags: OutputFlags): void {
  showVariables(variables
    ? `${planFile} was made with ${describeVariables(variables)}`
    : `${planFile} was made without variables`, flags);
}

function showVariables(line: string, flags: OutputFlags): void {
  (flags.output === "json" ? process.stderr : process.stdout).write(`${line}\n`);
}

/** The lock's options from the flags: the wait, the command recorded for whoever waits, and a notice while waiting. */
function lockOptions(flags: Pick<ApplyFlags, "lockTimeout">): LockOptions {
  const notice = progressReporter();
  return {
    timeoutMs: flags.lockTimeout * 1000,
    command: `converge ${process.argv.slice(2).join(" ")}`,
    onWait: (holder) => notice(`waiting up to ${flags.lockTimeout} s for the lock, held by ${holder}`),
  };
}

async function confirm(): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question("Do you want to perform these actions? Only 'yes' will be accepted: ");
    return answer.trim() === "yes";
  } finally {
    prompt.close();
  }
}
