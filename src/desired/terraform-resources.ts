import { z } from "zod";
import { KIND_MODELS, modelOf } from "./kinds/registry.js";
import type { TerraformFacts } from "./kinds/terraform-facts.js";
import type { Kind } from "./schema.js";
import { camelCase, fieldAttribute, HEAD_ATTRIBUTES, resourceTypeOf, snakeCase } from "./terraform-attributes.js";

/**
 * What each kind's terraform resource is made of, from the facts its model states
 * (KindModel.terraform, src/desired/kinds/), for converge's provider (src/provider/resources/,
 * which adds types, descriptions and the engine) and for whatever reads a terraform state without
 * the provider (src/desired/terraform-state.ts): the spec fields as attributes, the attribute of the
 * document's parent (`api_id`, `account_id`), the ID attribute of an API's child, the key attribute
 * of an account's setting; and the rule a resource's attribute values become the kind's document by.
 */

/** How terraform treats a field: set by the user always, optionally, or optionally with the service filling it in. */
export type Presence = "required" | "optional" | "defaulted";

/** One spec field as a terraform attribute. */
export interface TerraformField {
  /** The field's wire name (`integrationUri`). */
  readonly field: string;
  /** Its attribute (`integration_uri`). */
  readonly attribute: string;
  /** Its name in the live resource the service answers (the field itself, but for the account service's PascalCase). */
  readonly liveField: string;
  /** Its wire schema (what its terraform type is made from, and how an attribute's value reads as the wire's). */
  readonly schema: z.ZodType;
  /**
   * `defaulted` fields are optional and computed: left out of the configuration, the service's value
   * stands and is never drift; `optional` ones left out must be absent.
   */
  readonly presence: Presence;
  /** An array whose order does not matter: a terraform set. */
  readonly asSet: boolean;
}

/** A kind's terraform resource. */
export interface TerraformResource {
  readonly kind: Kind;
  /** `converge_route` (resourceTypeOf). */
  readonly typeName: string;
  /** The spec fields as attributes, in the order of the spec. */
  readonly fields: ReadonlyArray<TerraformField>;
  /** The document's head field that names where the resource lives: an API's child `api`, an account's setting `account`. */
  readonly parent: keyof typeof HEAD_ATTRIBUTES;
  /** `api_id` or `account_id`. */
  readonly parentAttribute: string;
  /** An API's child: the spec's pin of its ID (`routeId`), held by `idAttribute` (`route_id`). */
  readonly idField?: string;
  readonly idAttribute?: string;
  /** An account's setting: the spec field that names it within its account (`region`), and its attribute (`region_name`). */
  readonly keyField?: string;
  readonly keyAttribute?: string;
  /** Whether the document needs a logical name (`name`: an Integration's, unique per API). */
  readonly named: boolean;
}

function resourceOf(kind: Kind, facts: TerraformFacts): TerraformResource {
  const fields = Object.entries(facts.fields).map(([field, schema]): TerraformField => ({
    field,
    attribute: fieldAttribute(field, facts.serviceNames),
    liveField: facts.serviceNames?.[field] ?? field,
    schema,
    presence: facts.required.includes(field) ? "required" : facts.defaulted?.includes(field) ? "defaulted" : "optional",
    asSet: facts.sets?.includes(field) ?? false,
  }));
  return {
    kind,
    typeName: resourceTypeOf(kind),
    fields,
    parent: facts.parent,
    parentAttribute: HEAD_ATTRIBUTES[facts.parent],
    ...(facts.idField !== undefined ? { idField: facts.idField, idAttribute: fieldAttribute(facts.idField) } : {}),
    ...(facts.keyField !== undefined ? { keyField: facts.keyField, keyAttribute: fieldAttribute(facts.keyField, facts.serviceNames) } : {}),
    named: facts.named ?? false,
  };
}

/** The resources of the kinds converge's provider has one of, by kind, in the registry's order. */
export const TERRAFORM_RESOURCES: ReadonlyMap<Kind, TerraformResource> = new Map(Object.values(KIND_MODELS).flatMap((model) => {
  const facts: TerraformFacts | undefined = model.terraform;
  return facts === undefined ? [] : [[model.kind, resourceOf(model.kind, facts)] as const];
}));

const BY_TYPE_NAME: ReadonlyMap<string, TerraformResource> = new Map([...TERRAFORM_RESOURCES.values()].map((resource) => [resource.typeName, resource]));

/** The terraform resource of a kind; throws for a kind converge's provider has none of (the Api). */
export function terraformResourceOf(kind: Kind): TerraformResource {
  const resource = TERRAFORM_RESOURCES.get(kind);
  if (resource === undefined) throw new Error(`kind ${kind} has no terraform resource: expected one of ${[...TERRAFORM_RESOURCES.keys()].join(", ")}`);
  return resource;
}

/** The resource of a terraform type (`converge_route` → the Route's: the inverse of resourceTypeOf); undefined for a type converge's provider has not. */
export function terraformResourceOfType(typeName: string): TerraformResource | undefined {
  return BY_TYPE_NAME.get(typeName);
}

/** Whether a value is one terraform does not know yet (the provider's marker); nothing in a state is. */
export type IsUnknown = (value: unknown) => boolean;

const NEVER_UNKNOWN: IsUnknown = () => false;

/**
 * An attribute's value as the wire value of its field, read by the field's schema (the inverse of
 * `attributeValue`, src/desired/terraform-attributes.ts): object attributes renamed to their
 * fields (the schema's camelCase keys), null attributes of an object left out, map keys kept, lists
 * and sets item by item. `undefined` when the value or a part of it is unknown (the field is then
 * left out, "don't care", until it is known). A value without its schema's shape is returned as it
 * is, for the schema's check to report.
 */
export function wireOfAttribute(value: unknown, schema: z.ZodType, isUnknown: IsUnknown = NEVER_UNKNOWN): unknown {
  if (isUnknown(value)) return undefined;
  if (value === null || value === undefined) return null;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return wireOfAttribute(value, schema.unwrap() as z.ZodType, isUnknown);
  if (schema instanceof z.ZodArray && Array.isArray(value)) {
    const items = value.map((item) => wireOfAttribute(item, schema.element as z.ZodType, isUnknown));
    return items.includes(undefined) ? undefined : items;
  }
  if (typeof value !== "object" || Array.isArray(value)) return value;
  const record = value as Readonly<Record<string, unknown>>;
  if (schema instanceof z.ZodRecord) {
    const entries = Object.entries(record).map(([key, item]) => [key, wireOfAttribute(item, schema.valueType as z.ZodType, isUnknown)] as const);
    return entries.some(([, item]) => item === undefined) ? undefined : Object.fromEntries(entries);
  }
  if (schema instanceof z.ZodObject) {
    const object: Record<string, unknown> = {};
    const shape = schema.shape as Record<string, z.ZodType>;
    const attributes = new Set(Object.keys(record));
    for (const [field, inner] of Object.entries(shape)) {
      attributes.delete(snakeCase(field));
      const wire = wireOfAttribute(record[snakeCase(field)] ?? null, inner, isUnknown);
      if (wire === undefined) return undefined;
      if (wire !== null) object[field] = wire;
    }
    // an attribute the schema has not: kept under its camelCase, for the schema's check to name
    for (const attribute of attributes) object[camelCase(attribute)] = record[attribute];
    return object;
  }
  return value;
}

/**
 * The spec a document gets from a resource's attribute values: each field the wire value of its
 * attribute. An unknown attribute is left out ("don't care" until apply knows it); a null (or
 * missing) one is left out for required and defaulted fields (the service's value stands) and is
 * `null`, "must be absent", for optional ones.
 */
export function specOfAttributes(fields: ReadonlyArray<TerraformField>, values: Readonly<Record<string, unknown>>, isUnknown: IsUnknown = NEVER_UNKNOWN): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.attribute] ?? null;
    if (value === null) {
      if (field.presence === "optional") spec[field.field] = null;
      continue;
    }
    const wire = wireOfAttribute(value, field.schema, isUnknown);
    if (wire !== undefined) spec[field.field] = wire;
  }
  return spec;
}

/** How a resource's values become its document. */
export interface AttributeDocumentOptions {
  /** The values that hold the live resource's ID (an API's child is pinned by it): a state's, the prior state's. */
  readonly pin?: Readonly<Record<string, unknown>> | undefined;
  readonly ensure?: "absent";
  /** The logical name of a kind that needs one (an Integration). */
  readonly name?: string;
  readonly isUnknown?: IsUnknown;
}

/**
 * The document of a kind's resource from its attribute values, as converge's provider plans it:
 * the parent from `api_id` (an API's child) or `account_id` (an account's setting; none, the
 * caller's own, when null), the spec by specOfAttributes, and an API's child pinned by the ID the
 * `pin` values hold (`route_id` → `spec.routeId`). Not validated: the kind's schema checks it.
 */
export function documentOfAttributes(resource: TerraformResource, values: Readonly<Record<string, unknown>>, options: AttributeDocumentOptions = {}): Record<string, unknown> {
  const parent = values[resource.parentAttribute];
  const pinned = resource.idAttribute === undefined ? undefined : options.pin?.[resource.idAttribute];
  return {
    kind: resource.kind,
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(typeof parent === "string" ? { [resource.parent]: parent } : {}),
    ...(options.ensure ? { ensure: options.ensure } : {}),
    spec: {
      ...specOfAttributes(resource.fields, values, options.isUnknown),
      ...(typeof pinned === "string" ? { [resource.idField!]: pinned } : {}),
    },
  };
}

/**
 * The terraform attribute a field of a kind's document names, as terraform shows it (for reports
 * of state-managed resources, in terraform's words): `path` is relative to the spec (as the
 * engine's changes are: `authorizationScopes` → `authorization_scopes`, a contact's `type` →
 * `alternate_contact_type`) or a document path (`spec.routeKey`, `api` → `api_id`, `account` →
 * `account_id`, `spec.routeId` → `route_id`). Deeper, an object's keys are snake_case
 * (`tlsConfig.serverNameToVerify` → `tls_config.server_name_to_verify`), a map's keys are kept
 * (`request_parameters["append:header.x"]`) and list items are indexed (`[0]`). Given as text, the
 * path is split at dots, but a map of plain values takes the rest of the text as its key (a key may
 * hold dots); give an array to be exact. Undefined for a path no attribute holds.
 */
export function attributeOfFieldPath(kind: Kind, path: string | ReadonlyArray<PropertyKey>): string | undefined {
  const resource = TERRAFORM_RESOURCES.get(kind);
  if (resource === undefined) return undefined;
  const parts = typeof path === "string" ? path.split(".") : path.map((part) => (typeof part === "number" ? part : String(part)));
  const [first, ...rest] = parts;
  if (first === undefined) return undefined;
  if (rest.length === 0 && (first === "api" || first === "account")) return first === resource.parent ? resource.parentAttribute : undefined;
  const [written, ...inner] = first === "spec" ? rest : parts;
  if (typeof written !== "string") return undefined;
  const name = modelOf(kind).terraform?.changePaths?.[written] ?? written;
  if (name === resource.idField) return inner.length === 0 ? resource.idAttribute : undefined;
  const field = resource.fields.find((candidate) => candidate.field === name);
  if (field === undefined) return undefined;
  return field.attribute + innerAttributePath(field.schema, inner, typeof path === "string");
}

/** The rest of an attribute path within a value of `schema`: `.snake_key` for an object's field, `["key"]` for a map's, `[0]` for a list's. */
function innerAttributePath(schema: z.ZodType, parts: ReadonlyArray<PropertyKey>, fromText: boolean): string {
  const [part, ...rest] = parts;
  if (part === undefined) return "";
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return innerAttributePath(schema.unwrap() as z.ZodType, parts, fromText);
  if (schema instanceof z.ZodArray) return `[${String(part)}]${innerAttributePath(schema.element as z.ZodType, rest, fromText)}`;
  if (schema instanceof z.ZodRecord) {
    const valueType = schema.valueType as z.ZodType;
    const whole = fromText && !(unwrapped(valueType) instanceof z.ZodRecord || unwrapped(valueType) instanceof z.ZodObject);
    if (whole) return `[${JSON.stringify(parts.map(String).join("."))}]`;
    return `[${JSON.stringify(String(part))}]${innerAttributePath(valueType, rest, fromText)}`;
  }
  if (schema instanceof z.ZodObject) {
    const inner = (schema.shape as Record<string, z.ZodType>)[String(part)];
    return `.${snakeCase(String(part))}${inner === undefined ? "" : innerAttributePath(inner, rest, fromText)}`;
  }
  return `.${parts.map(String).join(".")}`;
}

function unwrapped(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodOptional || schema instanceof z.ZodNullable ? unwrapped(schema.unwrap() as z.ZodType) : schema;
}
