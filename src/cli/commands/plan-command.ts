import { writeFile } from "node:fs/promises";
import { DesiredStateError, DesiredStateHeadline } from "../../desired/desired-state-error.js";
import { hasChanges, type Plan } from "../../reconcile/model.js";
import { readAndPlan, toPlanFile } from "../../reconcile/reconcile.js";
import { renderPlanAsMarkdown, renderPlanAsText } from "../../reconcile/render-plan.js";
import { connect, useColor, type ConnectionFlags, type OutputFlags } from "../connection.js";
import { desiredLoadOptions, desiredPaths, loadDesiredInput } from "../desired-input.js";
import { prepareOutputFile } from "../output-file.js";
import { warnOfConflicts } from "../conflict-warnings.js";
import { ProgressLine } from "../progress-line.js";
import { loadStateInput } from "../state-input.js";
import type { VariableFlags } from "../variable-flags.js";

export interface PlanFlags extends ConnectionFlags, OutputFlags, VariableFlags {
  readonly file: string[];
  /** A cdktf synth output (cdktf.out or a stack directory) instead of -f. */
  readonly fromSynth?: string;
  readonly target: string[];
  readonly out?: string;
  readonly prune: boolean;
  /** Plan the repair of identical twins in every API, not only pruned ones (`--repair-twins`). */
  readonly repairTwins: boolean;
  readonly parallelism: number;
  /** terraform states whose converge resources (and cdktf inventories) pruning leaves alone. */
  readonly state?: ReadonlyArray<string>;
}

/** `converge plan`: exit 0 when live matches, 2 when there are changes, 1 on error. */
export async function planCommand(flags: PlanFlags): Promise<number> {
  if (flags.out !== undefined) prepareOutputFile("--out", flags.out);
  const desired = await loadDesiredInput(desiredPaths(flags), flags.target, desiredLoadOptions(flags));
  const documents = desired.documents;
  const states = await loadStateInput(flags.state ?? []);
  const clients = connect(flags);
  const line = new ProgressLine();
  try {
    line.phase("reading");
    const { plan, problems, live } = await readAndPlan(documents, clients, {
      prune: flags.prune,
      repairTwins: flags.repairTwins,
      parallelism: flags.parallelism,
      progress: line.progress,
      states,
    });
    line.close();
    if (problems.length > 0) throw new DesiredStateError(problems, DesiredStateHeadline.unplannable);
    warnOfConflicts(documents, states, live);
    if (flags.out) await writeFile(flags.out, `${JSON.stringify(toPlanFile(plan, documents, desired.variables), null, 2)}\n`);
    process.stdout.write(renderPlan(plan, flags));
    return hasChanges(plan) ? 2 : 0;
  } finally {
    line.close();
    await clients.close();
  }
}

export function renderPlan(plan: Plan, flags: OutputFlags): string {
  if (flags.output === "json") return `${JSON.stringify(plan, null, 2)}\n`;
  if (flags.output === "markdown") return renderPlanAsMarkdown(plan);
  return renderPlanAsText(plan, { color: useColor(flags) });
}
