import {
  GATEWAY_OPERATIONS,
  MAX_PAGE_SIZE,
  type Api,
  type CreateApiInput,
  type CreateIntegrationInput,
  type CreateRouteInput,
  type GatewayOperationName,
  type Integration,
  type Route,
  type UpdateIntegrationInput,
  type UpdateRouteInput,
} from "../contract/gateway.js";
import { fillPath, type OperationResult, type PathParameters } from "../contract/operation-table.js";
import { LISTING_BOUNDS } from "./answer-limits.js";
import { isNotFound } from "./errors.js";
import { callOperation } from "./operation-call.js";
import { paginate, type Page } from "./pagination.js";
import type { Transport } from "./transport.js";
import type { WriteListener } from "./write-listener.js";

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface ListOptions extends CallOptions {
  /** Items per page (1..500). @default 500 */
  readonly pageSize?: number;
}

type Operations = typeof GATEWAY_OPERATIONS;
type ListingName = { [N in GatewayOperationName]: Operations[N] extends { readonly query: unknown } ? N : never }[GatewayOperationName];
type ItemOf<N extends ListingName> = OperationResult<Operations[N]> extends { readonly items: ReadonlyArray<infer I> } ? I : never;

/** What one call sends besides its path: the body, the query, the abort signal. */
interface CallInput {
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Typed client of the API gateway service, every call built from the service's operation table
 * (`GATEWAY_OPERATIONS`). Reads of a single resource answer `undefined` when that resource is absent
 * (a missing parent API is still an error); deletes answer `false` when there was nothing to delete.
 * Creates are never retried blindly: an ambiguous failure is an AmbiguousWriteError.
 */
export class GatewayClient {
  readonly #transport: Transport;
  readonly #onWrite: WriteListener | undefined;

  /** `onWrite`: told of every write the service acknowledged (see {@link WriteListener}). */
  constructor(transport: Transport, options: { readonly onWrite?: WriteListener | undefined } = {}) {
    this.#transport = transport;
    this.#onWrite = options.onWrite;
  }

  createApi(input: CreateApiInput, options: CallOptions = {}): Promise<Api> {
    return this.#call("CreateApi", {}, { body: input, signal: options.signal });
  }

  getApi(apiId: string, options: CallOptions = {}): Promise<Api | undefined> {
    return absentAsUndefined("Api", this.#call("GetApi", { apiId }, options));
  }

  apis(options: ListOptions = {}): AsyncGenerator<Api, void, undefined> {
    return this.#list("GetApis", {}, options);
  }

  deleteApi(apiId: string, options: CallOptions = {}): Promise<boolean> {
    return deletedOrAbsent("Api", this.#call("DeleteApi", { apiId }, options));
  }

  createRoute(apiId: string, input: CreateRouteInput, options: CallOptions = {}): Promise<Route> {
    return this.#call("CreateRoute", { apiId }, { body: input, signal: options.signal });
  }

  getRoute(apiId: string, routeId: string, options: CallOptions = {}): Promise<Route | undefined> {
    return absentAsUndefined("Route", this.#call("GetRoute", { apiId, routeId }, options));
  }

  routes(apiId: string, options: ListOptions = {}): AsyncGenerator<Route, void, undefined> {
    return this.#list("GetRoutes", { apiId }, options);
  }

  updateRoute(apiId: string, routeId: string, patch: UpdateRouteInput, options: CallOptions = {}): Promise<Route> {
    return this.#call("UpdateRoute", { apiId, routeId }, { body: patch, signal: options.signal });
  }

  deleteRoute(apiId: string, routeId: string, options: CallOptions = {}): Promise<boolean> {
    return deletedOrAbsent("Route", this.#call("DeleteRoute", { apiId, routeId }, options));
  }

  createIntegration(apiId: string, input: CreateIntegrationInput, options: CallOptions = {}): Promise<Integration> {
    return this.#call("CreateIntegration", { apiId }, { body: input, signal: options.signal });
  }

  getIntegration(apiId: string, integrationId: string, options: CallOptions = {}): Promise<Integration | undefined> {
    return absentAsUndefined("Integration", this.#call("GetIntegration", { apiId, integrationId }, options));
  }

  integrations(apiId: string, options: ListOptions = {}): AsyncGenerator<Integration, void, undefined> {
    return this.#list("GetIntegrations", { apiId }, options);
  }

  updateIntegration(apiId: string, integrationId: string, patch: UpdateIntegrationInput, options: CallOptions = {}): Promise<Integration> {
    return this.#call("UpdateIntegration", { apiId, integrationId }, { body: patch, signal: options.signal });
  }

  deleteIntegration(apiId: string, integrationId: string, options: CallOptions = {}): Promise<boolean> {
    return deletedOrAbsent("Integration", this.#call("DeleteIntegration", { apiId, integrationId }, options));
  }

  /** Every item of a listing, fetched lazily a page at a time. */
  #list<N extends ListingName>(
    operation: N,
    parameters: PathParameters<Operations[N]["path"]>,
    options: ListOptions,
  ): AsyncGenerator<ItemOf<N>, void, undefined> {
    const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
    const maxResults = String(pageSize);
    return paginate((nextToken) =>
      this.#call(operation, parameters, { query: { maxResults, nextToken }, signal: options.signal }) as Promise<Page<ItemOf<N>>>,
    { service: "apigateway", operation, bound: LISTING_BOUNDS[operation], pageSize });
  }

  /** One call of an operation, as its row of the table says: method, path, status, idempotence and answer. */
  async #call<N extends GatewayOperationName>(
    operation: N,
    parameters: PathParameters<Operations[N]["path"]>,
    input: CallInput,
  ): Promise<OperationResult<Operations[N]>> {
    const row = GATEWAY_OPERATIONS[operation];
    return await callOperation(this.#transport, "apigateway", operation, row, {
      path: fillPath(row.path, parameters),
      parameters,
      query: input.query,
      body: input.body,
      signal: input.signal,
    }, this.#onWrite) as OperationResult<Operations[N]>;
  }
}

async function absentAsUndefined<T>(resourceType: string, pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (error) {
    if (isNotFound(error, resourceType)) return undefined;
    throw error;
  }
}

async function deletedOrAbsent(resourceType: string, pending: Promise<unknown>): Promise<boolean> {
  try {
    await pending;
    return true;
  } catch (error) {
    if (isNotFound(error, resourceType)) return false;
    throw error;
  }
}
