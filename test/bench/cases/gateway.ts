import { request } from "undici";
import type { BenchCase, BenchService, LoadRequest } from "../bench-case.js";

async function gatewayCall(service: BenchService, method: "POST" | "GET", path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await request(service.url + path, {
    method,
    headers: { authorization: `Bearer ${service.token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.body.json()) as Record<string, unknown>;
  if (response.statusCode >= 300) throw new Error(`bench setup: ${method} ${path} answered ${response.statusCode} ${JSON.stringify(json)}`);
  return json;
}

/** An HTTP API with `integrations` integrations and one JWT route targeting the first. */
export async function seedApi(service: BenchService, integrations: number): Promise<{ apiId: string; routeId: string }> {
  const api = await gatewayCall(service, "POST", "/v2/apis", { name: "bench", protocolType: "HTTP" });
  const apiId = api.apiId as string;
  let firstIntegration = "";
  for (let i = 0; i < integrations; i += 1) {
    const integration = await gatewayCall(service, "POST", `/v2/apis/${apiId}/integrations`, {
      integrationType: "HTTP_PROXY",
      integrationUri: `https://backend-${i}.example/api`,
      integrationMethod: "ANY",
      payloadFormatVersion: "1.0",
      requestParameters: { "overwrite:header.x-tenant": "$context.authorizer.claims.tenant" },
    });
    firstIntegration ||= integration.integrationId as string;
  }
  const route = await gatewayCall(service, "POST", `/v2/apis/${apiId}/routes`, {
    routeKey: "GET /orders/{id}",
    target: `integrations/${firstIntegration}`,
    authorizationType: "JWT",
    authorizerId: "jwtauth1",
    authorizationScopes: ["orders.read"],
  });
  return { apiId, routeId: route.routeId as string };
}

function get(service: BenchService, path: string): LoadRequest {
  return { method: "GET", path, headers: { authorization: `Bearer ${service.token}` } };
}

/** Gateway service cases: one route, and a page of 100 integrations. */
export const GATEWAY_CASES = [
  {
    name: "GetRoute",
    description: "GET /v2/apis/{apiId}/routes/{routeId}, a JWT route",
    goal: { minRequestsPerSecond: 5_000 },
    async setup(service) {
      const { apiId, routeId } = await seedApi(service, 1);
      return get(service, `/v2/apis/${apiId}/routes/${routeId}`);
    },
  },
  {
    name: "GetIntegrations",
    description: "GET /v2/apis/{apiId}/integrations?maxResults=100, 100 integrations in one page",
    async setup(service) {
      const { apiId } = await seedApi(service, 100);
      return get(service, `/v2/apis/${apiId}/integrations?maxResults=100`);
    },
  },
] as const satisfies ReadonlyArray<BenchCase>;
