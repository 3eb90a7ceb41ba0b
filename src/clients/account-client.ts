import {
  ACCOUNT_OPERATIONS,
  ACCOUNT_TARGET_PREFIX,
  GetAlternateContactResponse,
  GetRegionOptStatusResponse,
  ListRegionsResponse,
  MAX_LIST_REGIONS_RESULTS,
  type AccountOperationName,
  type AlternateContact,
  type AlternateContactKeyRequest,
  type ListRegionsRequest,
  type PutAlternateContactRequest,
  type Region,
  type RegionRequest,
} from "../spec/account.js";
import type { z } from "zod";
import { isNotFound } from "./errors.js";
import { paginate } from "./pagination.js";
import type { Transport } from "./transport.js";

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface AccountClientOptions {
  /** "A": `POST /<operation>`; "B": `POST /` with `X-Svc-Target`. @default "A" */
  readonly form?: "A" | "B";
  /** Form B target prefix; must contain 20210201. @default "AccountService_20210201" */
  readonly targetPrefix?: string;
}

/** Typed client of the account management service: every operation, answers checked against the spec schemas. */
export class AccountClient {
  readonly #transport: Transport;
  readonly #form: "A" | "B";
  readonly #targetPrefix: string;

  constructor(transport: Transport, options: AccountClientOptions = {}) {
    this.#transport = transport;
    this.#form = options.form ?? "A";
    this.#targetPrefix = options.targetPrefix ?? ACCOUNT_TARGET_PREFIX;
  }

  /** Creates or overwrites the contact of its type (idempotent). */
  putAlternateContact(input: PutAlternateContactRequest, options: CallOptions = {}): Promise<void> {
    return this.#call("PutAlternateContact", input, undefined, options);
  }

  /** The contact of a type, or `undefined` when the account has none. */
  async getAlternateContact(input: AlternateContactKeyRequest, options: CallOptions = {}): Promise<AlternateContact | undefined> {
    try {
      const response = await this.#call("GetAlternateContact", input, GetAlternateContactResponse, options);
      return response.AlternateContact;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Deletes the contact of a type; `false` when there was none (so a retried delete stays quiet). */
  async deleteAlternateContact(input: AlternateContactKeyRequest, options: CallOptions = {}): Promise<boolean> {
    try {
      await this.#call("DeleteAlternateContact", input, undefined, options);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** One page of ListRegions, as the service answers it. */
  listRegionsPage(input: ListRegionsRequest = {}, options: CallOptions = {}): Promise<z.infer<typeof ListRegionsResponse>> {
    return this.#call("ListRegions", input, ListRegionsResponse, options);
  }

  /** Every Region (optionally filtered), fetched lazily a page at a time. */
  listRegions(input: Omit<ListRegionsRequest, "NextToken" | "MaxResults"> = {}, options: CallOptions & { pageSize?: number } = {}): AsyncGenerator<Region, void, undefined> {
    const pageSize = options.pageSize ?? MAX_LIST_REGIONS_RESULTS;
    return paginate(async (nextToken) => {
      const page = await this.listRegionsPage({ ...input, MaxResults: pageSize, ...(nextToken ? { NextToken: nextToken } : {}) }, options);
      return { items: page.Regions, nextToken: page.NextToken };
    });
  }

  getRegionOptStatus(input: RegionRequest, options: CallOptions = {}) {
    return this.#call("GetRegionOptStatus", input, GetRegionOptStatusResponse, options);
  }

  /** Starts enabling an opt-in Region (a no-op when already ENABLED or ENABLING). */
  enableRegion(input: RegionRequest, options: CallOptions = {}): Promise<void> {
    return this.#call("EnableRegion", input, undefined, options);
  }

  /** Starts disabling an opt-in Region (a no-op when already DISABLED or DISABLING). */
  disableRegion(input: RegionRequest, options: CallOptions = {}): Promise<void> {
    return this.#call("DisableRegion", input, undefined, options);
  }

  #call<T>(operation: AccountOperationName, body: unknown, response: z.ZodType<T> | undefined, options: CallOptions): Promise<T> {
    const formB = this.#form === "B";
    return this.#transport.call("account", {
      operation,
      method: "POST",
      path: formB ? "/" : ACCOUNT_OPERATIONS[operation].path,
      ...(formB ? { headers: { "x-svc-target": `${this.#targetPrefix}.${operation}` } } : {}),
      body,
      // every account operation is a read or an idempotent put/delete/enable/disable
      idempotent: true,
      expectStatus: 200,
      ...(response ? { response } : {}),
      signal: options.signal,
    });
  }
}
