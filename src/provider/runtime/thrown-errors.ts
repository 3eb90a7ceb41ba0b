import { errorDiagnostic, isDiagnosticsError, type Diagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import { isValueTypeError } from "./value-error.js";

/**
 * What a thrown error becomes in an answer to terraform, so no call crashes the provider: a
 * `DiagnosticsError`'s diagnostics; a `ValueTypeError` (a value that does not fit the schema) an
 * error pointing at its attribute; anything else one error with the message. `what` says which
 * call failed (`example_thing: create`). The stack goes to the log.
 */
export function diagnosticsOfThrown(error: unknown, what: string, log: Logger): Diagnostic[] {
  if (isDiagnosticsError(error)) return [...error.diagnostics];
  log.error(`${what} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  if (isValueTypeError(error)) return [errorDiagnostic(`${what}: invalid value`, error.message, error.path.length > 0 ? error.path : undefined)];
  return [errorDiagnostic(`${what} failed`, error instanceof Error ? error.message : String(error))];
}

/** Runs a call, catching what it throws as diagnostics (`value` is undefined then). */
export async function attempt<T>(what: string, log: Logger, call: () => T | Promise<T>): Promise<{ readonly value?: T; readonly diagnostics: Diagnostic[] }> {
  try {
    return { value: await call(), diagnostics: [] };
  } catch (error) {
    return { diagnostics: diagnosticsOfThrown(error, what, log) };
  }
}
