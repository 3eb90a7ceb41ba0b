import type { AttributePath } from "./attribute-path.js";
import type { AttributeSchema, BlockSchema } from "./schema.js";
import { isObjectValue, type Value } from "./value.js";

/**
 * Calls `visit` for every attribute of a block and of its nested blocks, with the attribute's value
 * in each of several values of the block (prior, config, planned, ...), aligned by path. Nested
 * blocks are entered where the first value has them: a single block when it is an object, a list
 * block element by element. Set blocks are not entered (their elements have no stable path), nor
 * blocks that are null or unknown.
 */
export function visitAttributes(
  block: BlockSchema,
  values: ReadonlyArray<Value | undefined>,
  visit: (attribute: AttributeSchema, path: AttributePath, values: ReadonlyArray<Value | undefined>) => void,
  path: AttributePath = [],
): void {
  for (const [name, attribute] of Object.entries(block.attributes)) visit(attribute, [...path, name], values.map((value) => member(value, name)));
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const inner = values.map((value) => member(value, name));
    const [first] = inner;
    if (nested.nesting === "single" && isObjectValue(first)) visitAttributes(nested.block, inner, visit, [...path, name]);
    if (nested.nesting === "list" && Array.isArray(first)) {
      for (let index = 0; index < first.length; index++) {
        visitAttributes(nested.block, inner.map((list) => (Array.isArray(list) ? (list as ReadonlyArray<Value>)[index] : undefined)), visit, [...path, name, { index }]);
      }
    }
  }
}

/**
 * A copy of a block's value with each attribute (here and in single and list nested blocks)
 * replaced by what `replace` returns for it; `others` are values aligned with it, as in
 * `visitAttributes`.
 */
export function mapAttributes(
  block: BlockSchema,
  value: Value,
  others: ReadonlyArray<Value | undefined>,
  replace: (attribute: AttributeSchema, value: Value, others: ReadonlyArray<Value | undefined>) => Value,
): Value {
  if (!isObjectValue(value)) return value;
  const result: Record<string, Value> = { ...value };
  for (const [name, attribute] of Object.entries(block.attributes)) {
    result[name] = replace(attribute, value[name] ?? null, others.map((other) => member(other, name)));
  }
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const inner = value[name] ?? null;
    const innerOthers = others.map((other) => member(other, name));
    if (nested.nesting === "single") result[name] = mapAttributes(nested.block, inner, innerOthers, replace);
    if (nested.nesting === "list" && Array.isArray(inner)) {
      result[name] = (inner as ReadonlyArray<Value>).map((element, index) =>
        mapAttributes(nested.block, element, innerOthers.map((list) => (Array.isArray(list) ? (list as ReadonlyArray<Value>)[index] : undefined)), replace),
      );
    }
  }
  return result;
}

function member(value: Value | undefined, name: string): Value | undefined {
  return isObjectValue(value) ? (value[name] ?? null) : undefined;
}
