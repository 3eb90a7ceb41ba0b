import { DiagnosticsError, errorDiagnostic } from "../runtime/index.js";

/**
 * The parts of an import ID (`API_ID/ROUTE_ID`): exactly as many non-empty parts as `names`,
 * separated by `/`; else an error that shows the ID received and the form expected.
 */
export function parseImportId(id: string, typeName: string, names: ReadonlyArray<string>): string[] {
  const parts = id.split("/");
  if (parts.length === names.length && parts.every((part) => part.length > 0)) return parts;
  throw new DiagnosticsError(errorDiagnostic(
    `${typeName}: import ID ${JSON.stringify(id)} is not valid`,
    `expected ${names.join("/")} (e.g. terraform import ${typeName}.NAME ${names.join("/")})`,
  ));
}
