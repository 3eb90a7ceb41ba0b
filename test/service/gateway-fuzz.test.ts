import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi, createIntegration, createRoute, expectStatus } from "../support/gateway.js";
import { call, type CallOptions, type CallResult } from "../support/http.js";
import { useWorld } from "../support/world.js";

/**
 * Fuzzing every gateway operation over real HTTP (no faults configured): random JSON bodies, objects
 * with the real field names holding random values, random raw bodies and content types, random query
 * strings and path segments, valid and random tokens. The service never answers 5xx; every error
 * carries x-svc-ErrorType and a JSON body with a string message; the service still answers afterwards.
 */

const { service } = useWorld();
/** IDs that exist (or existed): the fuzzer picks from them so that requests reach the handlers. */
const apiIds: string[] = [];
const routeIds: string[] = [];
const integrationIds: string[] = [];
const nextTokens: string[] = [];
const childrenByApi = new Map<string, { routes: string[]; integrations: string[] }>();

function children_of(apiId: string): { routes: string[]; integrations: string[] } {
  let children = childrenByApi.get(apiId);
  if (!children) childrenByApi.set(apiId, (children = { routes: [], integrations: [] }));
  return children;
}

/** Creates an API of the admin's account with three routes targeting three integrations (and with `target`, quick-created). */
async function seedApi(protocol: "HTTP" | "WEBSOCKET", target?: string): Promise<void> {
  const { apiId } = await createApi(service, protocol, target === undefined ? {} : { target });
  apiIds.push(apiId);
  const children = children_of(apiId);
  if (target !== undefined) {
    const managed = await call(service, `/v2/apis/${apiId}/routes`, { method: "GET" });
    children.routes.push(managed.json.items[0].routeId);
    children.integrations.push(managed.json.items[0].target.slice("integrations/".length));
  }
  for (let i = 0; i < 3; i += 1) {
    const integration = await createIntegration(service, apiId, protocol);
    const route = await createRoute(service, apiId, { routeKey: protocol === "HTTP" ? `GET /r${i}` : `r${i}`, target: `integrations/${integration.integrationId}` });
    integrationIds.push(integration.integrationId);
    routeIds.push(route.routeId);
    children.integrations.push(integration.integrationId);
    children.routes.push(route.routeId);
  }
}

beforeAll(async () => {
  for (const protocol of ["HTTP", "WEBSOCKET", "HTTP", "WEBSOCKET"] as const) await seedApi(protocol);
  await seedApi("HTTP", "https://backend.example/x");
});

const ROUTE_FIELDS = ["routeKey", "authorizationType", "authorizerId", "authorizationScopes", "apiKeyRequired", "requestParameters", "requestModels",
  "modelSelectionExpression", "routeResponseSelectionExpression", "target", "operationName", "routeId", "apiGatewayManaged"];
const INTEGRATION_FIELDS = ["description", "integrationType", "integrationSubtype", "integrationMethod", "integrationUri", "tlsConfig", "credentialsArn",
  "connectionType", "connectionId", "requestParameters", "responseParameters", "requestTemplates", "templateSelectionExpression", "passthroughBehavior",
  "contentHandlingStrategy", "timeoutInMillis", "payloadFormatVersion", "integrationId", "apiGatewayManaged", "integrationResponseSelectionExpression"];
const API_FIELDS = ["name", "protocolType", "routeSelectionExpression", "target", "apiId"];

/** Values that are valid somewhere, so that random objects often get past the first check. */
const plausibleValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("HTTP", "WEBSOCKET", "NONE", "JWT", "CLOUD_IAM", "CUSTOM", "CLOUD", "MOCK", "HTTP_PROXY", "CLOUD_PROXY", "INTERNET", "VPC_LINK",
    "WHEN_NO_MATCH", "NEVER", "CONVERT_TO_TEXT", "1.0", "2.0", "$default", "GET /x", "ANY /{proxy+}", "sendMessage", "https://backend.example/y",
    "$request.body.action", "integrations/zzzzzz0", "'static'", "method.request.header.x", "SQS-SendMessage", "__proto__", "constructor", ""),
  fc.constantFrom(49, 50, 29_000, 29_001, 30_000, 30_001, 0, -1, 1.5, Number.MAX_SAFE_INTEGER, true, false, null),
  fc.constantFrom({ "200": { "overwrite:statuscode": "204" } }, { "600": {} }, { "append:header.x": "v" }, { "set:header.x": "v" },
    { "integration.request.header.x": "method.request.body.x" }, { serverNameToVerify: "x" }, { x: { required: true } }, ["a", "b"], {}, []),
  fc.jsonValue({ maxDepth: 3 }),
);

const fieldObject = (fields: ReadonlyArray<string>) => fc.dictionary(fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })), plausibleValue, { maxKeys: 8 });

/** A JSON body: any JSON value, or an object with real field names. */
const jsonBody: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fieldObject(ROUTE_FIELDS),
  fieldObject(INTEGRATION_FIELDS),
  fieldObject(API_FIELDS),
  // a valid-looking body with one field replaced
  fc.tuple(fc.constantFrom<Record<string, unknown>>(
    { integrationType: "HTTP_PROXY", integrationUri: "https://b.example", payloadFormatVersion: "1.0" },
    { integrationType: "MOCK" },
    { routeKey: "GET /fuzz" },
    { routeKey: "fuzz" },
    { name: "fuzz", protocolType: "HTTP" },
    { name: "fuzz", protocolType: "WEBSOCKET", routeSelectionExpression: "$request.body.action" },
  ), fc.constantFrom(...ROUTE_FIELDS, ...INTEGRATION_FIELDS, ...API_FIELDS), plausibleValue).map(([base, field, value]) => ({ ...base, [field]: value })),
);

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/problem+json", "application/x-amz-json-1.1",
  "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/octet-stream", "application/jsonx", ";", ""];

/** A raw body (text or bytes) with some content type, or none. */
const rawBody = fc.record({
  raw: fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: "binary", maxLength: 100 }),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value).slice(0, -1)),
    fc.constantFrom("", "{", "}", "null", "[]", "\"\"", "{\"__proto__\":{\"x\":1}}", "{\"integrationType\":\"MOCK\"}", "\u0000", "\ufeff{}", "{} {}", "1e999"),
  ),
  contentType: fc.option(fc.oneof(fc.constantFrom(...CONTENT_TYPES), fc.stringMatching(/^[\x20-\x7e]{0,30}$/)), { nil: undefined }),
});

/** A token: valid ones of every kind, none, and random printable strings; sometimes a raw Authorization header. */
const auth: fc.Arbitrary<Pick<CallOptions, "token" | "headers">> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ token: "admin-token" }) },
  fc.constantFrom({ token: "reader-token" }, { token: "member-token" }, { token: "nothing-token" }, { token: "delegated-token" }, { token: null }),
  fc.stringMatching(/^[\x21-\x7e]{0,30}$/).map((token) => ({ token })),
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/).map((value) => ({ token: null, headers: { authorization: value } })),
);

/** A path segment: an existing ID (picked at run time, children of the API in the path), a random ID-like string, or junk. */
type Segment = { readonly existing: number } | { readonly raw: string };
const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 6, arbitrary: fc.nat().map((existing) => ({ existing })) },
  fc.stringMatching(/^[a-z0-9]{1,12}$/).map((raw) => ({ raw })),
  fc.string({ maxLength: 20 }).map((text) => ({ raw: encodeURIComponent(text) })),
  fc.constantFrom("%zz", "%", "%00", "%2F", "a%2Fb", "%E0%A4%A", "..", ".", "~", "'", "%20", "a".repeat(1200), "$default", "GET%20%2Fx").map((raw) => ({ raw })),
);

const pick = (ids: ReadonlyArray<string>, n: number) => (ids.length === 0 ? "none" : ids[n % ids.length]!);

const OPERATION_TEMPLATES = [
  ["POST", "/v2/apis"], ["GET", "/v2/apis"], ["GET", "/v2/apis/{api}"], ["DELETE", "/v2/apis/{api}"],
  ["POST", "/v2/apis/{api}/routes"], ["GET", "/v2/apis/{api}/routes"],
  ["GET", "/v2/apis/{api}/routes/{route}"], ["PATCH", "/v2/apis/{api}/routes/{route}"], ["DELETE", "/v2/apis/{api}/routes/{route}"],
  ["POST", "/v2/apis/{api}/integrations"], ["GET", "/v2/apis/{api}/integrations"],
  ["GET", "/v2/apis/{api}/integrations/{integration}"], ["PATCH", "/v2/apis/{api}/integrations/{integration}"], ["DELETE", "/v2/apis/{api}/integrations/{integration}"],
] as const;
const METHODS = ["GET", "POST", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];
type Template = (typeof OPERATION_TEMPLATES)[number][1];

/** A method and a path: mostly an operation of the gateway, otherwise any method on any of its paths. */
const request = fc.record({
  operation: fc.oneof<[fc.WeightedArbitrary<readonly [Method, Template]>, fc.Arbitrary<readonly [Method, Template]>]>(
    { weight: 3, arbitrary: fc.constantFrom(...OPERATION_TEMPLATES) },
    fc.tuple(fc.constantFrom(...METHODS), fc.constantFrom(...OPERATION_TEMPLATES.map(([, template]) => template))),
  ),
  api: segment,
  child: segment,
  trailingSlash: fc.boolean(),
}).map(({ operation: [method, template], api, child, trailingSlash }) => ({
  method,
  path: () => {
    const apiId = "raw" in api ? api.raw : pick(apiIds, api.existing);
    const children = children_of(apiId);
    const childId = (ids: ReadonlyArray<string>, all: ReadonlyArray<string>) => ("raw" in child ? child.raw : pick(ids.length > 0 ? ids : all, child.existing));
    const path = template
      .replace("{api}", apiId)
      .replace("{route}", () => childId(children.routes, routeIds))
      .replace("{integration}", () => childId(children.integrations, integrationIds));
    return `${path}${trailingSlash ? "/" : ""}`;
  },
}));

/** A query string: maxResults and nextToken of every kind, or raw junk. */
const query: fc.Arbitrary<() => string> = fc.oneof(
  fc.constant(() => ""),
  fc.record({
    maxResults: fc.option(fc.oneof(fc.integer({ min: -5, max: 1000 }).map(String), fc.string({ maxLength: 6 }), fc.constantFrom("1", "500", "501", "0", "1e2", " 1")), { nil: undefined }),
    nextToken: fc.option(fc.oneof(
      fc.nat().map((n) => () => (nextTokens.length === 0 ? "" : nextTokens[n % nextTokens.length]!)),
      fc.string({ maxLength: 40 }).map((s) => () => s),
      fc.constantFrom("", ".", "a.b", "x".repeat(1001)).map((s) => () => s),
    ), { nil: undefined }),
  }).map(({ maxResults, nextToken }) => () => {
    const params = new URLSearchParams();
    if (maxResults !== undefined) params.set("maxResults", maxResults);
    if (nextToken !== undefined) params.set("nextToken", nextToken());
    return params.size > 0 ? `?${params}` : "";
  }),
  fc.constantFrom("?%zz=1", "?&&=", "?maxResults", "?maxResults=1&maxResults=2", "?nextToken=%", "?x=%E0%A4%A").map((s) => () => s),
);

/** Remembers IDs and tokens the service hands out, so that later requests reach deeper. */
async function harvest(method: string, result: CallResult, target: string): Promise<void> {
  const json = result.json;
  if (method === "DELETE" && result.status === 204) {
    // forget what was deleted, and keep a few APIs alive so that requests keep reaching the handlers
    const [apiId, , childId] = target.split("?")[0]!.split("/").slice(3).filter((part) => part !== "");
    const forget = (ids: string[], id: string | undefined) => {
      for (let at = ids.indexOf(id ?? ""); at !== -1; at = ids.indexOf(id ?? "")) ids.splice(at, 1);
    };
    if (childId === undefined) forget(apiIds, apiId);
    else for (const ids of [routeIds, integrationIds, children_of(apiId!).routes, children_of(apiId!).integrations]) forget(ids, childId);
    if (apiIds.length < 3) await seedApi(apiIds.length % 2 === 0 ? "HTTP" : "WEBSOCKET");
    return;
  }
  if (result.status >= 300 || json === null || typeof json !== "object") return;
  const apiId = target.split("/")[3] ?? "";
  const remember = (ids: string[], id: unknown) => {
    if (typeof id === "string" && !ids.includes(id)) ids.push(id);
  };
  if (typeof json.nextToken === "string") nextTokens.push(json.nextToken);
  remember(apiIds, json.apiId);
  remember(routeIds, json.routeId);
  remember(children_of(apiId).routes, json.routeId);
  remember(integrationIds, json.integrationId);
  remember(children_of(apiId).integrations, json.integrationId);
}

/** The property every answer holds. */
function checkAnswer(result: CallResult, label: string): void {
  expect(result.status, `${label}: ${result.text}`).toBeGreaterThanOrEqual(200);
  expect(result.status, `${label}: ${result.text}`).toBeLessThan(500);
  if (result.status >= 400) {
    expect(result.errorType, label).toMatch(/^[A-Za-z]+Exception$/);
    expect(result.headers["content-type"], label).toBe("application/json");
    expect(result.json, label).toBeTypeOf("object");
    expect(result.json.message, label).toBeTypeOf("string");
    expect(result.json.message.length, label).toBeGreaterThan(0);
  } else if (result.status === 204) {
    expect(result.text, label).toBe("");
  } else {
    expect(result.errorType, label).toBeUndefined();
    expect(result.json, label).toBeTypeOf("object");
    expect(result.json, label).not.toBeNull();
  }
}

async function send(method: string, target: string, options: CallOptions): Promise<void> {
  const label = `${method} ${target.slice(0, 200)}`;
  const result = await call(service, target, { ...options, method: method as CallOptions["method"] });
  checkAnswer(result, label);
  await harvest(method, result, target);
}

describe("gateway fuzzing", () => {
  it("never answers 5xx to random JSON bodies and objects of real field names, on every operation", async () => {
    await fc.assert(
      fc.asyncProperty(request, query, jsonBody, auth, async ({ method, path }, queryOf, body, credentials) => {
        await send(method, path() + queryOf(), { ...credentials, body });
      }),
      { numRuns: 1500 },
    );
  });

  it("never answers 5xx to random raw bodies and content types", async () => {
    await fc.assert(
      fc.asyncProperty(request, rawBody, auth, async ({ method, path }, { raw, contentType }, credentials) => {
        const headers: Record<string, string> = { ...credentials.headers };
        if (contentType !== undefined) headers["content-type"] = contentType;
        await send(method, path(), { token: credentials.token, headers, raw });
      }),
      { numRuns: 800 },
    );
  });

  it("never answers 5xx to random paths and query strings without a body", async () => {
    await fc.assert(
      fc.asyncProperty(request, fc.option(fc.constantFrom("PUT", "OPTIONS"), { nil: undefined }), query, auth, async ({ method, path }, otherMethod, queryOf, credentials) => {
        await send(otherMethod ?? method, path() + queryOf(), credentials);
      }),
      { numRuns: 800 },
    );
  });

  it("still answers correctly afterwards, having answered no 5xx at all", async () => {
    expect(service.requests.count({ status: 500 })).toBe(0);
    expect(service.requests.count()).toBeGreaterThan(3000);
    // the fuzzer reached the handlers, not only the front door
    expect(service.requests.count({ status: 200 }) + service.requests.count({ status: 201 }) + service.requests.count({ status: 204 })).toBeGreaterThan(100);
    const { apiId } = await createApi(service, "WEBSOCKET");
    const integration = await createIntegration(service, apiId, "WEBSOCKET", { timeoutInMillis: 29_000 });
    const read = await call(service, `/v2/apis/${apiId}/integrations/${integration.integrationId}`, { method: "GET" });
    expectStatus(read, 200);
    expect(read.json).toEqual(integration);
    expectStatus(await call(service, "/v2/apis", { method: "GET" }), 200);
  });
});
