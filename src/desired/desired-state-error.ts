import { isBrandedError, ProblemsError } from "../contract/error-brand.js";

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

/**
 * Problems in reading order: each file where its first problem was found (the order the files were
 * given and read), and within a file by line and column as numbers (line 8 before line 14).
 */
function inReadingOrder<P extends SourceLocation>(problems: ReadonlyArray<P>): P[] {
  const fileRank = new Map<string, number>();
  for (const problem of problems) if (!fileRank.has(problem.file)) fileRank.set(problem.file, fileRank.size);
  return [...problems].sort((a, b) => fileRank.get(a.file)! - fileRank.get(b.file)! || a.line - b.line || a.column - b.column);
}

export function formatProblem(problem: DesiredStateProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
}

/** How many problems a message lists; the error's `problems` holds every one (`--output json` prints them all). */
export const LISTED_PROBLEMS = 50;

/**
 * The desired state is not valid; nothing was called or changed. `problems` holds every problem
 * found, in reading order (inReadingOrder); the message lists the first LISTED_PROBLEMS (a mistake
 * repeated in thousands of documents would otherwise print thousands of lines) and says how many
 * more there are.
 */
export class DesiredStateError extends ProblemsError<DesiredStateProblem> {
  readonly code = "CONVERGE_DESIRED_STATE" as const;
  /** What the problems are about, the message's first words: a DesiredStateHeadline. */
  readonly headline: string;

  constructor(found: ReadonlyArray<DesiredStateProblem>, headline: string = DesiredStateHeadline.invalid) {
    const problems = inReadingOrder(found);
    const listed = problems.slice(0, LISTED_PROBLEMS).map(formatProblem);
    if (problems.length > LISTED_PROBLEMS) listed.push(`… and ${problems.length - LISTED_PROBLEMS} more (--output json lists every problem)`);
    super(headline, problems, listed);
    this.name = "DesiredStateError";
    this.headline = headline;
  }
}

/**
 * The first words of a DesiredStateError: documents that break their schema or each other, files
 * that could not be read at all, and documents that are valid but name what live state does not
 * hold (an API of no such name, an integration two live ones match), found by plan, apply and drift.
 */
export const DesiredStateHeadline = {
  invalid: "desired state is not valid",
  unreadable: "cannot read the desired state",
  unplannable: "desired state cannot be planned against the live state",
} as const;

export function isDesiredStateError(value: unknown): value is DesiredStateError {
  return isBrandedError(value, "CONVERGE_DESIRED_STATE");
}
