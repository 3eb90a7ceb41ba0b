import { z } from "zod";
import type { OperationTable } from "./operation-table.js";
import { codePointLength } from "./text.js";

/**
 * Wire schemas of the account management service (docs/manual/embedded-service.md and docs/manual/reference.md).
 * Field names are the wire's PascalCase. Every constraint of the account service's wire lives here and only here.
 */

export const ACCOUNT_TARGET_PREFIX = "AccountService_20210201";
export const ACCOUNT_VERSION_DATE = "20210201";

export const ALTERNATE_CONTACT_TYPES = ["BILLING", "OPERATIONS", "SECURITY"] as const;
export const REGION_OPT_STATUSES = ["ENABLED", "ENABLING", "DISABLING", "DISABLED", "ENABLED_BY_DEFAULT"] as const;

export const EMAIL_PATTERN = /^[\s]*[\w+=.#|!&-]+@[\w.-]+\.[\w]+[\s]*$/;
export const PHONE_PATTERN = /^[\s0-9()+-]+$/;
export const ACCOUNT_ID_PATTERN = /^\d{12}$/;

function bounded(min: number, max: number) {
  return z.string().refine((value) => {
    const length = codePointLength(value);
    return length >= min && length <= max;
  }, { error: `expected ${min} to ${max} characters` });
}

export const AccountId = z.string().regex(ACCOUNT_ID_PATTERN, { error: "expected exactly 12 digits" });
export const AlternateContactType = z.enum(ALTERNATE_CONTACT_TYPES, {
  error: 'expected one of "BILLING", "OPERATIONS", "SECURITY" (upper case)',
});
export const RegionOptStatus = z.enum(REGION_OPT_STATUSES, {
  error: `expected one of ${REGION_OPT_STATUSES.map((s) => `"${s}"`).join(", ")}`,
});
export const EmailAddress = bounded(1, 254).refine((value) => EMAIL_PATTERN.test(value), {
  error: "expected an email address matching [\\s]*[\\w+=.#|!&-]+@[\\w.-]+\\.[\\w]+[\\s]*",
});
export const ContactName = bounded(1, 64);
export const PhoneNumber = bounded(1, 25).refine((value) => PHONE_PATTERN.test(value), {
  error: "expected digits, spaces, parentheses, + and - only",
});
export const ContactTitle = bounded(1, 50);
export const RegionName = bounded(1, 50);

export const AlternateContact = z.object({
  AlternateContactType,
  EmailAddress,
  Name: ContactName,
  PhoneNumber,
  Title: ContactTitle,
});
export type AlternateContact = z.infer<typeof AlternateContact>;

export const PutAlternateContactRequest = AlternateContact.extend({ AccountId: AccountId.optional() });
export type PutAlternateContactRequest = z.infer<typeof PutAlternateContactRequest>;

export const AlternateContactKeyRequest = z.object({ AccountId: AccountId.optional(), AlternateContactType });
export type AlternateContactKeyRequest = z.infer<typeof AlternateContactKeyRequest>;

export const GetAlternateContactResponse = z.object({ AlternateContact });
export type GetAlternateContactResponse = z.infer<typeof GetAlternateContactResponse>;

export const MAX_LIST_REGIONS_RESULTS = 50;

export const ListRegionsRequest = z.object({
  AccountId: AccountId.optional(),
  MaxResults: z.number().int({ error: "expected an integer from 1 to 50" })
    .min(1, { error: "expected an integer from 1 to 50" })
    .max(MAX_LIST_REGIONS_RESULTS, { error: "expected an integer from 1 to 50" })
    .optional(),
  NextToken: z.string().max(1000, { error: "expected at most 1000 characters" }).optional(),
  RegionOptStatusContains: z.array(RegionOptStatus).optional(),
});
export type ListRegionsRequest = z.infer<typeof ListRegionsRequest>;

export const Region = z.object({ RegionName: z.string(), RegionOptStatus });
export type Region = z.infer<typeof Region>;

export const ListRegionsResponse = z.object({ Regions: z.array(Region), NextToken: z.string().optional() });
export type ListRegionsResponse = z.infer<typeof ListRegionsResponse>;

export const RegionRequest = z.object({ AccountId: AccountId.optional(), RegionName });
export type RegionRequest = z.infer<typeof RegionRequest>;

export const GetRegionOptStatusResponse = z.object({ RegionName: z.string(), RegionOptStatus });
export type GetRegionOptStatusResponse = z.infer<typeof GetRegionOptStatusResponse>;

/**
 * Every operation of the account service (form A paths; form B posts to `/` with `X-Svc-Target`):
 * the service routes and answers each row, the client builds each call from it. Every operation is
 * a read or an idempotent put, delete, enable or disable, answered 200.
 */
export const ACCOUNT_OPERATIONS = {
  PutAlternateContact: { method: "POST", path: "/putAlternateContact", request: PutAlternateContactRequest, status: 200, idempotent: true, write: true },
  GetAlternateContact: {
    method: "POST", path: "/getAlternateContact", request: AlternateContactKeyRequest, response: GetAlternateContactResponse,
    status: 200, idempotent: true, write: false,
  },
  DeleteAlternateContact: { method: "POST", path: "/deleteAlternateContact", request: AlternateContactKeyRequest, status: 200, idempotent: true, write: true },
  ListRegions: {
    method: "POST", path: "/listRegions", request: ListRegionsRequest, response: ListRegionsResponse,
    status: 200, idempotent: true, write: false,
  },
  GetRegionOptStatus: {
    method: "POST", path: "/getRegionOptStatus", request: RegionRequest, response: GetRegionOptStatusResponse,
    status: 200, idempotent: true, write: false,
  },
  EnableRegion: { method: "POST", path: "/enableRegion", request: RegionRequest, status: 200, idempotent: true, write: true },
  DisableRegion: { method: "POST", path: "/disableRegion", request: RegionRequest, status: 200, idempotent: true, write: true },
} as const satisfies OperationTable;
export type AccountOperationName = keyof typeof ACCOUNT_OPERATIONS;

export const ValidationReason = z.enum(["fieldValidationFailed", "invalidRegionOptTarget"]);

/** Error body of the account service: `errorType` on every error but ValidationException, which has `reason` and `fieldList`. */
export const AccountErrorBody = z.object({
  message: z.string(),
  errorType: z.string().optional(),
  reason: ValidationReason.optional(),
  fieldList: z.array(z.object({ name: z.string(), message: z.string() })).optional(),
});
export type AccountErrorBody = z.infer<typeof AccountErrorBody>;
