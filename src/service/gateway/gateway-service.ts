import {
  DEFAULT_HTTP_ROUTE_SELECTION_EXPRESSION,
  DEFAULT_PAGE_SIZE,
  GATEWAY_OPERATIONS,
  ListQuery,
  integrationProtocolIssues,
  integrationServerDefaults,
  routeProtocolIssues,
  routeServerDefaults,
  type Api,
  type CreateApiInput,
  type Integration,
  type ProtocolType,
  type Route,
} from "../../contract/gateway.js";
import type { FieldIssue } from "../../contract/field-issues.js";
import { MAX_INTEGRATIONS_PER_API, MAX_ROUTES_PER_API } from "../../contract/service-limits.js";
import { invalidFields, operationsOf, parseInput, type Operation, type OperationCall, type OperationReply } from "../operation.js";
import type { PageTokens } from "../page-token.js";
import { gatewayDialect, gatewayErrors } from "../service-error.js";
import type { Store } from "../store.js";
import { defaultApiOwner, type World } from "../world.js";
import { GatewayState, gatewayMutations, type ApiRecord, type StoredApi } from "./gateway-state.js";

/** Routes and integrations an API may hold (docs/manual/reference.md, "Limits"): the contract's, re-exported where the service's tests find them. */
export { MAX_INTEGRATIONS_PER_API, MAX_ROUTES_PER_API } from "../../contract/service-limits.js";

/** The embedded API gateway service: APIs, routes and integrations of HTTP and WebSocket APIs. */
export class GatewayService {
  readonly #state = new GatewayState();
  readonly #store: Store;
  readonly #tokens: PageTokens;

  constructor(store: Store, tokens: PageTokens) {
    this.#store = store;
    this.#tokens = tokens;
    store.register("apis", this.#state.apiCollection);
    store.register("routes", this.#state.routeCollection);
    store.register("integrations", this.#state.integrationCollection);
  }

  /** Creates the world's APIs (quick-creating those with a `target`); call before the store is attached. */
  async seed(world: World): Promise<void> {
    const owner = defaultApiOwner(world);
    for (const entry of world.apis) {
      const accountId = entry.accountId ?? owner;
      if (!accountId) throw new Error(`world api ${JSON.stringify(entry.name)} has no owner: give it an accountId, or declare an account or identity`);
      await this.#store.commit(this.#createApiMutations(accountId, entry, entry.apiId));
    }
  }

  operations(): Operation[] {
    return operationsOf("apigateway", GATEWAY_OPERATIONS, {
      CreateApi: (call) => this.#createApi(call),
      GetApis: (call) => this.#getApis(call),
      GetApi: (call) => ({ status: 200, body: this.#api(call).stored.api }),
      DeleteApi: (call) => this.#deleteApi(call),
      CreateRoute: (call) => this.#createRoute(call),
      GetRoutes: (call) => this.#getRoutes(call),
      GetRoute: (call) => this.#getRoute(call),
      UpdateRoute: (call) => this.#updateRoute(call),
      DeleteRoute: (call) => this.#deleteRoute(call),
      CreateIntegration: (call) => this.#createIntegration(call),
      GetIntegrations: (call) => this.#getIntegrations(call),
      GetIntegration: (call) => this.#getIntegration(call),
      UpdateIntegration: (call) => this.#updateIntegration(call),
      DeleteIntegration: (call) => this.#deleteIntegration(call),
    });
  }

  // --- APIs -------------------------------------------------------------------------------

  async #createApi(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(GATEWAY_OPERATIONS.CreateApi.request, call.body, gatewayDialect);
    const issues: FieldIssue[] = [];
    if (input.protocolType === "WEBSOCKET" && input.routeSelectionExpression === undefined) {
      issues.push({ name: "routeSelectionExpression", message: 'routeSelectionExpression is required for a WEBSOCKET API (e.g. "$request.body.action")' });
    }
    if (input.protocolType === "WEBSOCKET" && input.target !== undefined) {
      issues.push({ name: "target", message: "target (quick create) is for HTTP APIs only; this API is a WebSocket API" });
    }
    if (issues.length > 0) throw invalidFields(gatewayDialect, issues);
    const mutations = this.#createApiMutations(call.identity.accountId, input);
    await this.#store.commit(mutations);
    return { status: 201, body: (mutations[0]!.value as StoredApi).api };
  }

  /** The mutations that create an API, and with `target` its managed `$default` route and integration. */
  #createApiMutations(owner: string, input: CreateApiInput, apiId = this.#state.newApiId()) {
    const api: Api = {
      apiId,
      name: input.name,
      protocolType: input.protocolType,
      routeSelectionExpression: input.routeSelectionExpression ?? DEFAULT_HTTP_ROUTE_SELECTION_EXPRESSION,
      apiEndpoint: `${input.protocolType === "HTTP" ? "https" : "wss"}://${apiId}.execute-api.converge.local`,
      createdDate: new Date().toISOString(),
    };
    const mutations = [gatewayMutations.api(apiId, { api, owner, seq: this.#state.takeSeq() })];
    if (input.target !== undefined) {
      const isUrl = /^https?:\/\//i.test(input.target);
      const integration: Integration = {
        integrationId: this.#state.newChildId(),
        integrationType: isUrl ? "HTTP_PROXY" : "CLOUD_PROXY",
        integrationUri: input.target,
        integrationMethod: isUrl ? "ANY" : "POST",
        payloadFormatVersion: isUrl ? "1.0" : "2.0",
        apiGatewayManaged: true,
      };
      const route: Route = {
        routeId: this.#state.newChildId(),
        routeKey: "$default",
        target: `integrations/${integration.integrationId}`,
        apiGatewayManaged: true,
      };
      mutations.push(gatewayMutations.integration(apiId, integration.integrationId, { integration, seq: this.#state.takeSeq() }));
      mutations.push(gatewayMutations.route(apiId, route.routeId, { route, seq: this.#state.takeSeq() }));
    }
    return mutations;
  }

  #getApis(call: OperationCall): OperationReply {
    const owned = [...this.#state.apis.values()].filter((record) => record.stored.owner === call.identity.accountId).map((record) => record.stored);
    const page = this.#page(`GetApis\u0000${call.identity.accountId}`, call.query, owned);
    return { status: 200, body: { items: page.items.map((stored) => stored.api), ...page.next } };
  }

  async #deleteApi(call: OperationCall): Promise<OperationReply> {
    const record = this.#api(call);
    const apiId = record.stored.api.apiId;
    await this.#store.commit([
      ...[...record.routes.keys()].map((id) => gatewayMutations.route(apiId, id, null)),
      ...[...record.integrations.keys()].map((id) => gatewayMutations.integration(apiId, id, null)),
      gatewayMutations.api(apiId, null),
    ]);
    return { status: 204 };
  }

  /** The API named by the path, if the caller's account owns it; else 404. */
  #api(call: OperationCall): ApiRecord {
    const apiId = call.params.apiId ?? "";
    const record = this.#state.apis.get(apiId);
    if (!record || record.stored.owner !== call.identity.accountId) {
      throw gatewayErrors.notFound("Api", `API ${JSON.stringify(apiId)} was not found in account ${call.identity.accountId}`);
    }
    return record;
  }

  // --- routes -----------------------------------------------------------------------------

  async #createRoute(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(GATEWAY_OPERATIONS.CreateRoute.request, call.body, gatewayDialect);
    const record = this.#api(call);
    const protocol = record.stored.api.protocolType;
    const issues = [...routeProtocolIssues(protocol, input), ...this.#targetIssues(record, input.target)];
    if (issues.length > 0) throw invalidFields(gatewayDialect, issues);
    this.#requireUniqueRouteKey(record, input.routeKey, undefined);
    if (record.routes.size >= MAX_ROUTES_PER_API) {
      throw gatewayErrors.conflict(`API ${record.stored.api.apiId} already has ${MAX_ROUTES_PER_API} routes, the most an API may hold`);
    }
    const route: Route = { routeId: this.#state.newChildId(), ...definedFields(input) } as Route;
    await this.#store.commit([gatewayMutations.route(record.stored.api.apiId, route.routeId, { route, seq: this.#state.takeSeq() })]);
    return { status: 201, body: renderRoute(protocol, route) };
  }

  #getRoutes(call: OperationCall): OperationReply {
    const record = this.#api(call);
    const page = this.#page(`GetRoutes\u0000${record.stored.api.apiId}`, call.query, [...record.routes.values()]);
    const protocol = record.stored.api.protocolType;
    return { status: 200, json: listJson(page.items.map((stored) => cachedJson(stored, () => renderRoute(protocol, stored.route))), page.next) };
  }

  #getRoute(call: OperationCall): OperationReply {
    const record = this.#api(call);
    const stored = this.#route(record, call);
    return { status: 200, json: cachedJson(stored, () => renderRoute(record.stored.api.protocolType, stored.route)) };
  }

  async #updateRoute(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(GATEWAY_OPERATIONS.UpdateRoute.request, call.body, gatewayDialect);
    const record = this.#api(call);
    const stored = this.#route(record, call);
    const protocol = record.stored.api.protocolType;
    const updated = applyPatch(stored.route, input);
    const issues = [...routeProtocolIssues(protocol, updated), ...this.#targetIssues(record, input.target ?? undefined)];
    if (issues.length > 0) throw invalidFields(gatewayDialect, issues);
    if (input.routeKey !== undefined && input.routeKey !== stored.route.routeKey) {
      if (stored.route.apiGatewayManaged) {
        throw gatewayErrors.conflict(`route ${stored.route.routeId} is managed by the service (quick create): `
          + `its route key ${JSON.stringify(stored.route.routeKey)} cannot be changed`);
      }
      this.#requireUniqueRouteKey(record, input.routeKey, stored.route.routeId);
    }
    await this.#store.commit([gatewayMutations.route(record.stored.api.apiId, stored.route.routeId, { route: updated, seq: stored.seq })]);
    return { status: 200, body: renderRoute(protocol, updated) };
  }

  async #deleteRoute(call: OperationCall): Promise<OperationReply> {
    const record = this.#api(call);
    const stored = this.#route(record, call);
    await this.#store.commit([gatewayMutations.route(record.stored.api.apiId, stored.route.routeId, null)]);
    return { status: 204 };
  }

  #route(record: ApiRecord, call: OperationCall) {
    const routeId = call.params.routeId ?? "";
    const stored = record.routes.get(routeId);
    if (!stored) throw gatewayErrors.notFound("Route", `route ${JSON.stringify(routeId)} was not found in API ${record.stored.api.apiId}`);
    return stored;
  }

  #requireUniqueRouteKey(record: ApiRecord, routeKey: string, exceptRouteId: string | undefined): void {
    for (const { route } of record.routes.values()) {
      if (route.routeKey === routeKey && route.routeId !== exceptRouteId) {
        throw gatewayErrors.conflict(`API ${record.stored.api.apiId} already has a route with key ${JSON.stringify(routeKey)} (route ${route.routeId})`);
      }
    }
  }

  /** A route target must be `integrations/<id>` naming an integration of the same API. */
  #targetIssues(record: ApiRecord, target: string | undefined): FieldIssue[] {
    if (target === undefined) return [];
    const match = /^integrations\/([a-z0-9]+)$/.exec(target);
    if (!match) return [{ name: "target", message: `target ${JSON.stringify(target)} is not valid: expected "integrations/<integrationId>"` }];
    if (!record.integrations.has(match[1]!)) {
      return [{ name: "target", message: `target ${JSON.stringify(target)} names no integration of API ${record.stored.api.apiId}` }];
    }
    return [];
  }

  // --- integrations -----------------------------------------------------------------------

  async #createIntegration(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(GATEWAY_OPERATIONS.CreateIntegration.request, call.body, gatewayDialect);
    const record = this.#api(call);
    const protocol = record.stored.api.protocolType;
    const issues = integrationProtocolIssues(protocol, input);
    if (issues.length > 0) throw invalidFields(gatewayDialect, issues);
    if (record.integrations.size >= MAX_INTEGRATIONS_PER_API) {
      throw gatewayErrors.conflict(`API ${record.stored.api.apiId} already has ${MAX_INTEGRATIONS_PER_API} integrations, the most an API may hold`);
    }
    const integration = { integrationId: this.#state.newChildId(), ...definedFields(input) } as Integration;
    await this.#store.commit([gatewayMutations.integration(record.stored.api.apiId, integration.integrationId, { integration, seq: this.#state.takeSeq() })]);
    return { status: 201, body: renderIntegration(protocol, integration) };
  }

  #getIntegrations(call: OperationCall): OperationReply {
    const record = this.#api(call);
    const page = this.#page(`GetIntegrations\u0000${record.stored.api.apiId}`, call.query, [...record.integrations.values()]);
    const protocol = record.stored.api.protocolType;
    return { status: 200, json: listJson(page.items.map((stored) => cachedJson(stored, () => renderIntegration(protocol, stored.integration))), page.next) };
  }

  #getIntegration(call: OperationCall): OperationReply {
    const record = this.#api(call);
    const stored = this.#integration(record, call);
    return { status: 200, json: cachedJson(stored, () => renderIntegration(record.stored.api.protocolType, stored.integration)) };
  }

  async #updateIntegration(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(GATEWAY_OPERATIONS.UpdateIntegration.request, call.body, gatewayDialect);
    const record = this.#api(call);
    const stored = this.#integration(record, call);
    const protocol = record.stored.api.protocolType;
    const updated = applyPatch(stored.integration, input);
    const issues = integrationProtocolIssues(protocol, updated);
    if (issues.length > 0) throw invalidFields(gatewayDialect, issues);
    await this.#store.commit([gatewayMutations.integration(record.stored.api.apiId, updated.integrationId, { integration: updated, seq: stored.seq })]);
    return { status: 200, body: renderIntegration(protocol, updated) };
  }

  async #deleteIntegration(call: OperationCall): Promise<OperationReply> {
    const record = this.#api(call);
    const { integration } = this.#integration(record, call);
    if (integration.apiGatewayManaged) {
      throw gatewayErrors.conflict(`integration ${integration.integrationId} is managed by the service (quick create): it may be updated but not deleted`);
    }
    const target = `integrations/${integration.integrationId}`;
    const targeting = [...record.routes.values()].filter(({ route }) => route.target === target).map(({ route }) => `${route.routeId} (${route.routeKey})`);
    if (targeting.length > 0) {
      throw gatewayErrors.conflict(`integration ${integration.integrationId} is the target of route${targeting.length > 1 ? "s" : ""} `
        + `${targeting.join(", ")}: retarget or delete ${targeting.length > 1 ? "them" : "it"} first`);
    }
    await this.#store.commit([gatewayMutations.integration(record.stored.api.apiId, integration.integrationId, null)]);
    return { status: 204 };
  }

  #integration(record: ApiRecord, call: OperationCall) {
    const integrationId = call.params.integrationId ?? "";
    const stored = record.integrations.get(integrationId);
    if (!stored) throw gatewayErrors.notFound("Integration", `integration ${JSON.stringify(integrationId)} was not found in API ${record.stored.api.apiId}`);
    return stored;
  }

  // --- listings ---------------------------------------------------------------------------

  /**
   * One page of a listing in creation order. The token holds the sequence number of the last item
   * returned, so items created or deleted between pages never make a survivor skip or repeat.
   */
  #page<T extends { readonly seq: number }>(scope: string, query: Readonly<Record<string, string>>, items: ReadonlyArray<T>) {
    const input = parseInput(ListQuery, query, gatewayDialect);
    const limit = input.maxResults === undefined ? DEFAULT_PAGE_SIZE : Number(input.maxResults);
    let after = 0;
    if (input.nextToken !== undefined && input.nextToken !== "") {
      const position = this.#tokens.read(scope, input.nextToken);
      if (position === undefined || !/^\d+$/.test(position)) {
        throw gatewayErrors.badRequest("nextToken is not valid: it was altered or belongs to another listing; "
          + "pass the nextToken of the previous response unchanged");
      }
      after = Number(position);
    }
    const start = items.findIndex((item) => item.seq > after);
    const selected = start === -1 ? [] : items.slice(start, start + limit);
    const more = start !== -1 && start + limit < items.length;
    const last = selected[selected.length - 1];
    return { items: selected, next: more && last ? { nextToken: this.#tokens.issue(scope, String(last.seq)) } : {} };
  }
}

/**
 * The answer JSON of a stored route or integration. Stored objects are never mutated (an update
 * stores a new one) and an API's protocol never changes, so the text can be cached per object.
 */
const renderedJson = new WeakMap<object, string>();
function cachedJson(stored: object, render: () => unknown): string {
  let text = renderedJson.get(stored);
  if (text === undefined) {
    text = JSON.stringify(render());
    renderedJson.set(stored, text);
  }
  return text;
}

function listJson(items: ReadonlyArray<string>, next: { nextToken?: string }): string {
  return `{"items":[${items.join(",")}]${next.nextToken === undefined ? "" : `,"nextToken":${JSON.stringify(next.nextToken)}`}}`;
}

/** Drops `undefined` fields so that stored resources hold only what was set. */
function definedFields<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** PATCH: an absent field is unchanged, `null` removes it, anything else replaces it. */
function applyPatch<T extends object>(current: T, patch: object): T {
  const next: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next as T;
}

/** A route as the API answers it: what was set, plus server defaults. */
function renderRoute(protocol: ProtocolType, route: Route): Route {
  return { ...routeServerDefaults(protocol), ...route, apiGatewayManaged: route.apiGatewayManaged ?? false };
}

/** An integration as the API answers it: what was set, plus server defaults. */
function renderIntegration(protocol: ProtocolType, integration: Integration): Integration {
  return { ...integrationServerDefaults(protocol), ...integration, apiGatewayManaged: integration.apiGatewayManaged ?? false } as Integration;
}
