import type { z } from "zod";
import { AlternateContactSpec, type AlternateContactDocument } from "../schema.js";
import { accountOf } from "./account-common.js";
import type { KindModel } from "./kind-model.js";

/**
 * The account service's names of a contact's fields (PascalCase; the document calls
 * AlternateContactType `type`): their snake_case are the contact's terraform attributes.
 */
export const ALTERNATE_CONTACT_SERVICE_NAMES = {
  type: "AlternateContactType",
  name: "Name",
  title: "Title",
  emailAddress: "EmailAddress",
  phoneNumber: "PhoneNumber",
} as const satisfies Readonly<Record<keyof z.output<typeof AlternateContactSpec>, string>>;

/** AlternateContact: identity (account, type); read by one GetAlternateContact. */
export const alternateContactModel: KindModel<AlternateContactDocument> = {
  kind: "AlternateContact",
  identity: (document) => `${accountOf(document)}/${document.spec.type}`,
  displayName: (document) => `${accountOf(document)}/${document.spec.type}`,
  readKey: (document) => ({ type: "contact", account: accountOf(document), contactType: document.spec.type }),
  readKeyFields: [{ path: "account", optional: true }, { path: "spec.type" }],
  terraform: {
    fields: AlternateContactSpec.shape,
    required: ["type", "name", "title", "emailAddress", "phoneNumber"],
    serviceNames: ALTERNATE_CONTACT_SERVICE_NAMES,
    parent: "account",
    keyField: "type",
  },
  deletionIdentity: (document) => ({
    kind: "AlternateContact",
    ...(document.account !== undefined ? { account: document.account } : {}),
    spec: { type: document.spec.type },
  }),
  crossCheck: () => [],
  maySelectSame: (a, b) => typeOf(a) === typeOf(b) && (a.account === undefined || b.account === undefined),
};

const typeOf = (identity: Readonly<Record<string, unknown>>) => (identity.spec as { type?: unknown } | undefined)?.type;
