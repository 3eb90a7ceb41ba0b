import type { CycleRecord, Finding, WriteRecord } from "./cycle-record.js";

/** How the reconciler's log lines are written: text for people, or one JSON object a line for log collectors (`--log-format json`). */
export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export type LogLevel = "info" | "warn" | "error";

/**
 * The reconciler's log: one line per event (a cycle, a write with its fields before and after, a
 * refusal or guard, a change of role), as text or JSON lines. It is given only what the cycle
 * records, which holds documents' fields and never a credential.
 */
export class EventLog {
  readonly #write: (line: string) => void;
  readonly #format: LogFormat;
  readonly #now: () => Date;

  constructor(write: (line: string) => void, format: LogFormat = "text", now: () => Date = () => new Date()) {
    this.#write = write;
    this.#format = format;
    this.#now = now;
  }

  event(level: LogLevel, event: string, message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    const time = this.#now().toISOString();
    if (this.#format === "json") this.#write(`${JSON.stringify({ time, level, event, msg: message, ...fields })}\n`);
    else this.#write(`${time} ${level.padEnd(5)} ${message}\n`);
  }

  /** A cycle's lines: each write, each finding that is new, then the cycle itself. */
  cycle(record: CycleRecord): void {
    for (const write of record.writes) this.#writeLine(record.cycle, write);
    for (const finding of record.findings) if (finding.new) this.#finding(record.cycle, finding);
    const level: LogLevel = record.result === "error" ? "error" : record.result === "success" ? "info" : "warn";
    this.event(level, "cycle", `cycle ${record.cycle} ${record.result}: ${describeSummary(record)} in ${(record.durationMs / 1000).toFixed(2)} s `
      + `(${record.requests} requests${record.throttled ? ", throttled" : ""})${record.error ? `: ${record.error}` : ""}`
      + `${record.guard ? `; writes stopped by ${record.guard.guard}: ${record.guard.message}` : ""}`, {
      cycle: record.cycle,
      result: record.result,
      durationMs: record.durationMs,
      requests: record.requests,
      throttled: record.throttled,
      summary: record.summary,
      ...(record.guard ? { guard: record.guard.guard, guardMessage: record.guard.message } : {}),
      ...(record.error ? { error: record.error } : {}),
    });
  }

  #writeLine(cycle: number, write: WriteRecord): void {
    const fields = write.changes.map((change) => `${change.path} ${JSON.stringify(change.before) ?? "null"} -> ${JSON.stringify(change.after) ?? "null"}`);
    this.event(write.status === "failed" ? "error" : "info", "write",
      `cycle ${cycle} ${write.type} ${write.address}${fields.length > 0 ? `: ${fields.join(", ")}` : ""}: ${write.status}${write.error ? ` (${write.error})` : ""}`,
      { cycle, address: write.address, kind: write.kind, type: write.type, status: write.status, changes: write.changes, ...(write.error ? { error: write.error } : {}) });
  }

  #finding(cycle: number, finding: Finding): void {
    const verb = finding.guard === "policy" ? "observed" : finding.guard === "settling" ? "waiting" : "refused";
    this.event(finding.guard === "policy" || finding.guard === "settling" ? "info" : "warn", "refusal",
      `cycle ${cycle} ${verb}${finding.address ? ` ${finding.address}` : ""} (${finding.guard}): ${finding.message}`,
      { cycle, guard: finding.guard, ...(finding.address ? { address: finding.address } : {}), message: finding.message });
  }
}

/** `12 in sync, 1 corrected, 1 drifted`: the states with resources in them. */
export function describeSummary(record: Pick<CycleRecord, "summary">): string {
  const parts = Object.entries(record.summary).filter(([, count]) => count > 0).map(([state, count]) => `${count} ${state === "in-sync" ? "in sync" : state}`);
  return parts.length > 0 ? parts.join(", ") : "no resources";
}
