import { stringify } from "yaml";
import type { WorldInput } from "../../../src/service/index.js";
import { MEMBER_ACCOUNTS } from "./reconcile-harness.js";

/**
 * A moderate estate for the chaos and crash tests: an HTTP API (quick-created, so it also holds a
 * service-managed `$default` route and integration) and a WebSocket API, each with `size`
 * integrations and `size` routes targeting them by logical name; alternate contacts in the caller's
 * account and both member accounts; Region opt-ins and an opt-out across accounts.
 */
export const ESTATE_HTTP_API_ID = "estatehttp";
export const ESTATE_WS_API_ID = "estatews01";
const ESTATE_WS_API_NAME = "estate-ws";

/** The world's `apis` entries the estate documents refer to. */
export const ESTATE_APIS: NonNullable<WorldInput["apis"]> = [
  { apiId: ESTATE_HTTP_API_ID, name: "estate-http", protocolType: "HTTP", target: "https://quick.backend.example/api" },
  { apiId: ESTATE_WS_API_ID, name: ESTATE_WS_API_NAME, protocolType: "WEBSOCKET", routeSelectionExpression: "$request.body.action" },
];
export const ESTATE_API_IDS = [ESTATE_HTTP_API_ID, ESTATE_WS_API_ID] as const;

const HTTP_METHODS = ["ANY", "GET", "POST", "PUT"] as const;
const WS_ROUTE_KEYS = ["$connect", "$disconnect", "$default"];

/** The estate's desired-state files (name → YAML text). */
export function estateFiles(size = 8): Record<string, string> {
  const http = ESTATE_HTTP_API_ID;
  const ws = { name: ESTATE_WS_API_NAME };
  const httpDocuments: unknown[] = [{ kind: "Api", api: http, spec: { protocolType: "HTTP" } }];
  const wsDocuments: unknown[] = [{ kind: "Api", api: ws, spec: { protocolType: "WEBSOCKET" } }];
  for (let i = 0; i < size; i += 1) {
    httpDocuments.push({
      kind: "Integration",
      name: `http-backend-${i}`,
      api: http,
      spec: {
        integrationType: "HTTP_PROXY",
        integrationUri: `https://svc-${i}.internal.example/api`,
        integrationMethod: HTTP_METHODS[i % HTTP_METHODS.length],
        payloadFormatVersion: i % 2 === 0 ? "1.0" : "2.0",
        timeoutInMillis: 1000 + i * 1000,
        ...(i % 3 === 0 ? { description: `backend ${i}` } : {}),
        ...(i % 4 === 1 ? { requestParameters: { "overwrite:header.x-backend": `b${i}` } } : {}),
      },
    });
    httpDocuments.push({
      kind: "Route",
      name: `http-route-${i}`,
      api: http,
      spec: {
        routeKey: `${HTTP_METHODS[(i + 1) % HTTP_METHODS.length]} /resource-${i}`,
        target: { integration: `http-backend-${i}` },
        ...(i % 3 === 2 ? { authorizationType: "JWT", authorizerId: `jwt${i}`, authorizationScopes: ["read", `scope-${i}`] } : {}),
        ...(i % 4 === 3 ? { operationName: `operation${i}` } : {}),
      },
    });
    wsDocuments.push({
      kind: "Integration",
      name: `ws-backend-${i}`,
      api: ws,
      spec: {
        integrationType: i % 3 === 0 ? "MOCK" : i % 3 === 1 ? "HTTP_PROXY" : "HTTP",
        integrationUri: `https://ws-${i}.internal.example/events`,
        integrationMethod: "POST",
        timeoutInMillis: 500 + i * 500,
        ...(i % 2 === 0 ? { passthroughBehavior: "WHEN_NO_MATCH", requestTemplates: { "application/json": `{"n": ${i}}` } } : {}),
        ...(i % 3 === 1 ? { requestParameters: { "integration.request.header.x-id": "method.request.header.x-id" } } : {}),
      },
    });
    wsDocuments.push({
      kind: "Route",
      name: `ws-route-${i}`,
      api: ws,
      spec: {
        routeKey: WS_ROUTE_KEYS[i] ?? `action${i}`,
        target: { integration: `ws-backend-${i}` },
        ...(i % 2 === 1 ? { apiKeyRequired: true } : {}),
        ...(i % 3 === 0 ? { routeResponseSelectionExpression: "$default" } : {}),
      },
    });
  }
  const [member, delegated] = MEMBER_ACCOUNTS;
  const accountDocuments: unknown[] = [
    contact(undefined, "BILLING", "Billing Team"),
    contact(undefined, "OPERATIONS", "Ops Team"),
    contact(member, "SECURITY", "Member Security"),
    contact(member, "BILLING", "Member Billing"),
    contact(delegated, "OPERATIONS", "Delegated Ops"),
    contact(delegated, "SECURITY", "Delegated Security"),
    { kind: "RegionOptIn", spec: { region: "ap-east-1", enabled: true } },
    { kind: "RegionOptIn", account: member, spec: { region: "af-south-1", enabled: true } },
    { kind: "RegionOptIn", account: delegated, spec: { region: "me-south-1", enabled: false } },
    { kind: "RegionOptIn", account: delegated, spec: { region: "us-east-1", enabled: true } },
  ];
  return {
    "accounts.yaml": toYaml(accountDocuments),
    "http-api.yaml": toYaml(httpDocuments),
    "websocket-api.json": JSON.stringify(wsDocuments, null, 2),
  };
}

function contact(account: string | undefined, type: string, name: string): unknown {
  const slug = name.toLowerCase().replace(/\s+/g, ".");
  return {
    kind: "AlternateContact",
    ...(account ? { account } : {}),
    spec: { type, name, title: `${name} lead`, emailAddress: `${slug}@example.com`, phoneNumber: "+1 555 0100" },
  };
}

function toYaml(documents: ReadonlyArray<unknown>): string {
  return documents.map((document) => stringify(document)).join("---\n");
}

/** What the live estate must hold once converged, per API: declared integrations and routes, plus the managed pair of the quick-created HTTP API. */
export function expectedEstateCounts(size = 8): Record<string, { integrations: number; routes: number }> {
  return {
    [ESTATE_HTTP_API_ID]: { integrations: size + 1, routes: size + 1 },
    [ESTATE_WS_API_ID]: { integrations: size, routes: size },
  };
}
