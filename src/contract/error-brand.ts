/**
 * The brand every converge error carries: a global symbol, so that the guards work across duplicate
 * installs of converge, where `instanceof` would not. The clients', the desired state's and the
 * ignore rules' errors all carry it; each guard asks for its own code.
 */
export const ERROR_BRAND = Symbol.for("converge.error");

/** Whether `value` carries the brand, and, when `code` is given, that code. */
export function isBrandedError(value: unknown, code?: string): boolean {
  return typeof value === "object" && value !== null
    && (value as Record<symbol, unknown>)[ERROR_BRAND] === true
    && (code === undefined || (value as { code?: unknown }).code === code);
}

/**
 * An input's problems as one error: "WHAT (N problems):" then a line each, as `lines` gives them
 * (a caller may shorten the list and say so in its last line). Branded, with the problems kept for
 * `--output json`.
 */
export abstract class ProblemsError<Problem> extends Error {
  readonly [ERROR_BRAND] = true;
  readonly problems: ReadonlyArray<Problem>;

  protected constructor(what: string, problems: ReadonlyArray<Problem>, lines: ReadonlyArray<string>) {
    const count = problems.length;
    super(`${what} (${count} problem${count === 1 ? "" : "s"}):\n${lines.map((line) => `  ${line}`).join("\n")}`);
    this.problems = problems;
  }
}
