import { z } from "zod";
import type { HclBodyItem } from "./hcl-writer.js";

/**
 * How a document's fields are terraform attributes: the one rule of the native provider's resources
 * (src/provider/) and of the resources the constructs emit for them (constructs/, vehicle
 * "provider"). A spec field is the attribute of the snake_case of its name as the service calls it
 * (`integrationUri` → `integration_uri`); so are the keys of an object value, at any depth
 * (`tlsConfig.serverNameToVerify` → `tls_config.server_name_to_verify`); the keys of a map (a
 * record: request parameters, templates, response parameters by status code) are data and stay as
 * written. A document's head fields are `api_id` and `account_id`.
 */

/**
 * The name of converge's terraform provider: its local name in `required_providers`, its type and
 * namespace in its source address, and the prefix of every resource and data source type it has
 * (`converge_route`, `converge_api`). Every one of those names is built from it here; no other
 * file writes one (test/architecture/layers.test.ts checks it).
 */
export const PROVIDER_NAME = "converge";

/**
 * The source address of converge's terraform provider (`source = "converge/converge"` in
 * `required_providers`, namespace and type both PROVIDER_NAME): what `converge provider install`
 * installs and what the constructs' provider vehicle declares. Under it, terraform's registry host
 * and OpenTofu's.
 */
export const PROVIDER_SOURCE = `${PROVIDER_NAME}/${PROVIDER_NAME}`;

/** The `terraform { required_providers { converge = ... } }` block (HCL, src/desired/hcl-writer.ts), with a version when given. */
export function requiredProvidersBlock(version?: string): HclBodyItem {
  const converge = { source: PROVIDER_SOURCE, ...(version !== undefined ? { version } : {}) };
  return { block: "terraform", body: [{ block: "required_providers", body: [{ attribute: PROVIDER_NAME, value: converge }] }] };
}

/** `integrationUri` → `integration_uri`, `AlternateContactType` → `alternate_contact_type`. */
export function snakeCase(name: string): string {
  return name.replace(/(?<!^)[A-Z]/g, (letter) => `_${letter}`).toLowerCase();
}

/** `integration_uri` → `integrationUri`: the field of an object's attribute (the inverse of snakeCase on camelCase names). */
export function camelCase(attribute: string): string {
  return attribute.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** terraform's type of a kind's resource: the provider's name, `_` and the kind's snake_case (`Route` → `converge_route`, `RegionOptIn` → `converge_region_opt_in`). */
export function resourceTypeOf(kind: string): string {
  return providerTypeOf(kind);
}

/** terraform's type of one of the provider's data sources: the provider's name, `_` and its name's snake_case (`api` → `converge_api`). */
export function dataSourceTypeOf(name: string): string {
  return providerTypeOf(name);
}

/** terraform's rule for the types of a provider's resources and data sources: its name as their prefix. */
function providerTypeOf(name: string): string {
  return `${PROVIDER_NAME}_${snakeCase(name)}`;
}

/** The attributes of a document's head fields: the API a route or integration belongs to, the account of a contact or Region. */
export const HEAD_ATTRIBUTES = { api: "api_id", account: "account_id" } as const;

/** The attribute of a spec field: the snake_case of the service's name of it (`serviceNames`: the fields the document names otherwise). */
export function fieldAttribute(field: string, serviceNames: Readonly<Record<string, string>> = {}): string {
  return snakeCase(serviceNames[field] ?? field);
}

/**
 * A field's wire value as its attribute's value, read by the field's schema: an object with every
 * attribute of its schema (snake_case, null where the value has none), a map with its keys as they
 * are, a list item by item, anything else as it is. A value that does not have its schema's shape
 * is returned as it is (the schema's own check reports it).
 */
export function attributeValue(value: unknown, schema: z.ZodType): unknown {
  if (value === undefined || value === null) return null;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return attributeValue(value, schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodArray && Array.isArray(value)) return value.map((item) => attributeValue(item, schema.element as z.ZodType));
  if (!isPlainObject(value)) return value;
  if (schema instanceof z.ZodRecord) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, attributeValue(item, schema.valueType as z.ZodType)]));
  }
  if (schema instanceof z.ZodObject) {
    return Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([field, inner]) => [snakeCase(field), attributeValue(value[field], inner)]));
  }
  return value;
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The import ID that names a live child of an API by converge's identity instead of its service ID
 * (converge's provider resolves it, src/provider/resources/natural-import-id.ts):
 * `API_ID?attribute=value&…`, one pair for each of `fields` the spec sets to a string, the attribute
 * by the naming rule and the value URL-encoded (a route key's spaces and slashes stay one token, and
 * no `${` or `%{` is left for terraform to read as a template). A field left out or null matches anything.
 */
export function naturalImportId(apiId: string, spec: Readonly<Record<string, unknown>>, fields: ReadonlyArray<string>): string {
  const pairs = fields.flatMap((field) => (typeof spec[field] === "string" ? [`${fieldAttribute(field)}=${encodeURIComponent(spec[field])}`] : []));
  return `${apiId}?${pairs.join("&")}`;
}
