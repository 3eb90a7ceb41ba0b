import { DiagnosticsError, errorDiagnostic } from "../runtime/index.js";

/**
 * The two parts of an import ID (`API_ID/ROUTE_ID`): two non-empty parts separated by `/`; else
 * an error that shows the ID received and the form expected.
 */
export function parseImportId(id: string, typeName: string, names: readonly [string, string]): [string, string] {
  const [first, second, ...rest] = id.split("/");
  if (first && second && rest.length === 0) return [first, second];
  throw new DiagnosticsError(errorDiagnostic(
    `${typeName}: import ID ${JSON.stringify(id)} is not valid`,
    `expected ${names.join("/")} (e.g. terraform import ${typeName}.NAME ${names.join("/")})`,
  ));
}
