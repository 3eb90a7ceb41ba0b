import { ALTERNATE_CONTACT_SERVICE_NAMES } from "../../desired/kinds/alternate-contact.js";
import { SELF } from "../../desired/read-key.js";
import { AlternateContactSpec } from "../../desired/schema.js";
import type { LiveState } from "../../reconcile/model.js";
import type { AlternateContact } from "../../contract/account.js";
import { kindResource, type KindBinding, type Values } from "../kind-resource.js";
import { types } from "../runtime/index.js";
import { attributeOfPath, liveValuesOf, specAttributes, specFields, specFromValues } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";

/** A contact's fields as attributes, named after the service's fields (the document calls AlternateContactType `type`). */
const FIELDS = specFields(AlternateContactSpec.shape, {
  required: ["type", "name", "title", "emailAddress", "phoneNumber"],
  serviceNames: ALTERNATE_CONTACT_SERVICE_NAMES,
  descriptions: {
    type: "BILLING, OPERATIONS or SECURITY (upper case); changing it replaces the contact.",
    emailAddress: "The contact's email address (surrounding spaces are not a change).",
    phoneNumber: "Digits, spaces, parentheses, + and -.",
  },
});


const schema = {
  description: "An alternate contact of an account (converge's `AlternateContact` kind).",
  attributes: {
    id: { type: types.string, computed: true, description: "`ACCOUNT_ID/TYPE`, or `TYPE` for the caller's own account: the import ID." },
    account_id: { type: types.string, optional: true, requiresReplace: true, description: "The account (12 digits), managed through the organization; the caller's own account when left out. Changing it replaces the contact." },
    ...Object.fromEntries(Object.entries(specAttributes(FIELDS)).map(([name, attribute]) => [name, name === "alternate_contact_type" ? { ...attribute, requiresReplace: true } : attribute])),
  },
};

const keyOf = (values: Values) => `${typeof values.account_id === "string" ? values.account_id : SELF}/${String(values.alternate_contact_type)}`;

function contactOf(values: Values, live: LiveState): AlternateContact | undefined {
  return live.contacts[keyOf(values)] ?? undefined;
}

/** `converge_alternate_contact`: converge's AlternateContact kind in terraform. */
export const alternateContactBinding: KindBinding = {
  kind: "AlternateContact",
  typeName: "converge_alternate_contact",
  schema,
  fields: FIELDS,
  identityAttributes: ["account_id", "alternate_contact_type"],

  document: (values, { ensure }) => ({
    kind: "AlternateContact",
    ...(typeof values.account_id === "string" ? { account: values.account_id } : {}),
    ...(ensure ? { ensure } : {}),
    spec: specFromValues(FIELDS, values),
  }),
  attributeOf: (path) => attributeOfPath(FIELDS, path),
  liveOf: contactOf,
  matched: (_action, values, live) => contactOf(values, live),
  liveValues: (contact) => liveValuesOf(FIELDS, contact as AlternateContact),
  state: (_live, specValues, held) => ({
    id: typeof held.account_id === "string" ? `${held.account_id}/${String(specValues.alternate_contact_type)}` : String(specValues.alternate_contact_type),
    account_id: held.account_id ?? null,
    ...specValues,
  }),
  importId(id) {
    const parts = id.includes("/") ? parseImportId(id, "converge_alternate_contact", ["ACCOUNT_ID", "TYPE"]) : [undefined, id];
    return { id, account_id: parts[0] ?? null, alternate_contact_type: parts[1]! };
  },
  importIdOf: (document) => {
    const { account, spec } = document as { readonly account?: string; readonly spec: { readonly type: string } };
    return account === undefined ? spec.type : `${account}/${spec.type}`;
  },
  describe: (live) => `${(live as AlternateContact).AlternateContactType} contact`,
  requestFields: () => ({}),
};

export const alternateContactResource = kindResource(alternateContactBinding);
