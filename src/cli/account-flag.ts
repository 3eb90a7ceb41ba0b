import { ACCOUNT_ID_PATTERN } from "../contract/account.js";
import { SELF } from "../desired/read-key.js";

/** The problem of each `--account` value that is neither an account ID (12 digits) nor `self`. */
export function accountFlagProblems(accounts: ReadonlyArray<string>): string[] {
  return accounts
    .filter((id) => id !== SELF && !ACCOUNT_ID_PATTERN.test(id))
    .map((id) => `--account ${JSON.stringify(id)} is not valid: expected 12 digits, or self for the caller's own account`);
}
