import { formatPath, pathAt, type AttributePath, type LinkStep, type PathLink } from "./attribute-path.js";

/**
 * A value that does not fit its type, found while encoding or decoding: `path` is where (empty for
 * the value itself), so a diagnostic can point at the attribute.
 */
export class ValueTypeError extends Error {
  readonly code = "VALUE_TYPE";
  constructor(
    readonly path: AttributePath,
    readonly problem: string,
  ) {
    super(path.length === 0 ? problem : `${formatPath(path)}: ${problem}`);
    this.name = "ValueTypeError";
  }
}

/** The error of a value, at `step` below `above`, that is not what its type expects. */
export function mismatchAt(received: unknown, expected: string, above: AttributePath | PathLink, step: LinkStep): ValueTypeError {
  return new ValueTypeError(pathAt(above, step), `received ${describeReceived(received)}, expected ${expected}`);
}

export function isValueTypeError(error: unknown): error is ValueTypeError {
  return error instanceof Error && (error as { code?: unknown }).code === "VALUE_TYPE" && Array.isArray((error as { path?: unknown }).path);
}

/** `string "x"`, `number 3`, `a list of 2`, for messages that name the value received. */
export function describeReceived(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (typeof value === "object") return String(value) === "(known after apply)" ? "unknown" : "an object";
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}
