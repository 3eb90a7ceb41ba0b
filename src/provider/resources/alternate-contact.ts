import { terraformResourceOf } from "../../desired/terraform-resources.js";
import type { AlternateContact } from "../../contract/account.js";
import { kindResource, type KindBinding } from "../kind-resource/index.js";
import { liveValuesOf, specFields } from "../terraform-fields.js";
import { accountChild } from "./account-child.js";

/** A contact's fields as attributes, named after the service's fields (the document calls AlternateContactType `type`). */
const FIELDS = specFields(terraformResourceOf("AlternateContact"), {
  type: "BILLING, OPERATIONS or SECURITY (upper case); changing it replaces the contact.",
  emailAddress: "The contact's email address (surrounding spaces are not a change).",
  phoneNumber: "Digits, spaces, parentheses, + and -.",
});

/** converge's AlternateContact kind, in terraform: its binding (how its values become the kind's document, where its live counterpart is). */
export const alternateContactBinding: KindBinding<AlternateContact> = {
  ...accountChild<AlternateContact>({
    resource: terraformResourceOf("AlternateContact"),
    description: "An alternate contact of an account (converge's `AlternateContact` kind).",
    accountDescription: "The account (12 digits), managed through the organization; the caller's own account when left out. Changing it replaces the contact.",
    fields: FIELDS,
    keyImportName: "TYPE",
    find: (account, values, live) => live.contacts[`${account}/${String(values.alternate_contact_type)}`] ?? undefined,
  }),
  liveValues: (contact) => liveValuesOf(FIELDS, contact),
  describe: (contact) => `${contact.AlternateContactType} contact`,
};

/** The AlternateContact kind's resource: the shared flow of kind-resource/ over alternateContactBinding. */
export const alternateContactResource = kindResource<AlternateContact>(alternateContactBinding);
