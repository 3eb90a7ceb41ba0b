const BRAND = Symbol.for("converge.error");

/** Where something stands in a desired-state file (1-based line and column). */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** One problem of the desired state: where, which field, what was received and expected. */
export interface DesiredStateProblem extends SourceLocation {
  /** Field path inside the document, e.g. `spec.routeKey` (empty for a whole document). */
  readonly path: string;
  readonly message: string;
}

export function formatProblem(problem: DesiredStateProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
}

/** The desired state is not valid; every problem found is listed, and nothing was called or changed. */
export class DesiredStateError extends Error {
  readonly code = "CONVERGE_DESIRED_STATE" as const;
  readonly [BRAND] = true;
  readonly problems: ReadonlyArray<DesiredStateProblem>;

  constructor(problems: ReadonlyArray<DesiredStateProblem>) {
    const count = problems.length;
    super(`desired state is not valid (${count} problem${count === 1 ? "" : "s"}):\n${problems.map((p) => `  ${formatProblem(p)}`).join("\n")}`);
    this.name = "DesiredStateError";
    this.problems = problems;
  }
}

export function isDesiredStateError(value: unknown): value is DesiredStateError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true && (value as { code?: unknown }).code === "CONVERGE_DESIRED_STATE";
}
