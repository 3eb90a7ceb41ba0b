import { SELF, type AccountKey } from "../../desired/read-key.js";
import { documentOfAttributes, type TerraformResource } from "../../desired/terraform-resources.js";
import type { LiveState } from "../../reconcile/model.js";
import type { BindingWithMoves, KindBinding, KindDocument, Values } from "../kind-resource/index.js";
import { isUnknown, types, type AttributeSchema, type Schema } from "../runtime/index.js";
import { attributeOfPath, attributeSchemasOf, type SpecField } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";

/** The document of an account's setting (`KindDocument`), with the kind's resource it is made by. */
export interface AccountChildDocument extends KindDocument {
  /** The kind's resource (src/desired/terraform-resources.ts): its type, fields and attributes. */
  readonly resource: TerraformResource;
  /** The spec field that names the setting within its account (`region`; the resource's `keyField`, checked to be there). */
  readonly keyField: string;
  /**
   * Its attribute (`region_name`): with `account_id` the resource's identity, and changing it
   * replaces the resource.
   */
  readonly keyAttribute: string;
}

/**
 * The document of an account's setting from its resource and spec fields (resource.fields, typed
 * and described): it names its account unless it is the caller's; what validation needs of the kind.
 */
export function accountChildDocument(resource: TerraformResource, fields: ReadonlyArray<SpecField>): AccountChildDocument {
  const { keyField, keyAttribute } = resource;
  if (keyField === undefined || keyAttribute === undefined) throw new Error(`${resource.typeName}: the resource of an account's setting needs its key attribute (keyField)`);
  return {
    resource,
    keyField,
    keyAttribute,
    kind: resource.kind,
    typeName: resource.typeName,
    fields,
    document: (values, { ensure }) => documentOfAttributes(resource, values, { ...(ensure ? { ensure } : {}), isUnknown }),
    attributeOf: (path) => attributeOfPath(fields, path),
  };
}

/** What a resource of an account's setting says of itself; `accountChild` makes the ID, import and account plumbing from it. */
export interface AccountChildOptions<Live> {
  /** The kind's document (accountChildDocument). */
  readonly document: AccountChildDocument;
  /** The resource's description. */
  readonly description: string;
  /** `account_id`'s description. */
  readonly accountDescription: string;
  /** The key attribute's name as the import ID's last part (`REGION_NAME` in `ACCOUNT_ID/REGION_NAME`). */
  readonly keyImportName: string;
  /** Computed attributes of the live setting, after `account_id` (a Region's status). @default none */
  readonly computed?: Readonly<Record<string, AttributeSchema>>;
  /** The values of the `computed` attributes for a live setting. */
  computedValues?(live: Live): Values;
  /** The live setting the values name in the account (the caller's own: SELF). */
  find(account: AccountKey, values: Values, live: LiveState): Live | undefined;
}

/** The parts of a binding every setting of an account has the same way. */
export type AccountChildBinding<Live> = Pick<
  KindBinding<Live>,
  "kind" | "typeName" | "schema" | "fields" | "identityAttributes" | "document" | "attributeOf" | "liveOf" | "matched" | "state" | "importId" | "requestFields"
> & BindingWithMoves;

/**
 * The binding of an account's setting but for what is its own: attributes `id` (`ACCOUNT_ID/KEY`, or
 * `KEY` for the caller's own account: the import ID), `account_id` (optional, replaces when
 * changed), the computed ones, then the spec's; the document names its account unless it is the
 * caller's. Its requests send no spec attribute the configuration leaves out (nothing is defaulted).
 */
export function accountChild<Live>(options: AccountChildOptions<Live>): AccountChildBinding<Live> {
  const { keyImportName: importName } = options;
  const { resource, fields, keyField, keyAttribute } = options.document;
  const { kind, typeName } = resource;
  const schema: Schema = {
    description: options.description,
    attributes: {
      id: { type: types.string, computed: true, useStateForUnknown: true, description: `\`ACCOUNT_ID/${importName}\`, or \`${importName}\` for the caller's own account: the import ID.` },
      account_id: { type: types.string, optional: true, requiresReplace: true, description: options.accountDescription },
      ...options.computed,
      ...Object.fromEntries(Object.entries(attributeSchemasOf(fields)).map(([name, attribute]) => [name, name === keyAttribute ? { ...attribute, requiresReplace: true } : attribute])),
    },
  };
  const liveOf = (values: Values, live: LiveState) => options.find(typeof values.account_id === "string" ? values.account_id : SELF, values, live);
  return {
    kind,
    typeName,
    schema,
    fields,
    identityAttributes: ["account_id", keyAttribute],
    document: options.document.document,
    attributeOf: options.document.attributeOf,
    liveOf,
    matched: (_action, values, live) => liveOf(values, live),
    state: (live, specValues, held) => ({
      id: typeof held.account_id === "string" ? `${held.account_id}/${String(specValues[keyAttribute])}` : String(specValues[keyAttribute]),
      account_id: held.account_id ?? null,
      ...options.computedValues?.(live),
      ...specValues,
    }),
    importId(id) {
      const [account, key] = id.includes("/") ? parseImportId(id, typeName, ["ACCOUNT_ID", importName]) : [null, id];
      return { id, account_id: account, [keyAttribute]: key };
    },
    /** A document's setting: `ACCOUNT_ID/KEY`, or `KEY` for the caller's own account (for a state moved from a `terraform_data`). */
    importIdOf(document) {
      const key = String((document.spec as Readonly<Record<string, unknown>>)[keyField]);
      return "account" in document && typeof document.account === "string" ? `${document.account}/${key}` : key;
    },
    requestFields: () => ({}),
  };
}
