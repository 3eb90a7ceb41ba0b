import { SELF } from "../read-key.js";

/**
 * What the models of an account's settings (AlternateContact, RegionOptIn) share, as
 * gateway-checks.ts holds what the children of an API share.
 */

/** The account a contact or Region document is about: its `account`, or the caller's own. */
export function accountOf(document: { readonly account?: string | undefined }): string {
  return document.account ?? SELF;
}
