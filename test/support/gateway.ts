import { expect } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { call, type CallResult } from "./http.js";

/** A WebSocket API's route selection expression, as the tests create them. */
export const WEBSOCKET_ROUTE_SELECTION = "$request.body.action";

export type Protocol = "HTTP" | "WEBSOCKET";

/** Creates an API of `protocol` in the token's account and returns it; fails the test on anything but 201. */
export async function createApi(service: RunningService, protocol: Protocol, options: { name?: string; token?: string; target?: string } = {}): Promise<{ apiId: string; json: any }> {
  const body: Record<string, unknown> = { name: options.name ?? `api-${protocol.toLowerCase()}`, protocolType: protocol };
  if (protocol === "WEBSOCKET") body.routeSelectionExpression = WEBSOCKET_ROUTE_SELECTION;
  if (options.target !== undefined) body.target = options.target;
  const result = await call(service, "/v2/apis", { method: "POST", body, ...(options.token ? { token: options.token } : {}) });
  expect(result.status, result.text).toBe(201);
  return { apiId: result.json.apiId as string, json: result.json };
}

/** The smallest valid CreateIntegration body of each protocol (HTTP APIs require payloadFormatVersion). */
export function integrationBody(protocol: Protocol, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base: Record<string, unknown> = protocol === "HTTP"
    ? { integrationType: "HTTP_PROXY", integrationUri: "https://backend.example/orders", integrationMethod: "ANY", payloadFormatVersion: "1.0" }
    : { integrationType: "MOCK" };
  const body = { ...base, ...overrides };
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
  return body;
}

/** Creates an integration and returns its body; fails the test on anything but 201. */
export async function createIntegration(service: RunningService, apiId: string, protocol: Protocol, overrides: Record<string, unknown> = {}, token?: string): Promise<any> {
  const result = await call(service, `/v2/apis/${apiId}/integrations`, { method: "POST", body: integrationBody(protocol, overrides), ...(token ? { token } : {}) });
  expect(result.status, result.text).toBe(201);
  return result.json;
}

/** Creates a route and returns its body; fails the test on anything but 201. */
export async function createRoute(service: RunningService, apiId: string, body: Record<string, unknown>, token?: string): Promise<any> {
  const result = await call(service, `/v2/apis/${apiId}/routes`, { method: "POST", body, ...(token ? { token } : {}) });
  expect(result.status, result.text).toBe(201);
  return result.json;
}

/**
 * Asserts a gateway error: status, `x-svc-ErrorType`, a JSON body with `__type` (the header's name,
 * or the public model's where it differs: 429 is `TooManyRequestsException`), a non-empty string
 * `message`, and the given extra body fields (e.g. `{resourceType: "Route"}`).
 */
export function expectGatewayError(result: CallResult, status: number, errorType: string, fields: Record<string, unknown> = {}): void {
  expect({ status: result.status, errorType: result.errorType }, result.text).toEqual({ status, errorType });
  expect(result.headers["content-type"]).toBe("application/json");
  const modelName = errorType === "LimitExceededException" ? "TooManyRequestsException" : errorType;
  expect(result.json).toMatchObject({ __type: modelName, message: expect.any(String), ...fields });
  expect((result.json.message as string).length).toBeGreaterThan(0);
}

/** Asserts a 400 BadRequestException whose message names `field` (and, when given, matches `pattern`). */
export function expectBadRequest(result: CallResult, field: string, pattern?: RegExp): void {
  expectGatewayError(result, 400, "BadRequestException");
  expect(result.json.message as string).toContain(field);
  if (pattern) expect(result.json.message as string).toMatch(pattern);
  expect(result.json.resourceType).toBeUndefined();
}

/** Asserts a 404 NotFoundException naming `resourceType`. */
export function expectNotFound(result: CallResult, resourceType: "Api" | "Route" | "Integration"): void {
  expectGatewayError(result, 404, "NotFoundException", { resourceType });
}

/** Asserts a 409 ConflictException. */
export function expectConflict(result: CallResult): void {
  expectGatewayError(result, 409, "ConflictException");
}

/** Asserts a success status and no error header. */
export function expectStatus(result: CallResult, status: number): void {
  expect({ status: result.status, errorType: result.errorType }, result.text).toEqual({ status, errorType: undefined });
}

/** Runs `tasks` with at most `width` in flight at once. */
export async function inBatches<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, count) }, async () => {
    while (next < count) {
      const index = next++;
      out[index] = await task(index);
    }
  }));
  return out;
}

/** An API ID no world holds. */
export const MISSING_API = "zzzzzzzzz0";

/** Creates one API of each protocol in the token's account: the APIs most gateway tests work in. */
export async function createApiOfEachProtocol(service: RunningService): Promise<{ httpApi: string; wsApi: string }> {
  return { httpApi: (await createApi(service, "HTTP")).apiId, wsApi: (await createApi(service, "WEBSOCKET")).apiId };
}

/**
 * Deletes the child of an API at `itemPath` and asserts what follows: 204 with no body, then 404
 * naming `resourceType` on GET and on a second DELETE, and no item with `id` in the listing at `listPath`.
 */
export async function expectDeletedAndGone(service: RunningService, paths: { readonly item: string; readonly list: string }, resourceType: "Route" | "Integration", id: string): Promise<void> {
  const deleted = await call(service, paths.item, { method: "DELETE" });
  expectStatus(deleted, 204);
  expect(deleted.text).toBe("");
  expectNotFound(await call(service, paths.item, { method: "GET" }), resourceType);
  expectNotFound(await call(service, paths.item, { method: "DELETE" }), resourceType);
  const listed = await call(service, `${paths.list}?maxResults=500`, { method: "GET" });
  const idField = resourceType === "Route" ? "routeId" : "integrationId";
  expect(listed.json.items.map((item: Record<string, string>) => item[idField])).not.toContain(id);
}
