import {
  ACCOUNT_OPERATIONS,
  ACCOUNT_TARGET_PREFIX,
  ListRegionsResponse,
  MAX_LIST_REGIONS_RESULTS,
  type AccountOperationName,
  type AlternateContact,
  type AlternateContactKeyRequest,
  type ListRegionsRequest,
  type PutAlternateContactRequest,
  type Region,
  type RegionRequest,
} from "../contract/account.js";
import type { z } from "zod";
import type { OperationResult } from "../contract/operation-table.js";
import { LISTING_BOUNDS } from "./answer-limits.js";
import { callOperation } from "./operation-call.js";
import { isNotFound } from "./errors.js";
import { paginate } from "./pagination.js";
import type { Transport } from "./transport.js";
import type { WriteListener } from "./write-listener.js";

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface AccountClientOptions {
  /** "A": `POST /<operation>`; "B": `POST /` with `X-Svc-Target`. @default "A" */
  readonly form?: "A" | "B";
  /** Form B target prefix; must contain 20210201. @default "AccountService_20210201" */
  readonly targetPrefix?: string;
  /** Told of every write the service acknowledged (see {@link WriteListener}). */
  readonly onWrite?: WriteListener | undefined;
}

/** Typed client of the account management service: every operation, answers checked against the spec schemas. */
export class AccountClient {
  readonly #transport: Transport;
  readonly #form: "A" | "B";
  readonly #targetPrefix: string;
  readonly #onWrite: WriteListener | undefined;

  constructor(transport: Transport, options: AccountClientOptions = {}) {
    this.#transport = transport;
    this.#form = options.form ?? "A";
    this.#targetPrefix = options.targetPrefix ?? ACCOUNT_TARGET_PREFIX;
    this.#onWrite = options.onWrite;
  }

  /** Creates or overwrites the contact of its type (idempotent). */
  putAlternateContact(input: PutAlternateContactRequest, options: CallOptions = {}): Promise<void> {
    return this.#call("PutAlternateContact", input, options);
  }

  /** The contact of a type, or `undefined` when the account has none. */
  async getAlternateContact(input: AlternateContactKeyRequest, options: CallOptions = {}): Promise<AlternateContact | undefined> {
    try {
      const response = await this.#call("GetAlternateContact", input, options);
      return response.AlternateContact;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Deletes the contact of a type; `false` when there was none (so a retried delete stays quiet). */
  async deleteAlternateContact(input: AlternateContactKeyRequest, options: CallOptions = {}): Promise<boolean> {
    try {
      await this.#call("DeleteAlternateContact", input, options);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** One page of ListRegions, as the service answers it. */
  listRegionsPage(input: ListRegionsRequest = {}, options: CallOptions = {}): Promise<z.infer<typeof ListRegionsResponse>> {
    return this.#call("ListRegions", input, options);
  }

  /** Every Region (optionally filtered), fetched lazily a page at a time. */
  listRegions(
    input: Omit<ListRegionsRequest, "NextToken" | "MaxResults"> = {},
    options: CallOptions & { pageSize?: number } = {},
  ): AsyncGenerator<Region, void, undefined> {
    const pageSize = options.pageSize ?? MAX_LIST_REGIONS_RESULTS;
    return paginate(async (nextToken) => {
      const page = await this.listRegionsPage({ ...input, MaxResults: pageSize, ...(nextToken ? { NextToken: nextToken } : {}) }, options);
      return { items: page.Regions, nextToken: page.NextToken };
    }, { service: "account", operation: "ListRegions", bound: LISTING_BOUNDS.ListRegions, pageSize });
  }

  getRegionOptStatus(input: RegionRequest, options: CallOptions = {}) {
    return this.#call("GetRegionOptStatus", input, options);
  }

  /** Starts enabling an opt-in Region (a no-op when already ENABLED or ENABLING). */
  enableRegion(input: RegionRequest, options: CallOptions = {}): Promise<void> {
    return this.#call("EnableRegion", input, options);
  }

  /** Starts disabling an opt-in Region (a no-op when already DISABLED or DISABLING). */
  disableRegion(input: RegionRequest, options: CallOptions = {}): Promise<void> {
    return this.#call("DisableRegion", input, options);
  }

  /** One call of an operation, as its row of the table says (form B posts every operation to `/`). */
  async #call<N extends AccountOperationName>(operation: N, body: unknown, options: CallOptions): Promise<OperationResult<(typeof ACCOUNT_OPERATIONS)[N]>> {
    const formB = this.#form === "B";
    return await callOperation(this.#transport, "account", operation, ACCOUNT_OPERATIONS[operation], {
      path: formB ? "/" : ACCOUNT_OPERATIONS[operation].path,
      parameters: {},
      headers: formB ? { "x-svc-target": `${this.#targetPrefix}.${operation}` } : undefined,
      body,
      signal: options.signal,
    }, this.#onWrite) as OperationResult<(typeof ACCOUNT_OPERATIONS)[N]>;
  }
}
