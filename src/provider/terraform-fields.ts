import { z } from "zod";
import { attributeValue, camelCase, fieldAttribute, HEAD_ATTRIBUTES, snakeCase } from "../desired/terraform-attributes.js";
import { isUnknown, types, type AttributeSchema, type CtyType, type Value } from "./runtime/index.js";

/**
 * The attributes of a terraform resource made from the fields of a kind's document spec (which are
 * the service's fields, src/contract/): each field is the attribute of its snake_case name with the
 * terraform type of its wire schema, so the attributes follow the spec and are never listed twice.
 */

/** How terraform treats a field: set by the user always, optionally, or optionally with the service filling it in. */
export type Presence = "required" | "optional" | "defaulted";

/** One spec field as a terraform attribute. */
export interface SpecField {
  /** The field's wire name (`integrationUri`). */
  readonly field: string;
  /** Its attribute (`integration_uri`). */
  readonly attribute: string;
  /** Its name in the live resource the service answers (the field itself, but for the account service's PascalCase). */
  readonly liveField: string;
  readonly type: CtyType;
  /** Its wire schema (what `type` is made from, and how a wire value reads as an attribute's). */
  readonly schema: z.ZodType;
  /**
   * `defaulted` fields are optional and computed: left out of the configuration, the service's value
   * stands and is never drift; `optional` ones left out must be absent (a change back when set
   * behind terraform's back).
   */
  readonly presence: Presence;
  readonly description: string;
}

export interface SpecFieldOptions {
  readonly required?: ReadonlyArray<string>;
  /** Fields the service fills in when they are not set (its server defaults). */
  readonly defaulted?: ReadonlyArray<string>;
  /** Array fields whose order does not matter (terraform sets). */
  readonly sets?: ReadonlyArray<string>;
  readonly descriptions?: Readonly<Record<string, string>>;
  /** The service's name of a field the document names otherwise (a contact's `type` is `AlternateContactType`): the attribute is its snake_case, and live has it. */
  readonly serviceNames?: Readonly<Record<string, string>>;
}

/** The spec fields of a kind as attributes, in the order of the field record. */
export function specFields(fields: Readonly<Record<string, z.ZodType>>, options: SpecFieldOptions = {}): SpecField[] {
  return Object.entries(fields).map(([field, schema]) => ({
    field,
    attribute: fieldAttribute(field, options.serviceNames),
    liveField: options.serviceNames?.[field] ?? field,
    type: ctyTypeOf(schema, options.sets?.includes(field) ?? false),
    schema,
    presence: options.required?.includes(field) ? "required" : options.defaulted?.includes(field) ? "defaulted" : "optional",
    description: options.descriptions?.[field] ?? `The service's \`${field}\` field.`,
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
 * A terraform value as the wire value of its type: object attributes renamed to their fields
 * (camelCase), null attributes of an object left out, map keys kept; `undefined` when the value or
 * a part of it is unknown (so that the field is left out, "don't care", until it is known). Its
 * inverse is `attributeOfWire`.
 */
export function toWire(value: Value, type: CtyType): unknown {
  if (isUnknown(value)) return undefined;
  if (value === null) return null;
  switch (type.kind) {
    case "list":
    case "set": {
      const items = (value as ReadonlyArray<Value>).map((item) => toWire(item, type.element));
      return items.includes(undefined) ? undefined : items;
    }
    case "map": {
      const entries = Object.entries(value as Readonly<Record<string, Value>>).map(([key, item]) => [key, toWire(item, type.element)] as const);
      return entries.some(([, item]) => item === undefined) ? undefined : Object.fromEntries(entries);
    }
    case "object": {
      const object: Record<string, unknown> = {};
      for (const [attribute, attributeType] of Object.entries(type.attributes)) {
        const item = toWire((value as Readonly<Record<string, Value>>)[attribute] ?? null, attributeType);
        if (item === undefined) return undefined;
        if (item !== null) object[camelCase(attribute)] = item;
      }
      return object;
    }
    default:
      return value;
  }
}

/**
 * The spec a document gets from terraform values: each field the value of its attribute, as the
 * wire has it. An unknown attribute is left out ("don't care" until apply knows it); a null one is
 * left out for required and defaulted fields (the service's value stands) and is `null`, "must be
 * absent", for optional ones.
 */
export function specFromValues(fields: ReadonlyArray<SpecField>, values: Readonly<Record<string, Value>>): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.attribute] ?? null;
    if (value === null) {
      if (field.presence === "optional") spec[field.field] = null;
      continue;
    }
    const wire = toWire(value, field.type);
    if (wire !== undefined) spec[field.field] = wire;
  }
  return spec;
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
