import { SELF, type AccountKey } from "../../desired/read-key.js";

/**
 * What the engines of an account's settings (AlternateContact, RegionOptIn) share, as
 * gateway-common.ts holds what the engines of an API's children share.
 */

/** `{}` for the caller's own account (the management account may not name itself). */
export function accountIdField(account: string): { AccountId?: string } {
  return account === SELF ? {} : { AccountId: account };
}

/** An account for people: `account 222222222222`, or the caller's own. */
export function describeAccount(account: AccountKey): string {
  return account === SELF ? "the caller's account" : `account ${account}`;
}
