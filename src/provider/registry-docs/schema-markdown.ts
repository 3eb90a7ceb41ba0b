import type { AttributeSchema, BlockSchema, CtyType, NestedBlockSchema } from "../runtime/index.js";

/** The "Schema" section of a registry page: attributes and blocks under Required, Optional and Read-Only, then each nested schema. */
export function schemaMarkdown(block: BlockSchema): string {
  const nested: string[] = [];
  return ["## Schema", ...groups(block, "", nested, 3), ...nested].join("\n");
}

type Group = "Required" | "Optional" | "Read-Only";

const GROUPS: ReadonlyArray<Group> = ["Required", "Optional", "Read-Only"];

/** Where tfplugindocs lists an attribute: required; optional (computed or not); computed only. */
function groupOf(attribute: AttributeSchema): Group {
  if (attribute.required) return "Required";
  if (attribute.optional) return "Optional";
  return "Read-Only";
}

/** A nested block is required when terraform wants at least one of it. */
function blockGroupOf(block: NestedBlockSchema): Group {
  return (block.minItems ?? 0) > 0 ? "Required" : "Optional";
}

/** The lines of each group of a block's attributes and blocks, in name order; nested schemas go to `nested`. */
function groups(block: BlockSchema, prefix: string, nested: string[], level: number): string[] {
  const entries: Array<{ name: string; group: Group; line: string }> = [];
  for (const [name, attribute] of Object.entries(block.attributes)) {
    const path = `${prefix}${name}`;
    const group = groupOf(attribute);
    const objectType = objectOf(attribute.type);
    const anchor = objectType ? `nestedatt--${path.replaceAll(".", "--")}` : undefined;
    const flags = [typeName(attribute.type), ...(attribute.sensitive ? ["Sensitive"] : []), ...(attribute.deprecated ? ["Deprecated"] : [])];
    const link = anchor ? ` (see [below for nested schema](#${anchor}))` : "";
    entries.push({ name, group, line: `- \`${name}\` (${flags.join(", ")})${sentence(attribute.deprecated ? `${attribute.description ?? ""} Deprecated: ${attribute.deprecated}` : attribute.description)}${link}` });
    if (objectType && anchor) nested.push(...nestedObject(path, anchor, objectType, group));
  }
  for (const [name, child] of Object.entries(block.blocks ?? {})) {
    const path = `${prefix}${name}`;
    const anchor = `nestedblock--${path.replaceAll(".", "--")}`;
    const limits = [...(child.minItems ? [`Min: ${child.minItems}`] : []), ...(child.maxItems ? [`Max: ${child.maxItems}`] : [])];
    const kind = child.nesting === "single" ? "Block" : `Block ${child.nesting === "list" ? "List" : "Set"}`;
    entries.push({ name, group: blockGroupOf(child), line: `- \`${name}\` (${[kind, ...limits].join(", ")})${sentence(child.block.description)} (see [below for nested schema](#${anchor}))` });
    const inner: string[] = [];
    const lines = groups(child.block, `${path}.`, inner, 4);
    nested.push("", `<a id="${anchor}"></a>`, `### Nested Schema for \`${path}\``, ...lines, ...inner);
  }
  const heading = "#".repeat(level);
  return GROUPS.flatMap((group) => {
    const lines = entries.filter((entry) => entry.group === group).sort((a, b) => a.name.localeCompare(b.name)).map((entry) => entry.line);
    if (lines.length === 0) return [];
    return level === 3 ? ["", `${heading} ${group}`, "", ...lines] : ["", `${group}:`, "", ...lines];
  });
}

/** An object type's attributes, listed as a nested schema under the group of the attribute that holds them. */
function nestedObject(path: string, anchor: string, type: Extract<CtyType, { kind: "object" }>, group: Group): string[] {
  const lines = Object.keys(type.attributes).sort().map((name) => `- \`${name}\` (${typeName(type.attributes[name]!)})`);
  return ["", `<a id="${anchor}"></a>`, `### Nested Schema for \`${path}\``, "", `${group}:`, "", ...lines];
}

/** The object type an attribute holds, directly or as the elements of a list, set or map. */
function objectOf(type: CtyType): Extract<CtyType, { kind: "object" }> | undefined {
  if (type.kind === "object") return type;
  if (type.kind === "list" || type.kind === "set" || type.kind === "map") return objectOf(type.element);
  return undefined;
}

/** A type as tfplugindocs names it: `String`, `Set of String`, `Map of Object`. */
export function typeName(type: CtyType): string {
  switch (type.kind) {
    case "string":
      return "String";
    case "number":
      return "Number";
    case "bool":
      return "Boolean";
    case "dynamic":
      return "Dynamic";
    case "object":
      return "Object";
    case "tuple":
      return "Tuple";
    case "list":
      return `List of ${typeName(type.element)}`;
    case "set":
      return `Set of ${typeName(type.element)}`;
    case "map":
      return `Map of ${typeName(type.element)}`;
  }
}

/** A description after an attribute's type: a space and the text, or nothing. */
function sentence(description: string | undefined): string {
  const text = description?.trim() ?? "";
  return text === "" ? "" : ` ${text}`;
}
