import { diagnosticToProtocol, errorDiagnostic, isDiagnosticsError, type Diagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import type { DiagnosticsAnswer } from "./protocol-messages.js";
import { isValueTypeError } from "./value-error.js";

/**
 * What a thrown error becomes in an answer to terraform, so no call crashes the provider: a
 * `DiagnosticsError`'s diagnostics; a `ValueTypeError` (a value that does not fit the schema) an
 * error pointing at its attribute; anything else one error with the message. `what` says which
 * call failed (`example_thing: create`). The stack goes to the log.
 *
 * The one way the runtime turns a thrown error into diagnostics: each handler catches around the
 * part whose failure it answers in its own way (a failed read keeps the state terraform has, a
 * failed update the prior state), and makes `what` only then, so that a call that succeeds builds
 * no text and no closure for it.
 */
export function diagnosticsOfThrown(error: unknown, what: string, log: Logger): Diagnostic[] {
  if (isDiagnosticsError(error)) return [...error.diagnostics];
  log.error(`${what} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  if (isValueTypeError(error)) return [errorDiagnostic(`${what}: invalid value`, error.message, error.path.length > 0 ? error.path : undefined)];
  return [errorDiagnostic(`${what} failed`, error instanceof Error ? error.message : String(error))];
}

/** An answer holding only the diagnostics of a thrown error (see `diagnosticsOfThrown`). */
export function thrownAnswer(error: unknown, what: string, log: Logger): DiagnosticsAnswer {
  return { diagnostics: diagnosticsOfThrown(error, what, log).map(diagnosticToProtocol) };
}
