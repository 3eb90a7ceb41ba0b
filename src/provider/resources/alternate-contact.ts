import type { AlternateContact } from "../../contract/account.js";
import { kindResource, type BindingWithMoves, type KindBinding } from "../kind-resource/index.js";
import { liveValuesOf } from "../terraform-fields.js";
import { accountChild } from "./account-child.js";
import { alternateContactDocument } from "./alternate-contact-document.js";

/** converge's AlternateContact kind, in terraform: its binding (how its values become the kind's document, where its live counterpart is), which takes moved state. */
export const alternateContactBinding: KindBinding<AlternateContact> & BindingWithMoves = {
  ...accountChild<AlternateContact>({
    document: alternateContactDocument,
    description: "An alternate contact of an account (converge's `AlternateContact` kind).",
    accountDescription: "The account (12 digits), managed through the organization; the caller's own account when left out. Changing it replaces the contact.",
    keyImportName: "TYPE",
    find: (account, values, live) => live.contacts[`${account}/${String(values.alternate_contact_type)}`] ?? undefined,
  }),
  liveValues: (contact) => liveValuesOf(alternateContactDocument.fields, contact),
  describe: (contact) => `${contact.AlternateContactType} contact`,
};

/** The AlternateContact kind's resource: the shared flow of kind-resource/ over alternateContactBinding. */
export const alternateContactResource = kindResource<AlternateContact>(alternateContactBinding);
