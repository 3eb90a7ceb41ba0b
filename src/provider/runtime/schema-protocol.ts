import { typeToJson } from "./cty-type.js";
import type { BlockSchema, Schema } from "./schema.js";

/** The protocol's `Schema` message (tfplugin6.proto) for a schema: an attribute's type is its cty type JSON as bytes. */
export function schemaToProtocol(schema: Schema): object {
  return { version: schema.version ?? 0, block: blockToProtocol(schema) };
}

function blockToProtocol(block: BlockSchema): object {
  return {
    version: 0,
    description: block.description ?? "",
    description_kind: "MARKDOWN",
    deprecated: block.deprecated !== undefined,
    deprecation_message: block.deprecated ?? "",
    attributes: Object.entries(block.attributes).map(([name, attribute]) => ({
      name,
      type: Buffer.from(JSON.stringify(typeToJson(attribute.type))),
      description: attribute.description ?? "",
      description_kind: "MARKDOWN",
      required: attribute.required === true,
      optional: attribute.optional === true,
      computed: attribute.computed === true,
      sensitive: attribute.sensitive === true,
      deprecated: attribute.deprecated !== undefined,
      deprecation_message: attribute.deprecated ?? "",
    })),
    block_types: Object.entries(block.blocks ?? {}).map(([name, nested]) => ({
      type_name: name,
      block: blockToProtocol(nested.block),
      nesting: nested.nesting.toUpperCase(),
      min_items: nested.minItems ?? 0,
      max_items: nested.maxItems ?? 0,
    })),
  };
}
