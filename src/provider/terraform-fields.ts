import { z } from "zod";
import { attributeValue, fieldAttribute, HEAD_ATTRIBUTES, snakeCase } from "../desired/terraform-attributes.js";
import type { TerraformField, TerraformResource } from "../desired/terraform-resources.js";
import { types, type AttributeSchema, type CtyType, type Value } from "./runtime/index.js";

/**
 * The attributes of a terraform resource made from the fields of a kind's document spec (which are
 * the service's fields, src/contract/): each field is the attribute of its snake_case name with the
 * terraform type of its wire schema, so the attributes follow the spec and are never listed twice.
 */

/** One spec field as a terraform attribute: its facts (src/desired/terraform-resources.ts), its terraform type and description. */
export interface SpecField extends TerraformField {
  readonly type: CtyType;
  readonly description: string;
}

/** The spec fields of a kind's resource as attributes, in the order of the spec, each described by `descriptions` or as the service's field. */
export function specFields(resource: TerraformResource, descriptions: Readonly<Record<string, string>> = {}): SpecField[] {
  return resource.fields.map((field) => ({
    ...field,
    type: ctyTypeOf(field.schema, field.asSet),
    description: descriptions[field.field] ?? `The service's \`${field.field}\` field.`,
  }));
}

/** The attribute schemas of spec fields. */
export function attributeSchemasOf(fields: ReadonlyArray<SpecField>): Record<string, AttributeSchema> {
  return Object.fromEntries(fields.map((spec): [string, AttributeSchema] => [spec.attribute, {
    type: spec.type,
    description: spec.description,
    ...(spec.presence === "required" ? { required: true } : spec.presence === "optional" ? { optional: true } : { optional: true, computed: true, useStateForUnknown: true }),
  }]));
}

/**
 * terraform's type of a wire field's schema: strings and enums are strings, numbers numbers,
 * booleans bools, records maps, arrays lists (sets when `asSet`), objects objects with snake_case
 * attribute names.
 */
export function ctyTypeOf(schema: z.ZodType, asSet = false): CtyType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return ctyTypeOf(schema.unwrap() as z.ZodType, asSet);
  if (schema instanceof z.ZodString || schema instanceof z.ZodEnum) return types.string;
  if (schema instanceof z.ZodNumber) return types.number;
  if (schema instanceof z.ZodBoolean) return types.bool;
  if (schema instanceof z.ZodRecord) return types.map(ctyTypeOf(schema.valueType as z.ZodType));
  if (schema instanceof z.ZodArray) return asSet ? types.set(ctyTypeOf(schema.element as z.ZodType)) : types.list(ctyTypeOf(schema.element as z.ZodType));
  if (schema instanceof z.ZodObject) {
    return types.object(Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, inner]) => [snakeCase(name), ctyTypeOf(inner)])));
  }
  throw new Error(`no terraform type for the wire schema ${schema.constructor.name}`);
}

/**
 * A field's wire value as its attribute's value: the rule the constructs' provider vehicle writes
 * attributes by (`attributeValue`, src/desired/terraform-attributes.ts), so the two cannot differ.
 */
export function attributeOfWire(field: SpecField, value: unknown): Value {
  return attributeValue(value, field.schema) as Value;
}

/** The spec attributes of a live resource, as terraform values. */
export function liveValuesOf(fields: ReadonlyArray<SpecField>, live: Readonly<Record<string, unknown>>): Record<string, Value> {
  return Object.fromEntries(fields.map((field) => [field.attribute, attributeOfWire(field, live[field.liveField])]));
}

/** Where a document path leads among a resource's attributes: the attribute, and the part of the path that names it. */
export interface AttributeOfPath {
  readonly attribute: string;
  /** `spec.routeKey` in `spec.routeKey`, `api` in `api`: what messages about the path start with. */
  readonly prefix: string;
}

/**
 * The attribute a document path names: a head field's (`api` → `api_id`, `account` →
 * `account_id`), a spec field's (`spec.routeKey`, or deeper into it), or a pin's (`pins`:
 * `spec.routeId` → `route_id`); undefined for a path no attribute holds.
 */
export function attributeOfPath(fields: ReadonlyArray<SpecField>, path: string, pins: ReadonlyArray<string> = []): AttributeOfPath | undefined {
  const within = (prefix: string) => path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  for (const [prefix, attribute] of Object.entries(HEAD_ATTRIBUTES)) if (within(prefix)) return { attribute, prefix };
  for (const pin of pins) if (within(`spec.${pin}`)) return { attribute: fieldAttribute(pin), prefix: `spec.${pin}` };
  const field = fields.find((candidate) => within(`spec.${candidate.field}`));
  return field === undefined ? undefined : { attribute: field.attribute, prefix: `spec.${field.field}` };
}
