import { timeoutsOfDeadline } from "../clients/answer-limits.js";
import type { ApiError } from "../clients/index.js";
import { API_DATA_SOURCE, apiDataSource } from "./data-sources/api.js";
import { REGIONS_DATA_SOURCE, regionsDataSource } from "./data-sources/regions.js";
import { resourcesByTypeName } from "./kind-resource/index.js";
import type { LiveCache } from "./live-cache.js";
import { alternateContactResource } from "./resources/alternate-contact.js";
import { integrationResource } from "./resources/integration.js";
import { regionOptInResource } from "./resources/region-opt-in.js";
import { routeResource } from "./resources/route.js";
import { ENDPOINTS, origin, requestTimeout, validateProviderConfig } from "./provider-config.js";
import { DiagnosticsError, errorDiagnostic, isUnknown, types, type Diagnostic, type ProviderDefinition, type Schema } from "./runtime/index.js";
import { SessionPlans, type ConvergeSession } from "./converge-session.js";

const schema: Schema = {
  description: "converge: alternate contacts, Region opt-ins, and the routes and integrations of HTTP and WebSocket APIs.",
  attributes: {
    endpoint: { type: types.string, optional: true, description: "Origin of both services (e.g. `http://127.0.0.1:4566`); default `CONVERGE_ENDPOINT`." },
    account_endpoint: { type: types.string, optional: true, description: "Origin of the account service, when it differs from `endpoint`." },
    gateway_endpoint: { type: types.string, optional: true, description: "Origin of the API gateway service, when it differs from `endpoint`." },
    token: { type: types.string, optional: true, sensitive: true, description: "Bearer token; default `CONVERGE_TOKEN`. Never written to state, plans or logs." },
    request_timeout: {
      type: types.number,
      optional: true,
      description: "Seconds one request to the services may take, its whole answer included, before it fails (a read is retried); default `CONVERGE_REQUEST_TIMEOUT`, else 60.",
    },
  },
};

/**
 * One request that tells whether the endpoint answers and takes the token, made in configure so
 * that a bad endpoint or token is one diagnostic, not one per resource: the listing of the caller's
 * APIs, which the provider needs anyway (their protocols spare a GetApi each). A token that may not
 * list APIs may still manage contacts and Regions: then one ListRegions page tells.
 */
async function checkAccess(cache: LiveCache, endpoints: Readonly<Record<"gateway" | "account", Endpoint>>): Promise<Diagnostic | undefined> {
  const { isApiError, isConvergeError } = await import("../clients/index.js");
  const unusable = (error: unknown, endpoint: Endpoint): Diagnostic => {
    if (!isConvergeError(error)) throw error;
    return errorDiagnostic(`cannot use the service at ${endpoint.origin}`, error.message, [endpoint.attribute]);
  };
  const refused = (error: ApiError, services: string) => errorDiagnostic(
    `the ${services} refused the token: ${error.status} ${error.errorName}`,
    `${error.message}. Check the provider's token (or CONVERGE_TOKEN).`,
    ["token"],
  );
  try {
    await cache.directory();
    return undefined;
  } catch (error) {
    if (isApiError(error) && error.status === 403) {
      try {
        await cache.clients.account.listRegionsPage({ MaxResults: 1 });
        return undefined;
      } catch (accountError) {
        if (isApiError(accountError) && accountError.status === 403) return refused(accountError, "account and API gateway services both");
        return unusable(accountError, endpoints.account);
      }
    }
    return unusable(error, endpoints.gateway);
  }
}

/** An origin and the attribute that gave it (`endpoint` also when CONVERGE_ENDPOINT did). */
interface Endpoint {
  readonly origin: string;
  readonly attribute: string;
}

/** The converge provider: its configuration, and its resources and data sources by terraform's names. */
export const convergeProvider: ProviderDefinition<Schema, ConvergeSession> = {
  name: "converge",
  schema,
  validate: ({ config }) => validateProviderConfig(config),
  async configure({ config, log }) {
    const found = Object.fromEntries(ENDPOINTS.map((attribute) => [attribute, origin(config[attribute], attribute)]));
    const fromEnvironment = origin(process.env.CONVERGE_ENDPOINT || null, "endpoint");
    const deadline = requestTimeout(config.request_timeout);
    const problems = [...Object.values(found), deadline].filter((value): value is Diagnostic => typeof value === "object");
    if (problems.length > 0) throw new DiagnosticsError(problems);
    const endpoint = (found.endpoint as string | undefined) ?? fromEnvironment;
    if (typeof endpoint === "object") throw new DiagnosticsError({ ...endpoint, summary: `CONVERGE_ENDPOINT: ${endpoint.summary}` });
    const at = (attribute: "gateway_endpoint" | "account_endpoint"): Endpoint | undefined => {
      const own = found[attribute] as string | undefined;
      return own !== undefined ? { origin: own, attribute } : endpoint === undefined ? undefined : { origin: endpoint, attribute: "endpoint" };
    };
    const gateway = at("gateway_endpoint");
    const account = at("account_endpoint");
    if (gateway === undefined || account === undefined) {
      throw new DiagnosticsError(errorDiagnostic("no endpoint to reach the services", 'Set endpoint in the provider block (e.g. endpoint = "http://127.0.0.1:4566") or the CONVERGE_ENDPOINT environment variable.', ["endpoint"]));
    }
    if (isUnknown(config.token ?? null)) throw new DiagnosticsError(errorDiagnostic("token is not known until apply: the provider needs it to plan", undefined, ["token"]));
    const token = typeof config.token === "string" ? { value: config.token, source: "the provider's token" } : process.env.CONVERGE_TOKEN ? { value: process.env.CONVERGE_TOKEN, source: "CONVERGE_TOKEN" } : undefined;
    if (!token) throw new DiagnosticsError(errorDiagnostic("no token to call the services with", "Set token in the provider block, or the CONVERGE_TOKEN environment variable.", ["token"]));
    // the clients load here, not with the definition: terraform reads schemas and validates with a provider it never configures
    const [{ Credentials, isCredentialsError }, { LiveCache }] = await Promise.all([import("../clients/index.js"), import("./live-cache.js")]);
    let credentials: InstanceType<typeof Credentials>;
    try {
      credentials = new Credentials(token.value, token.source);
    } catch (error) {
      if (isCredentialsError(error)) throw new DiagnosticsError(errorDiagnostic(error.message, undefined, ["token"]));
      throw error;
    }
    const requestMs = deadline as number | undefined;
    const cache = new LiveCache({
      endpoint: gateway.origin,
      gatewayEndpoint: gateway.origin,
      accountEndpoint: account.origin,
      credentials,
      ...(requestMs !== undefined ? { timeouts: timeoutsOfDeadline(requestMs) } : {}),
    });
    const problem = await checkAccess(cache, { gateway, account });
    if (problem) {
      await cache.close();
      throw new DiagnosticsError(problem);
    }
    log.debug("configured", { gateway: gateway.origin, account: account.origin });
    return { cache, clients: cache.clients, log, held: new Set<string>(), plans: new SessionPlans() };
  },
  resources: resourcesByTypeName([alternateContactResource, regionOptInResource, integrationResource, routeResource]),
  dataSources: {
    [API_DATA_SOURCE]: apiDataSource,
    [REGIONS_DATA_SOURCE]: regionsDataSource,
  },
};
