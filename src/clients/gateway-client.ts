import type { z } from "zod";
import {
  Api,
  Apis,
  Integration,
  Integrations,
  MAX_PAGE_SIZE,
  Route,
  Routes,
  type CreateApiInput,
  type CreateIntegrationInput,
  type CreateRouteInput,
  type UpdateIntegrationInput,
  type UpdateRouteInput,
} from "../spec/gateway.js";
import { isNotFound } from "./errors.js";
import { paginate } from "./pagination.js";
import type { CallSpec, Transport } from "./transport.js";

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface ListOptions extends CallOptions {
  /** Items per page (1..500). @default 500 */
  readonly pageSize?: number;
}

const segment = encodeURIComponent;

/**
 * Typed client of the API gateway service. Reads of a single resource answer `undefined` when that
 * resource is absent (a missing parent API is still an error); deletes answer `false` when there was
 * nothing to delete. Creates are never retried blindly: an ambiguous failure is an AmbiguousWriteError.
 */
export class GatewayClient {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  createApi(input: CreateApiInput, options: CallOptions = {}): Promise<Api> {
    return this.#call({ operation: "CreateApi", method: "POST", path: "/v2/apis", body: input, idempotent: false, expectStatus: 201, response: Api, signal: options.signal });
  }

  getApi(apiId: string, options: CallOptions = {}): Promise<Api | undefined> {
    return absentAsUndefined("Api", this.#call({ operation: "GetApi", method: "GET", path: `/v2/apis/${segment(apiId)}`, idempotent: true, expectStatus: 200, response: Api, signal: options.signal }));
  }

  apis(options: ListOptions = {}): AsyncGenerator<Api, void, undefined> {
    return this.#list("GetApis", "/v2/apis", Apis, options);
  }

  deleteApi(apiId: string, options: CallOptions = {}): Promise<boolean> {
    return deletedOrAbsent("Api", this.#call({ operation: "DeleteApi", method: "DELETE", path: `/v2/apis/${segment(apiId)}`, idempotent: true, expectStatus: 204, signal: options.signal }));
  }

  createRoute(apiId: string, input: CreateRouteInput, options: CallOptions = {}): Promise<Route> {
    return this.#call({ operation: "CreateRoute", method: "POST", path: `/v2/apis/${segment(apiId)}/routes`, body: input, idempotent: false, expectStatus: 201, response: Route, signal: options.signal });
  }

  getRoute(apiId: string, routeId: string, options: CallOptions = {}): Promise<Route | undefined> {
    return absentAsUndefined("Route", this.#call({ operation: "GetRoute", method: "GET", path: routePath(apiId, routeId), idempotent: true, expectStatus: 200, response: Route, signal: options.signal }));
  }

  routes(apiId: string, options: ListOptions = {}): AsyncGenerator<Route, void, undefined> {
    return this.#list("GetRoutes", `/v2/apis/${segment(apiId)}/routes`, Routes, options);
  }

  updateRoute(apiId: string, routeId: string, patch: UpdateRouteInput, options: CallOptions = {}): Promise<Route> {
    return this.#call({ operation: "UpdateRoute", method: "PATCH", path: routePath(apiId, routeId), body: patch, idempotent: true, expectStatus: 200, response: Route, signal: options.signal });
  }

  deleteRoute(apiId: string, routeId: string, options: CallOptions = {}): Promise<boolean> {
    return deletedOrAbsent("Route", this.#call({ operation: "DeleteRoute", method: "DELETE", path: routePath(apiId, routeId), idempotent: true, expectStatus: 204, signal: options.signal }));
  }

  createIntegration(apiId: string, input: CreateIntegrationInput, options: CallOptions = {}): Promise<Integration> {
    return this.#call({ operation: "CreateIntegration", method: "POST", path: `/v2/apis/${segment(apiId)}/integrations`, body: input, idempotent: false, expectStatus: 201, response: Integration, signal: options.signal });
  }

  getIntegration(apiId: string, integrationId: string, options: CallOptions = {}): Promise<Integration | undefined> {
    return absentAsUndefined("Integration", this.#call({ operation: "GetIntegration", method: "GET", path: integrationPath(apiId, integrationId), idempotent: true, expectStatus: 200, response: Integration, signal: options.signal }));
  }

  integrations(apiId: string, options: ListOptions = {}): AsyncGenerator<Integration, void, undefined> {
    return this.#list("GetIntegrations", `/v2/apis/${segment(apiId)}/integrations`, Integrations, options);
  }

  updateIntegration(apiId: string, integrationId: string, patch: UpdateIntegrationInput, options: CallOptions = {}): Promise<Integration> {
    return this.#call({ operation: "UpdateIntegration", method: "PATCH", path: integrationPath(apiId, integrationId), body: patch, idempotent: true, expectStatus: 200, response: Integration, signal: options.signal });
  }

  deleteIntegration(apiId: string, integrationId: string, options: CallOptions = {}): Promise<boolean> {
    return deletedOrAbsent("Integration", this.#call({ operation: "DeleteIntegration", method: "DELETE", path: integrationPath(apiId, integrationId), idempotent: true, expectStatus: 204, signal: options.signal }));
  }

  #list<T>(operation: string, path: string, schema: z.ZodType<{ items: T[]; nextToken?: string | undefined }>, options: ListOptions): AsyncGenerator<T, void, undefined> {
    const maxResults = String(options.pageSize ?? MAX_PAGE_SIZE);
    return paginate((nextToken) =>
      this.#call({ operation, method: "GET", path, query: { maxResults, nextToken }, idempotent: true, expectStatus: 200, response: schema, signal: options.signal }));
  }

  #call<T>(spec: CallSpec<T>): Promise<T> {
    return this.#transport.call("apigateway", spec);
  }
}

function routePath(apiId: string, routeId: string): string {
  return `/v2/apis/${segment(apiId)}/routes/${segment(routeId)}`;
}

function integrationPath(apiId: string, integrationId: string): string {
  return `/v2/apis/${segment(apiId)}/integrations/${segment(integrationId)}`;
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
