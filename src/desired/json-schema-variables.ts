/**
 * The JSON Schema that editors complete against, made to accept variables
 * (docs/manual/desired-state.md, "Environments and variables"): every value of a document but
 * `kind` may be written as text holding `${var.NAME…}` (a number field as `${var.timeout}`, an
 * account as `${var.account}`), while every mapping keeps `additionalProperties: false`, so that a
 * misspelt field is still flagged.
 */

/** A string that holds a variable reference: what a field of any type may be written as. */
export const VARIABLE_VALUE_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: "string",
  pattern: "\\$\\{var\\.[A-Za-z_][A-Za-z0-9_]*(?::[-?][^}]*)?\\}",
  description: "a value given by a variable: ${var.NAME}, ${var.NAME:-default} or ${var.NAME:?message}",
});

type SchemaNode = Record<string, unknown>;

/** `schema` with each property value (but a document's `kind`), list item and map value also accepting VARIABLE_VALUE_SCHEMA. */
export function acceptingVariables(schema: SchemaNode): SchemaNode {
  return walk(schema, true);
}

function walk(node: SchemaNode, documentLevel: boolean): SchemaNode {
  const out: SchemaNode = { ...node };
  for (const branches of ["anyOf", "oneOf", "allOf"] as const) {
    if (Array.isArray(node[branches])) out[branches] = (node[branches] as SchemaNode[]).map((branch) => walk(branch, documentLevel));
  }
  if (isNode(node.properties)) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([key, value]) =>
      [key, documentLevel && key === "kind" ? value : withVariable(value as SchemaNode)]));
  }
  if (isNode(node.items)) out.items = withVariable(node.items);
  if (isNode(node.additionalProperties)) out.additionalProperties = withVariable(node.additionalProperties);
  return out;
}

function withVariable(node: SchemaNode): SchemaNode {
  return { anyOf: [walk(node, false), VARIABLE_VALUE_SCHEMA] };
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
