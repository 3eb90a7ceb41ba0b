import { renderValue } from "../contract/field-issues.js";
import type { ApplyReport } from "./apply.js";
import type { Plan, PlannedAction } from "./model.js";

export type OutputFormat = "text" | "json" | "markdown";

export interface RenderOptions {
  /** ANSI colors (off with --no-color, NO_COLOR, or when stdout is not a terminal). */
  readonly color: boolean;
  /** Show unchanged resources too. @default false */
  readonly showUnchanged?: boolean;
}

const SYMBOL: Readonly<Record<PlannedAction["type"], string>> = { create: "+", update: "~", delete: "-", "no-op": " ", refused: "!" };
const COLOR: Readonly<Record<PlannedAction["type"], string>> = { create: "32", update: "33", delete: "31", "no-op": "2", refused: "35" };
const VERB: Readonly<Record<PlannedAction["type"], string>> = {
  create: "will be created",
  update: "will be updated in place",
  delete: "will be deleted",
  "no-op": "is unchanged",
  refused: "is refused",
};

function paint(text: string, code: string, color: boolean): string {
  return color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** One line per field change, aligned; long values cut to stay readable. */
function renderChanges(action: PlannedAction, color: boolean): string[] {
  const width = Math.max(0, ...action.changes.map((change) => change.path.length));
  return action.changes.map((change) => {
    const path = change.path.padEnd(width);
    if (action.type === "create") return `      ${paint("+", COLOR.create, color)} ${path} = ${renderValue(change.after)}`;
    if (change.after === null) return `      ${paint("-", COLOR.delete, color)} ${path} = ${renderValue(change.before)} -> null`;
    return `      ${paint("~", COLOR.update, color)} ${path} = ${renderValue(change.before)} -> ${renderValue(change.after)}`;
  });
}

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.refused} refused, ${s.noop} unchanged.`;
}

/** The plan as people read it, shaped like terraform's. */
export function renderPlanAsText(plan: Plan, options: RenderOptions): string {
  const lines: string[] = [];
  const shown = plan.actions.filter((action) => action.type !== "no-op" || options.showUnchanged);
  if (shown.length === 0) {
    lines.push("No changes. Live state matches the desired state.");
  } else {
    lines.push("converge will perform these actions:", "");
    for (const action of shown) {
      const where = action.source ? `  (${action.source.file}:${action.source.line})` : "";
      lines.push(`  ${paint(`# ${action.address} ${VERB[action.type]}`, "1", options.color)}${where}`);
      lines.push(`  ${paint(SYMBOL[action.type], COLOR[action.type], options.color)} `
        + `${action.kind} ${JSON.stringify(action.name)}${action.reason ? `: ${action.reason}` : ""}`);
      lines.push(...renderChanges(action, options.color), "");
    }
  }
  lines.push(summaryLine(plan));
  return `${lines.join("\n")}\n`;
}

/** The plan as a CI summary: a headline and one table row per action. */
export function renderPlanAsMarkdown(plan: Plan, title = "converge plan"): string {
  const s = plan.summary;
  const lines = [
    `### ${title}`,
    "",
    `**${s.create}** to create · **${s.update}** to update · **${s.delete}** to delete · **${s.refused}** refused · ${s.noop} unchanged`,
    "",
  ];
  const shown = plan.actions.filter((action) => action.type !== "no-op");
  if (shown.length > 0) {
    lines.push("| action | resource | details |", "|---|---|---|");
    for (const action of shown) {
      const details = action.type === "refused" || action.type === "delete"
        ? action.reason ?? ""
        : action.changes
          .map((change) => `\`${change.path}\`: ${escapeCell(renderValue(change.before))} → ${escapeCell(renderValue(change.after))}`)
          .join("<br>");
      lines.push(`| ${action.type} | \`${escapeCell(action.address)}\` | ${escapeCell(details)} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export function renderApplyReport(report: ApplyReport, options: RenderOptions): string {
  const lines = report.outcomes
    .filter((outcome) => outcome.status === "failed")
    .map((outcome) => `  ${paint("✗", "31", options.color)} ${outcome.address}: ${outcome.error}`);
  lines.push(report.skipped > 0
    ? `Apply interrupted: ${report.done} done, ${report.failed} failed, ${report.skipped} not started.`
    : `Apply complete: ${report.done} done, ${report.failed} failed.`);
  return `${lines.join("\n")}\n`;
}
