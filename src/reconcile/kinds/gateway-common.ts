import { apiKeyOf } from "../live-keys.js";
import { protocolProblems, type GatewayDocument, type GatewayRules } from "../../desired/kinds/gateway-checks.js";
import { problemAt } from "../../desired/kinds/kind-model.js";
import type { LoadedDocument } from "../../desired/load.js";
import type { Integration, ProtocolType, Route } from "../../contract/gateway.js";
import { collect, isNotFound } from "../../clients/index.js";
import type { LiveApi, LiveNeed } from "../model.js";
import type { KindPlan, PlanContext, ReadKeySource } from "./kind-engine.js";

export function routeAddress(apiId: string, routeKey: string): string {
  return `Route/${apiId}/${routeKey}`;
}

export function integrationAddress(apiId: string, name: string): string {
  return `Integration/${apiId}/${name}`;
}

/**
 * The start of planning a route or integration: its API resolved, the live protocol's rules
 * checked. Either the planning inputs, or the plan that reports why there are none.
 */
export function resolveGatewayDocument(
  loaded: LoadedDocument<GatewayDocument>,
  rules: GatewayRules,
  context: PlanContext,
): { readonly apiId: string; readonly protocolType: ProtocolType | undefined; readonly liveApi: LiveApi } | { readonly failed: KindPlan } {
  const resolved = context.resolveApi(loaded.document.api);
  if ("problem" in resolved) return { failed: { actions: [], problems: [problemAt(loaded, ["api"], resolved.problem)] } };
  const { apiId, protocolType } = resolved;
  // the API a route or integration names is one its source manages (an Api document declares it too)
  context.declare(apiKeyOf(apiId));
  const problems = protocolType ? protocolProblems(loaded, rules, protocolType) : [];
  if (problems.length > 0) return { failed: { actions: [], problems } };
  return { apiId, protocolType, liveApi: context.live.apis[apiId]! };
}

/**
 * The `api` read key (Route, Integration and Api documents): an API's routes and integrations, two
 * paged listings side by side, after a GetApi when its protocol is not known yet. An API that does
 * not exist reads as nothing.
 */
export const apiSource: ReadKeySource<Extract<LiveNeed, { type: "api" }>> = {
  count: (need) => (need.protocolType ? 2 : 3),
  describe: (need) => (typeof need.ref === "string" ? `the routes and integrations of API ${need.ref}` : `the API named ${JSON.stringify(need.ref.name)}`),
  async read(need, { clients, signal, readDone }) {
    if (typeof need.ref !== "string") {
      throw new Error(`the API named ${JSON.stringify(need.ref.name)} is read by its apiId, once a listing of APIs resolved the name`);
    }
    const apiId = need.ref;
    let { protocolType, name } = need;
    if (!protocolType) {
      const api = await clients.gateway.getApi(apiId, { signal });
      readDone();
      if (!api) return {};
      protocolType = api.protocolType;
      name = api.name;
    }
    try {
      const [routes, integrations] = await Promise.all([
        collect(clients.gateway.routes(apiId, { signal })).finally(readDone),
        collect(clients.gateway.integrations(apiId, { signal })).finally(readDone),
      ]);
      return { apis: { [apiId]: { apiId, name, protocolType, routes, integrations } } };
    } catch (error) {
      if (!isNotFound(error, "Api")) throw error;
      return {};
    }
  },
  /**
   * A route or integration of the API written: the service's answer replaces its entry (a create
   * is added last, as listings are in creation order), a delete removes it; any other write to the
   * API (deleting it) is read again.
   */
  afterWrite(need, read, write) {
    if (write.service !== "apigateway" || write.parameters.apiId === undefined || write.parameters.apiId !== need.ref) return undefined;
    const api = read.apis?.[write.parameters.apiId];
    if (!api) return "reread";
    const answer = write.result as Readonly<Record<string, unknown>> | undefined;
    const childId = (field: "routeId" | "integrationId") => write.parameters[field]
      ?? (typeof answer?.[field] === "string" ? answer[field] as string : undefined);
    const routeId = childId("routeId");
    const integrationId = childId("integrationId");
    if (routeId !== undefined) return { apis: { [api.apiId]: { ...api, routes: replaced(api.routes, "routeId", routeId, answer as Route | undefined) } } };
    if (integrationId !== undefined) {
      return { apis: { [api.apiId]: { ...api, integrations: replaced(api.integrations, "integrationId", integrationId, answer as Integration | undefined) } } };
    }
    return "reread";
  },
};

/** A listing with the item of that ID replaced by `item` (added last when new), or removed when `item` is undefined. */
function replaced<T extends Readonly<Record<K, string>>, K extends string>(items: ReadonlyArray<T>, field: K, id: string, item: T | undefined): T[] {
  const index = items.findIndex((candidate) => candidate[field] === id);
  if (item === undefined) return index === -1 ? [...items] : [...items.slice(0, index), ...items.slice(index + 1)];
  return index === -1 ? [...items, item] : [...items.slice(0, index), item, ...items.slice(index + 1)];
}
