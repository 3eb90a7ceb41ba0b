import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { DesiredStateError } from "../../desired/desired-state-error.js";
import type { LoadedDocument } from "../../desired/load.js";
import { applyPlan, type ApplyReport } from "../../reconcile/apply.js";
import { hasChanges, type Plan } from "../../reconcile/model.js";
import { fingerprint } from "../../reconcile/plan.js";
import { fromPlanFile, readAndPlan } from "../../reconcile/reconcile.js";
import { renderApplyReport } from "../../reconcile/render-plan.js";
import { CliError } from "../cli-error.js";
import { connect, progressReporter, useColor, type ConnectionFlags, type OutputFlags } from "../connection.js";
import { loadDocuments } from "../desired-input.js";
import { documentsFromEnvironment } from "../document-env.js";
import { renderPlan } from "./plan-command.js";
import type { Clients } from "../../clients/index.js";

export interface ApplyFlags extends ConnectionFlags, OutputFlags {
  readonly file: string[];
  readonly target: string[];
  readonly autoApprove: boolean;
  readonly prune: boolean;
  readonly parallelism: number;
  /** The name of an environment variable holding the documents as JSON (one, or an array), instead of -f. */
  readonly documentEnv?: string;
}

/**
 * `converge apply -f PATH…` plans and applies; `converge apply PLAN.json` applies a saved plan,
 * refusing when live state changed since it was made. Both verify by reading again: exit 0 when
 * live matches the documents afterwards, 1 when an action failed or live still differs.
 * `--document-env VAR` takes the documents from an environment variable instead (cdktf provisioners).
 */
export async function applyCommand(planFile: string | undefined, flags: ApplyFlags): Promise<number> {
  const sources = [planFile !== undefined, flags.file.length > 0, flags.documentEnv !== undefined].filter(Boolean).length;
  if (sources > 1) throw new CliError("pass one of a plan file, -f PATH or --document-env VAR, not several");
  if (flags.documentEnv !== undefined) {
    if (flags.target.length > 0) throw new CliError("--target selects among -f files: with --document-env VAR, put only the documents to apply in VAR");
    return applyDocuments(documentsFromEnvironment(flags.documentEnv), flags);
  }
  const clients = connect(flags);
  try {
    let plan: Plan;
    let documents: LoadedDocument[];
    if (planFile !== undefined) {
      const saved = fromPlanFile(JSON.parse(await readFile(planFile, "utf8")) as unknown, planFile);
      documents = saved.documents;
      const current = await readAndPlan(documents, clients, { prune: saved.plan.prune, parallelism: flags.parallelism });
      if (fingerprint(current.live) !== saved.plan.liveFingerprint) {
        throw new CliError(`live state changed since ${planFile} was made: nothing was applied; run converge plan again and review the new plan`);
      }
      plan = saved.plan;
    } else {
      documents = await loadDocuments(flags.file, flags.target);
      const result = await readAndPlan(documents, clients, { prune: flags.prune, parallelism: flags.parallelism });
      if (result.problems.length > 0) throw new DesiredStateError(result.problems);
      plan = result.plan;
    }
    process.stdout.write(renderPlan(plan, flags));
    if (!hasChanges(plan)) return 0;
    if (!flags.autoApprove && !(await confirm())) {
      throw new CliError(process.stdin.isTTY ? "apply cancelled: nothing was changed" : "apply needs --auto-approve when not run on a terminal: nothing was changed");
    }
    const report = await applyPlan(plan, clients, { parallelism: flags.parallelism, progress: progressReporter() });
    return await verify(report, documents, plan.prune, clients, flags);
  } finally {
    await clients.close();
  }
}

/**
 * Plans and applies already loaded documents (not from files: no --target), then verifies; used by
 * `apply --document-env` and `delete`.
 */
export async function applyDocuments(documents: ReadonlyArray<LoadedDocument>, flags: Omit<ApplyFlags, "file" | "target">): Promise<number> {
  const clients = connect(flags);
  try {
    const result = await readAndPlan(documents, clients, { prune: flags.prune, parallelism: flags.parallelism });
    if (result.problems.length > 0) throw new DesiredStateError(result.problems);
    process.stdout.write(renderPlan(result.plan, flags));
    if (!hasChanges(result.plan)) return 0;
    if (!flags.autoApprove && !(await confirm())) {
      throw new CliError(process.stdin.isTTY ? "apply cancelled: nothing was changed" : "apply needs --auto-approve when not run on a terminal: nothing was changed");
    }
    const report = await applyPlan(result.plan, clients, { parallelism: flags.parallelism, progress: progressReporter() });
    return await verify(report, documents, result.plan.prune, clients, flags);
  } finally {
    await clients.close();
  }
}

async function verify(report: ApplyReport, documents: ReadonlyArray<LoadedDocument>, prune: boolean, clients: Clients, flags: OutputFlags & { readonly parallelism: number }): Promise<number> {
  const after = await readAndPlan(documents, clients, { prune, parallelism: flags.parallelism });
  const converged = !hasChanges(after.plan) && after.problems.length === 0;
  if (flags.output === "json") {
    process.stdout.write(`${JSON.stringify({ apply: report, converged, remaining: after.plan.actions.filter((a) => a.type !== "no-op" && a.type !== "refused") }, null, 2)}\n`);
  } else {
    process.stdout.write(renderApplyReport(report, { color: useColor(flags) }));
    if (!converged) process.stdout.write(`Live state does not match yet:\n${renderPlan(after.plan, flags)}`);
  }
  return report.failed === 0 && converged ? 0 : 1;
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
