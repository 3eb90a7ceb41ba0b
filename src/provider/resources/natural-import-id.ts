import { DiagnosticsError, errorDiagnostic } from "../runtime/index.js";

/**
 * An import ID that names a live resource by converge's identity instead of its service ID:
 * `API_ID?route_key=GET%20/orders`, `API_ID?integration_type=HTTP_PROXY&integration_uri=…`. The
 * query is URL-encoded (`encodeURIComponent` of each value), the attributes are the resource's
 * own; what the constructs write when an app switches from a CLI vehicle (their routes' and
 * integrations' IDs are not known at synth).
 */
export interface NaturalImportId {
  /** The API's ID, the part before `?`. */
  readonly apiId: string;
  /** Attribute → value, as given (decoded). */
  readonly attributes: Readonly<Record<string, string>>;
}

/** Whether an import ID is of the natural-key form (it holds a `?`, which no service ID does). */
export function isNaturalImportId(id: string): boolean {
  return id.includes("?");
}

/**
 * The parts of a natural-key import ID: a non-empty API_ID, then each of `allowed` at most once,
 * every one of `required` present and non-empty; else one error naming what is wrong, the ID
 * received and the form expected.
 */
export function parseNaturalImportId(id: string, typeName: string, allowed: ReadonlyArray<string>, required: ReadonlyArray<string>): NaturalImportId {
  const form = `API_ID?${required.map((attribute) => `${attribute}=VALUE`).join("&")}${allowed.length > required.length ? "[&…]" : ""}`;
  const refuse = (problem: string): never => {
    throw new DiagnosticsError(errorDiagnostic(
      `${typeName}: import ID ${JSON.stringify(id)} is not valid`,
      `${problem}: expected ${form}, values URL-encoded, with attributes among ${allowed.join(", ")} (e.g. terraform import ${typeName}.NAME '${form.replace("[&…]", "")}'), or API_ID/ID`,
    ));
  };
  const at = id.indexOf("?");
  const apiId = id.slice(0, at);
  if (!/^[^/?&=\s]+$/.test(apiId)) refuse(`the API_ID before "?" is ${JSON.stringify(apiId)}`);
  const attributes: Record<string, string> = {};
  for (const [attribute, value] of new URLSearchParams(id.slice(at + 1))) {
    if (!allowed.includes(attribute)) refuse(`${JSON.stringify(attribute)} is not an attribute of the natural key`);
    if (Object.hasOwn(attributes, attribute)) refuse(`${attribute} is given twice`);
    attributes[attribute] = value;
  }
  for (const attribute of required) if (!attributes[attribute]) refuse(`${attribute} is missing or empty`);
  return { apiId, attributes };
}

/** The one live resource of `matches`, or an error that says none or several matched (with their IDs, to import one by ID). */
export function oneMatch<T>(matches: ReadonlyArray<T>, id: string, typeName: string, idOf: (item: T) => string, apiId: string): T {
  if (matches.length === 1) return matches[0]!;
  throw new DiagnosticsError(errorDiagnostic(
    `${typeName}: import ID ${JSON.stringify(id)} matches ${matches.length === 0 ? "no" : matches.length} live resources`,
    matches.length === 0
      ? `no live resource of API ${apiId} has this natural key: expected exactly one (check the values, or create it with terraform instead of importing it)`
      : `expected exactly one: import one by its ID instead (${matches.map((item) => `${apiId}/${idOf(item)}`).join(", ")})`,
  ));
}
