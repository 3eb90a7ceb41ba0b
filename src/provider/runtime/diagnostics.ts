import { pathToProtocol, type AttributePath, type ProtocolAttributePath } from "./attribute-path.js";

/**
 * What terraform shows the user: an error stops the operation, a warning does not. With a `path`,
 * terraform points at that attribute's line in the configuration (`on main.tf line 3, in resource
 * ...`).
 */
export interface Diagnostic {
  readonly severity: "error" | "warning";
  readonly summary: string;
  readonly detail?: string;
  readonly path?: AttributePath;
}

export function errorDiagnostic(summary: string, detail?: string, path?: AttributePath): Diagnostic {
  return { severity: "error", summary, ...(detail === undefined ? {} : { detail }), ...(path === undefined ? {} : { path }) };
}

export function warningDiagnostic(summary: string, detail?: string, path?: AttributePath): Diagnostic {
  return { severity: "warning", summary, ...(detail === undefined ? {} : { detail }), ...(path === undefined ? {} : { path }) };
}

export function hasErrors(diagnostics: ReadonlyArray<Diagnostic>): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === "error");
}

/**
 * Thrown by a resource, data source or provider operation to answer with these diagnostics (e.g. an
 * error pointing at an attribute). Any other thrown error becomes one error diagnostic with its
 * message.
 */
export class DiagnosticsError extends Error {
  readonly code = "DIAGNOSTICS";
  readonly diagnostics: ReadonlyArray<Diagnostic>;
  constructor(diagnostics: Diagnostic | ReadonlyArray<Diagnostic>) {
    const list = Array.isArray(diagnostics) ? (diagnostics as ReadonlyArray<Diagnostic>) : [diagnostics as Diagnostic];
    super(list.map((diagnostic) => diagnostic.summary).join("; "));
    this.name = "DiagnosticsError";
    this.diagnostics = list;
  }
}

export function isDiagnosticsError(error: unknown): error is DiagnosticsError {
  return error instanceof Error && (error as { code?: unknown }).code === "DIAGNOSTICS" && Array.isArray((error as { diagnostics?: unknown }).diagnostics);
}

/** The protocol's `Diagnostic` message (tfplugin6.proto). */
export interface ProtocolDiagnostic {
  readonly severity: "ERROR" | "WARNING";
  readonly summary: string;
  readonly detail: string;
  readonly attribute?: ProtocolAttributePath;
}

export function diagnosticToProtocol(diagnostic: Diagnostic): ProtocolDiagnostic {
  return {
    severity: diagnostic.severity === "error" ? "ERROR" : "WARNING",
    summary: diagnostic.summary,
    detail: diagnostic.detail ?? "",
    ...(diagnostic.path === undefined || diagnostic.path.length === 0 ? {} : { attribute: pathToProtocol(diagnostic.path) }),
  };
}
