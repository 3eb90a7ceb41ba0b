import { createHash } from "node:crypto";
import type { Construct, IConstruct } from "constructs";
import type { z } from "zod";
import { attributeValue, dataSourceTypeOf, fieldAttribute, HEAD_ATTRIBUTES } from "../src/desired/terraform-attributes.js";
import { createProviderElement, templateLiteral, type Condition } from "./vehicle.js";

/**
 * The "provider" vehicle (docs/manual/cdktf.md): each construct is one resource of
 * converge's own terraform provider (an Api, one `converge_api` data source), whose attributes are
 * its document's fields by the rule of src/desired/terraform-attributes.ts, so `terraform plan`
 * shows each field that changes. A construct says which type it is and which of its props are
 * not fields (a pin is an import, a target construct a reference); this module does the rest the
 * same way for every kind.
 */

/** A construct as converge's provider has it: one resource or data source. */
export interface ProviderElement {
  readonly block: "resource" | "data";
  /** The provider's type: `converge_route`, `converge_api`. */
  readonly type: string;
  /** Attribute values as cdk.tf.json holds them (user text made literal, references as templates). */
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly ignoreChanges?: ReadonlyArray<string>;
  /** The import ID of a pinned live resource (`API_ID/ROUTE_ID`): terraform imports it into the resource. */
  readonly importId?: string | undefined;
  /**
   * The import ID that names the live resource by converge's identity (`API_ID?route_key=…`,
   * `ACCOUNT_ID/TYPE`, src/provider/resources/natural-import-id.ts): imported when the stack
   * switches from a CLI vehicle (ConvergeConfig's `switchingFrom`) and the construct has no pin.
   */
  readonly naturalImportId?: string | undefined;
  readonly postconditions?: ReadonlyArray<Condition>;
}

/** What a construct is to converge's provider, or every reason it cannot be one. */
export type ProviderDeclaration = ProviderElement | { readonly refused: ReadonlyArray<string> };

/** What a construct's declaration asks of its stack. */
export interface ProviderContext {
  /** The construct's path, for messages terraform shows. */
  readonly path: string;
  /** The `api_id` of an API reference: its ID as written, or `${data.converge_api.<lookup>.api_id}` for `{ name }`. */
  apiId(api: unknown): string;
}

/** A document spec's fields as attributes. */
export interface SpecAttributes {
  readonly attributes: Record<string, unknown>;
  /** The attributes of the fields the construct leaves out: terraform ignores their changes. */
  readonly ignoreChanges: string[];
}

/**
 * The attributes of a spec's fields, one per field of `fields` but `except` (those the construct
 * declares otherwise): a field set is its attribute with its value; a field set to `null` ("must be
 * absent") is left out, so terraform plans it away; a field left out ("don't care") is left out
 * and in `ignoreChanges`, so terraform, like converge, leaves the live value as it is.
 */
export function specAttributes(
  spec: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, z.ZodType>>,
  options: { readonly serviceNames?: Readonly<Record<string, string>>; readonly except?: ReadonlyArray<string> } = {},
): SpecAttributes {
  const attributes: Record<string, unknown> = {};
  const ignoreChanges: string[] = [];
  for (const [field, schema] of Object.entries(fields)) {
    if (options.except?.includes(field)) continue;
    const attribute = fieldAttribute(field, options.serviceNames);
    const value = spec[field];
    if (value === undefined) ignoreChanges.push(attribute);
    else if (value !== null) attributes[attribute] = templateLiteral(attributeValue(value, schema));
  }
  return { attributes, ignoreChanges };
}

/** The attribute of a document's `account` (a contact's, a Region's): the account's ID, when the document names one. */
export function accountAttribute(account: unknown): Record<string, unknown> {
  return account === undefined ? {} : { [HEAD_ATTRIBUTES.account]: templateLiteral(account) };
}

/** The import ID of an account's resource by its identity: `ACCOUNT_ID/KEY`, or `KEY` for the caller's own account (the provider's form). */
export function naturalImportIdOf(account: unknown, key: unknown): string {
  return templateLiteral(account === undefined ? String(key) : `${String(account)}/${String(key)}`) as string;
}

/** A reference to an attribute of a resource of the stack: `${converge_integration.backend.integration_id}`. */
export function attributeReference(address: string, attribute: string): string {
  return `\${${address}.${attribute}}`;
}

/** The data source an API is read by (`converge_api`). */
const API_DATA_SOURCE = dataSourceTypeOf("api");

/** The stack's lookups of APIs by name: per ConvergeConfig, API name → terraform name of its `converge_api` data source. */
const lookups = new WeakMap<IConstruct, Map<string, string>>();

/** The `converge_api` data source the stack reads an API by name with (one per name, under the stack's ConvergeConfig). */
function apiLookup(config: Construct, name: string): string {
  let byName = lookups.get(config);
  if (!byName) lookups.set(config, (byName = new Map()));
  let terraformName = byName.get(name);
  if (terraformName === undefined) {
    const plain = name.replace(/[^A-Za-z0-9_-]/g, "_");
    // a name with other characters gets a hash, so that "a b" and "a_b" stay two lookups
    terraformName = `api_${plain}${plain === name && name !== "" ? "" : `_${createHash("sha256").update(name).digest("hex").slice(0, 8)}`}`;
    createProviderElement(config, terraformName, { block: "data", type: API_DATA_SOURCE, name: terraformName, attributes: { name: templateLiteral(name) } });
    byName.set(name, terraformName);
  }
  return terraformName;
}

/** The `api_id` attribute of an API reference of a document (`api`), looked up by name where it names one. */
export function apiIdOf(config: Construct, api: unknown): string {
  if (typeof api !== "object" || api === null) return templateLiteral(api) as string;
  const name = (api as { name?: unknown }).name;
  return attributeReference(`data.${API_DATA_SOURCE}.${apiLookup(config, typeof name === "string" ? name : "")}`, HEAD_ATTRIBUTES.api);
}

/** The terraform addresses of a stack's lookups of APIs by name, with the name each reads. */
export function apiLookupsOf(config: IConstruct): ReadonlyArray<{ readonly address: string; readonly name: string }> {
  return [...(lookups.get(config) ?? new Map<string, string>())].map(([name, terraformName]) => ({ address: `data.${API_DATA_SOURCE}.${terraformName}`, name }));
}
