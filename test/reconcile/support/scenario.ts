import fc from "fast-check";
import { stringify } from "yaml";
import type { RunningService } from "../../../src/service/index.js";
import { accountCall, call } from "../../support/http.js";
import { WEBSOCKET_ROUTE_SELECTION } from "../../support/gateway.js";
import { MEMBER_ACCOUNTS, RECONCILE_REGIONS } from "./reconcile-harness.js";

/**
 * A random reconcile scenario: desired documents and the live state they meet. Live integrations
 * and routes are "twins" of desired ones (same identity, fields that may differ) or unrelated; each
 * desired integration has its own integrationUri, so that no two live integrations ever compete for
 * one document (that is refused by design, not a convergence failure).
 */

type Protocol = "HTTP" | "WEBSOCKET";
type Fields = Record<string, unknown>;
/** A field value, `null` (must be absent) or OMIT (don't care). */
const OMIT = undefined;

export interface IntegrationCase {
  readonly desired: "present" | "absent" | "none";
  /** Natural key, besides the case's own integrationUri. */
  readonly integrationType: string;
  readonly integrationMethod: string | null;
  readonly connection: "omit" | "null" | "INTERNET" | "VPC_LINK";
  readonly fields: Fields;
  /**
   * With a twin: `own` pins the document to the twin's integrationId; `alias` adds a second, pinned
   * document (with `aliasFields`) for the twin, next to this unpinned one sharing its natural key.
   */
  readonly pin: "none" | "own" | "alias";
  readonly aliasFields: Fields;
  /** A live integration with the same URI, created before apply. */
  readonly twin: { readonly integrationMethod: string | null; readonly connection: "omit" | "INTERNET" | "VPC_LINK"; readonly fields: Fields } | null;
}

export interface RouteCase {
  readonly routeKey: string;
  readonly desired: "present" | "absent" | "none";
  readonly fields: Fields;
  /** Target: don't care, must be absent, or the integration of case `n` (modulo the present ones). */
  readonly target: "omit" | "null" | { readonly integration: number };
  readonly twin: { readonly fields: Fields; readonly target: number | null } | null;
}

export interface ApiCase {
  readonly protocol: Protocol;
  /** HTTP only: created with quick create (a managed `$default` route and integration). */
  readonly quickCreate: boolean;
  /** How documents refer to the API. */
  readonly refByName: boolean;
  /** An `Api` document: none, or one with prune and (optionally) the protocol declared. */
  readonly apiDocument: null | { readonly prune: boolean; readonly declareProtocol: boolean };
  /** A desired integration with the natural key of the managed one (HTTP quick create only). */
  readonly managedIntegration: "none" | "present" | "absent";
  readonly integrations: ReadonlyArray<IntegrationCase>;
  readonly routes: ReadonlyArray<RouteCase>;
  readonly unrelatedIntegrations: ReadonlyArray<{ readonly fields: Fields }>;
  readonly unrelatedRoutes: ReadonlyArray<{ readonly routeKey: string; readonly fields: Fields; readonly target: number | null }>;
}

export interface ContactCase {
  readonly account: string | undefined;
  readonly type: "BILLING" | "OPERATIONS" | "SECURITY";
  readonly desired: "present" | "absent" | "none";
  readonly contact: ContactFields;
  readonly live: ContactFields | null;
}

interface ContactFields {
  readonly name: string;
  readonly title: string;
  readonly emailAddress: string;
  readonly phoneNumber: string;
}

export interface RegionCase {
  readonly account: string | undefined;
  readonly region: string;
  readonly enabled: boolean;
  /** What is done to the Region just before apply (it may still be in transition when apply starts). */
  readonly before: "nothing" | "enable" | "disable";
}

export interface Scenario {
  readonly apis: readonly [ApiCase, ApiCase];
  readonly contacts: ReadonlyArray<ContactCase>;
  readonly regions: ReadonlyArray<RegionCase>;
  /** `--prune` for the whole run. */
  readonly prune: boolean;
  /** Writes one API's documents as JSON instead of YAML. */
  readonly jsonFiles: boolean;
}

// --- arbitraries -------------------------------------------------------------------------------

/** A value of `values`, or null, or omitted; each with some weight. */
function optional<T>(...values: T[]): fc.Arbitrary<T | null | undefined> {
  return fc.oneof({ arbitrary: fc.constant(OMIT), weight: 3 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.constantFrom(...values), weight: 3 });
}

/** A record of optional fields with undefined ones dropped. */
function fieldsOf(model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Fields> {
  return fc.record(model).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
}

const httpIntegrationFields = fieldsOf({
  payloadFormatVersion: fc.constantFrom("1.0", "2.0"),
  timeoutInMillis: optional(50, 15_000, 30_000),
  description: optional("first", "second"),
  requestParameters: optional({ "overwrite:header.x-a": "one" }, { "append:querystring.q": "$request.querystring.q", "remove:header.x-b": "''" }),
  responseParameters: optional({ "200": { "overwrite:header.x-r": "r" } }, { "404": { "append:header.x-s": "s" }, "500": { "overwrite:statuscode": "503" } }),
  tlsConfig: optional({ serverNameToVerify: "backend.example" }, {}),
});

const websocketIntegrationFields = fieldsOf({
  timeoutInMillis: optional(50, 1000, 29_000),
  description: optional("first", "second"),
  passthroughBehavior: optional("WHEN_NO_MATCH", "NEVER", "WHEN_NO_TEMPLATES"),
  contentHandlingStrategy: optional("CONVERT_TO_TEXT", "CONVERT_TO_BINARY"),
  templateSelectionExpression: optional("$request.body.type"),
  requestTemplates: optional({ "application/json": "{}" }, { "application/json": "{\"a\": 1}", "text/plain": "x" }),
  requestParameters: optional({ "integration.request.header.x-a": "method.request.header.x-a" }, { "integration.request.querystring.q": "'static'" }),
});

const httpRouteFields = fieldsOf({
  authorizationType: optional("NONE", "JWT", "CLOUD_IAM", "CUSTOM"),
  authorizerId: optional("autha1", "authb2"),
  authorizationScopes: optional(["b", "a"], ["a"], []),
  operationName: optional("opA", "opB"),
});

const websocketRouteFields = fieldsOf({
  authorizationType: optional("NONE", "CLOUD_IAM", "CUSTOM"),
  authorizerId: optional("autha1", "authb2"),
  apiKeyRequired: optional(true, false),
  routeResponseSelectionExpression: optional("$default"),
  modelSelectionExpression: optional("$request.body.type"),
  requestModels: optional({ "application/json": "ModelA" }, {}),
  requestParameters: optional({ "route.request.header.x-a": { required: true } }, { "route.request.querystring.q": { required: false } }),
  operationName: optional("opA", "opB"),
});

const desiredState = fc.constantFrom("present", "present", "absent", "none") as fc.Arbitrary<"present" | "absent" | "none">;

function integrationCase(protocol: Protocol): fc.Arbitrary<IntegrationCase> {
  const fields = protocol === "HTTP" ? httpIntegrationFields : websocketIntegrationFields;
  const types = protocol === "HTTP" ? ["HTTP_PROXY", "CLOUD_PROXY"] : ["MOCK", "HTTP_PROXY", "HTTP"];
  const method = fc.oneof({ arbitrary: fc.constantFrom("ANY", "GET", "POST"), weight: 5 }, { arbitrary: fc.constant(null), weight: 1 });
  const connections = protocol === "HTTP" ? (["INTERNET", "VPC_LINK"] as const) : (["INTERNET"] as const);
  return fc.record({
    desired: desiredState,
    integrationType: fc.constantFrom(...types),
    integrationMethod: method,
    connection: fc.constantFrom("omit", "omit", "null", ...connections),
    fields,
    pin: fc.constantFrom("none", "none", "none", "own", "alias") as fc.Arbitrary<IntegrationCase["pin"]>,
    aliasFields: fields,
    twin: fc.option(fc.record({
      sameMethod: fc.boolean(),
      integrationMethod: method,
      connection: fc.constantFrom("omit", ...connections),
      fields,
    }), { nil: null, freq: 2 }),
  }).map(({ twin, ...value }) => ({
    ...value,
    // the twin shares the document's method (then it matches when the connections agree), or has its own
    twin: twin && { integrationMethod: twin.sameMethod ? value.integrationMethod : twin.integrationMethod, connection: twin.connection, fields: twin.fields },
  }));
}

const HTTP_ROUTE_KEYS = ["$default", "GET /a", "POST /a", "ANY /b/{id}", "GET /c", "DELETE /d"];
const WEBSOCKET_ROUTE_KEYS = ["$connect", "$disconnect", "$default", "sendMessage", "join", "leave"];

function routeCases(protocol: Protocol): fc.Arbitrary<RouteCase[]> {
  const keys = protocol === "HTTP" ? HTTP_ROUTE_KEYS : WEBSOCKET_ROUTE_KEYS;
  const fields = protocol === "HTTP" ? httpRouteFields : websocketRouteFields;
  return fc.uniqueArray(fc.constantFrom(...keys), { minLength: 0, maxLength: 5 }).chain((chosen) => fc.tuple(...chosen.map((routeKey) => fc.record({
    routeKey: fc.constant(routeKey),
    desired: desiredState,
    fields,
    target: fc.oneof({ arbitrary: fc.constant("omit" as const), weight: 1 }, { arbitrary: fc.constant("null" as const), weight: 1 }, { arbitrary: fc.nat(7).map((integration) => ({ integration })), weight: 4 }),
    twin: fc.option(fc.record({ fields, target: fc.option(fc.nat(15), { nil: null, freq: 4 }) }), { nil: null, freq: 2 }),
  })))).map((cases) => [...cases]);
}

function apiCase(protocol: Protocol): fc.Arbitrary<ApiCase> {
  const fields = protocol === "HTTP" ? httpIntegrationFields : websocketIntegrationFields;
  const routeFields = protocol === "HTTP" ? httpRouteFields : websocketRouteFields;
  const unrelatedKeys = protocol === "HTTP" ? ["GET /unrelated", "PUT /legacy"] : ["legacyAction", "ping"];
  return fc.record({
    protocol: fc.constant(protocol),
    quickCreate: protocol === "HTTP" ? fc.boolean() : fc.constant(false),
    refByName: fc.boolean(),
    apiDocument: fc.option(fc.record({ prune: fc.boolean(), declareProtocol: fc.boolean() }), { nil: null, freq: 3 }),
    managedIntegration: protocol === "HTTP" ? fc.constantFrom("none", "none", "present", "absent") : fc.constant("none"),
    integrations: fc.array(integrationCase(protocol), { maxLength: 5 }),
    routes: routeCases(protocol),
    unrelatedIntegrations: fc.array(fc.record({ fields }), { maxLength: 2 }),
    unrelatedRoutes: fc.uniqueArray(fc.record({ routeKey: fc.constantFrom(...unrelatedKeys), fields: routeFields, target: fc.option(fc.nat(15), { nil: null }) }), { maxLength: 2, selector: (route) => route.routeKey }),
  }).map((value) => ({ ...value, managedIntegration: value.quickCreate ? value.managedIntegration : "none" }));
}

const contactFields: fc.Arbitrary<ContactFields> = fc.record({
  name: fc.constantFrom("Ops Team", " Padded Name ", "Ünïcode 名前"),
  title: fc.constantFrom("Lead", "CISO"),
  emailAddress: fc.constantFrom("ops@example.com", "  spaced@example.com ", "spaced@example.com", "x.y+z@sub.example.org"),
  phoneNumber: fc.constantFrom("+1 555 0100", "(555) 010-0200"),
});

const ACCOUNTS = [undefined, ...MEMBER_ACCOUNTS];
const contactCases: fc.Arbitrary<ContactCase[]> = fc.uniqueArray(fc.record({
  account: fc.constantFrom(...ACCOUNTS),
  type: fc.constantFrom("BILLING", "OPERATIONS", "SECURITY") as fc.Arbitrary<ContactCase["type"]>,
  desired: desiredState,
  contact: contactFields,
  live: fc.option(contactFields, { nil: null }),
}), { maxLength: 4, selector: (contact) => `${contact.account}/${contact.type}` });

const REGION_NAMES = [...RECONCILE_REGIONS.map((region) => region.regionName), "xx-nowhere-1"];
const regionCases: fc.Arbitrary<RegionCase[]> = fc.uniqueArray(fc.record({
  account: fc.constantFrom(...ACCOUNTS),
  region: fc.constantFrom(...REGION_NAMES),
  enabled: fc.boolean(),
  before: fc.constantFrom("nothing", "enable", "disable") as fc.Arbitrary<RegionCase["before"]>,
}), { maxLength: 4, selector: (region) => `${region.account}/${region.region}` });

export const scenarioArbitrary: fc.Arbitrary<Scenario> = fc.record({
  apis: fc.tuple(apiCase("HTTP"), apiCase("WEBSOCKET")),
  contacts: contactCases,
  regions: regionCases,
  prune: fc.boolean(),
  jsonFiles: fc.boolean(),
});

// --- live state --------------------------------------------------------------------------------

const API_NAMES: Readonly<Record<Protocol, string>> = { HTTP: "property-http", WEBSOCKET: "property-ws" };
const MANAGED_URI = "https://managed.backend.example/quick";

function integrationUri(protocol: Protocol, index: number): string {
  return `https://${protocol.toLowerCase()}-${index}.backend.example/api`;
}

function keyFields(protocol: Protocol, integrationType: string, uri: string, method: string | null | undefined, connection: IntegrationCase["connection"]): Fields {
  const fields: Fields = { integrationType, integrationUri: uri };
  if (method !== undefined) fields.integrationMethod = method;
  if (connection === "null") fields.connectionType = null;
  if (connection === "INTERNET") fields.connectionType = "INTERNET";
  if (connection === "VPC_LINK") {
    fields.connectionType = "VPC_LINK";
    if (protocol === "HTTP") fields.connectionId = "vpclink1";
  }
  return fields;
}

/** A create body from fields that may hold nulls (dropped: create leaves them absent anyway). */
function createBody(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined));
}

async function created(service: RunningService, path: string, body: Fields): Promise<any> {
  const result = await call(service, path, { method: "POST", body });
  if (result.status !== 201) throw new Error(`setting up live state: POST ${path} ${JSON.stringify(body)} answered ${result.status}: ${result.text}`);
  return result.json;
}

/** The IDs of the live state a scenario starts from. */
export interface LiveIds {
  readonly apiIds: Record<Protocol, string>;
  /** Per protocol, the integrationId of each integration case's twin (by case index). */
  readonly twinIntegrationIds: Record<Protocol, Array<string | undefined>>;
}

/** The live state a scenario starts from, created directly over HTTP. */
export async function createLiveState(service: RunningService, scenario: Scenario): Promise<LiveIds> {
  const apiIds = {} as Record<Protocol, string>;
  const twinIntegrationIds: Record<Protocol, Array<string | undefined>> = { HTTP: [], WEBSOCKET: [] };
  for (const api of scenario.apis) {
    const body: Fields = { name: API_NAMES[api.protocol], protocolType: api.protocol };
    if (api.protocol === "WEBSOCKET") body.routeSelectionExpression = WEBSOCKET_ROUTE_SELECTION;
    if (api.quickCreate) body.target = MANAGED_URI;
    const apiId = (await created(service, "/v2/apis", body)).apiId as string;
    apiIds[api.protocol] = apiId;

    const liveIntegrationIds: string[] = [];
    if (api.quickCreate) {
      const listing = await call(service, `/v2/apis/${apiId}/integrations`, { method: "GET" });
      liveIntegrationIds.push(...(listing.json.items as Array<{ integrationId: string }>).map((item) => item.integrationId));
    }
    for (const [index, integration] of api.integrations.entries()) {
      if (!integration.twin) continue;
      const twin = integration.twin;
      const body = createBody({ ...keyFields(api.protocol, integration.integrationType, integrationUri(api.protocol, index), twin.integrationMethod, twin.connection), ...twin.fields });
      const integrationId = (await created(service, `/v2/apis/${apiId}/integrations`, body)).integrationId as string;
      liveIntegrationIds.push(integrationId);
      twinIntegrationIds[api.protocol][index] = integrationId;
    }
    for (const [index, unrelated] of api.unrelatedIntegrations.entries()) {
      const body = createBody({ integrationType: "HTTP_PROXY", integrationUri: `https://unrelated-${index}.backend.example/old`, integrationMethod: "ANY", ...unrelated.fields });
      liveIntegrationIds.push((await created(service, `/v2/apis/${apiId}/integrations`, body)).integrationId);
    }
    const targetOf = (index: number | null) => (index === null || liveIntegrationIds.length === 0 ? {} : { target: `integrations/${liveIntegrationIds[index % liveIntegrationIds.length]}` });
    for (const route of api.routes) {
      if (!route.twin || (api.quickCreate && route.routeKey === "$default")) continue;
      await created(service, `/v2/apis/${apiId}/routes`, createBody({ routeKey: route.routeKey, ...route.twin.fields, ...targetOf(route.twin.target) }));
    }
    for (const route of api.unrelatedRoutes) {
      await created(service, `/v2/apis/${apiId}/routes`, createBody({ routeKey: route.routeKey, ...route.fields, ...targetOf(route.target) }));
    }
  }
  for (const contact of scenario.contacts) {
    if (!contact.live) continue;
    const result = await accountCall(service, "PutAlternateContact", {
      ...(contact.account ? { AccountId: contact.account } : {}),
      AlternateContactType: contact.type,
      Name: contact.live.name,
      Title: contact.live.title,
      EmailAddress: contact.live.emailAddress,
      PhoneNumber: contact.live.phoneNumber,
    });
    if (result.status !== 200) throw new Error(`setting up live state: PutAlternateContact answered ${result.status}: ${result.text}`);
  }
  for (const region of scenario.regions) {
    if (region.before === "nothing" || region.region === "xx-nowhere-1") continue;
    const result = await accountCall(service, region.before === "enable" ? "EnableRegion" : "DisableRegion", { ...(region.account ? { AccountId: region.account } : {}), RegionName: region.region });
    // 400: an ENABLED_BY_DEFAULT Region; 409: the Region is mid-transition the other way
    if (![200, 400, 409].includes(result.status)) throw new Error(`setting up live state: ${region.before} ${region.region} answered ${result.status}: ${result.text}`);
  }
  return { apiIds, twinIntegrationIds };
}

// --- desired documents -------------------------------------------------------------------------

/** The scenario's desired-state files (name → text): one per API and one for the accounts. */
export function desiredFiles(scenario: Scenario, { apiIds, twinIntegrationIds }: LiveIds): Record<string, string> {
  const files: Record<string, string> = {};
  for (const api of scenario.apis) {
    const ref = api.refByName ? { name: API_NAMES[api.protocol] } : apiIds[api.protocol];
    const documents: unknown[] = [];
    const names = (index: number) => `${api.protocol.toLowerCase()}-integration-${index}`;
    const presentIndexes = api.integrations.flatMap((integration, index) => (integration.desired === "present" ? [index] : []));
    for (const [index, integration] of api.integrations.entries()) {
      if (integration.desired === "none") continue;
      const key = keyFields(api.protocol, integration.integrationType, integrationUri(api.protocol, index), integration.integrationMethod, integration.connection);
      const twinId = twinIntegrationIds[api.protocol][index];
      const pin = integration.pin === "own" && twinId !== undefined ? { integrationId: twinId } : {};
      documents.push({
        kind: "Integration",
        name: names(index),
        api: ref,
        ...(integration.desired === "absent" ? { ensure: "absent", spec: { ...pin, ...key } } : { spec: { ...pin, ...key, ...integration.fields } }),
      });
    }
    for (const [index, integration] of api.integrations.entries()) {
      const twinId = twinIntegrationIds[api.protocol][index];
      if (integration.pin !== "alias" || twinId === undefined) continue;
      documents.push({
        kind: "Integration",
        name: `${api.protocol.toLowerCase()}-alias-${index}`,
        api: ref,
        spec: { integrationId: twinId, integrationType: integration.integrationType, ...integration.aliasFields },
      });
    }
    if (api.managedIntegration !== "none") {
      const key = { integrationType: "HTTP_PROXY", integrationUri: MANAGED_URI, integrationMethod: "ANY" };
      documents.push({
        kind: "Integration",
        name: "managed-integration",
        api: ref,
        ...(api.managedIntegration === "absent" ? { ensure: "absent", spec: key } : { spec: { ...key, payloadFormatVersion: "1.0", description: "adopted managed integration", timeoutInMillis: 12_000 } }),
      });
    }
    for (const route of api.routes) {
      if (route.desired === "none") continue;
      if (route.desired === "absent") {
        documents.push({ kind: "Route", api: ref, ensure: "absent", spec: { routeKey: route.routeKey } });
        continue;
      }
      let target: unknown;
      if (route.target === "null") target = null;
      else if (route.target !== "omit" && presentIndexes.length > 0) target = { integration: names(presentIndexes[route.target.integration % presentIndexes.length]!) };
      documents.push({ kind: "Route", api: ref, spec: { routeKey: route.routeKey, ...route.fields, ...(target !== undefined ? { target } : {}) } });
    }
    if (api.apiDocument) {
      documents.push({ kind: "Api", api: ref, spec: { prune: api.apiDocument.prune, ...(api.apiDocument.declareProtocol ? { protocolType: api.protocol } : {}) } });
    }
    if (documents.length === 0) continue;
    if (scenario.jsonFiles && api.protocol === "WEBSOCKET") files[`${api.protocol.toLowerCase()}.json`] = JSON.stringify(documents, null, 2);
    else files[`${api.protocol.toLowerCase()}.yaml`] = documents.map((document) => stringify(document)).join("---\n");
  }
  const accountDocuments: unknown[] = [];
  for (const contact of scenario.contacts) {
    if (contact.desired === "none") continue;
    accountDocuments.push({
      kind: "AlternateContact",
      ...(contact.account ? { account: contact.account } : {}),
      ...(contact.desired === "absent" ? { ensure: "absent", spec: { type: contact.type } } : { spec: { type: contact.type, ...contact.contact } }),
    });
  }
  for (const region of scenario.regions) {
    accountDocuments.push({ kind: "RegionOptIn", ...(region.account ? { account: region.account } : {}), spec: { region: region.region, enabled: region.enabled } });
  }
  // an empty desired state is not valid input; one known document keeps every scenario loadable
  if (accountDocuments.length === 0) accountDocuments.push({ kind: "RegionOptIn", spec: { region: "us-east-1", enabled: true } });
  files["accounts.yaml"] = accountDocuments.map((document) => stringify(document)).join("---\n");
  return files;
}
