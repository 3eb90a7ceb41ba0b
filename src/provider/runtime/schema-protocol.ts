import { typeToJson } from "./cty-type.js";
import type { ProtocolBlock, ProtocolSchema } from "./protocol-messages.js";
import type { BlockSchema, NestedBlockSchema, Schema } from "./schema.js";

const NESTING = { single: "SINGLE", list: "LIST", set: "SET" } as const satisfies Record<NestedBlockSchema["nesting"], string>;

/** The protocol's `Schema` message (tfplugin6.proto) for a schema: an attribute's type is its cty type JSON as bytes. */
export function schemaToProtocol(schema: Schema): ProtocolSchema {
  return { version: schema.version ?? 0, block: blockToProtocol(schema) };
}

function blockToProtocol(block: BlockSchema): ProtocolBlock {
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
      nesting: NESTING[nested.nesting],
      min_items: nested.minItems ?? 0,
      max_items: nested.maxItems ?? 0,
    })),
  };
}
