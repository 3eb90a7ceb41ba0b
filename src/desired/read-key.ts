import type { AlternateContact } from "../contract/account.js";
import type { ApiRef } from "./schema.js";

/** `self` stands for the caller's own account (a document without `account`; no AccountId is sent). */
export type AccountKey = string;
export const SELF: AccountKey = "self";

/**
 * What a document needs read to be compared with live state: an API (its routes and integrations),
 * one alternate contact, or an account's Regions. Documents with equal read keys are compared from
 * the same reads, so drift shards are keyed by them.
 */
export type ReadKey =
  | { readonly type: "api"; readonly ref: ApiRef }
  | { readonly type: "contact"; readonly account: AccountKey; readonly contactType: AlternateContact["AlternateContactType"] }
  | { readonly type: "regions"; readonly account: AccountKey };

/** A read key as text: `api:<apiId>`, `api:name:<name>`, `contact:<account>/<type>`, `regions:<account>`. */
export function readKeyText(key: ReadKey): string {
  if (key.type === "api") return `api:${typeof key.ref === "string" ? key.ref : `name:${key.ref.name}`}`;
  return key.type === "contact" ? `contact:${key.account}/${key.contactType}` : `regions:${key.account}`;
}
