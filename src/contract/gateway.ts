import { z } from "zod";
import type { FieldIssue } from "./field-issues.js";
import { renderValue } from "./field-issues.js";
import type { OperationTable } from "./operation-table.js";

/**
 * Wire schemas of the API gateway service (docs/manual/embedded-service.md and docs/manual/reference.md), and the
 * per-protocol rules that the service enforces and the desired model checks before any call.
 * Field names are the wire's camelCase.
 */

export const PROTOCOL_TYPES = ["HTTP", "WEBSOCKET"] as const;
export const AUTHORIZATION_TYPES = ["NONE", "CLOUD_IAM", "CUSTOM", "JWT"] as const;
export const INTEGRATION_TYPES = ["CLOUD", "HTTP", "MOCK", "HTTP_PROXY", "CLOUD_PROXY"] as const;
export const CONNECTION_TYPES = ["INTERNET", "VPC_LINK"] as const;
export const PASSTHROUGH_BEHAVIORS = ["WHEN_NO_MATCH", "NEVER", "WHEN_NO_TEMPLATES"] as const;
export const CONTENT_HANDLING_STRATEGIES = ["CONVERT_TO_BINARY", "CONVERT_TO_TEXT"] as const;
export const HTTP_METHODS = ["ANY", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

export type ProtocolType = (typeof PROTOCOL_TYPES)[number];
export type AuthorizationType = (typeof AUTHORIZATION_TYPES)[number];

/** Authorization types each protocol accepts (docs/manual/reference.md). */
export const AUTHORIZATION_TYPES_BY_PROTOCOL: Readonly<Record<ProtocolType, ReadonlyArray<AuthorizationType>>> = {
  HTTP: ["NONE", "JWT", "CLOUD_IAM", "CUSTOM"],
  WEBSOCKET: ["NONE", "CLOUD_IAM", "CUSTOM"],
};

/** timeoutInMillis per protocol: range and default (docs/manual/reference.md). */
export const TIMEOUT_RANGE_BY_PROTOCOL: Readonly<Record<ProtocolType, { readonly min: number; readonly max: number; readonly default: number }>> = {
  HTTP: { min: 50, max: 30_000, default: 30_000 },
  WEBSOCKET: { min: 50, max: 29_000, default: 29_000 },
};

/**
 * What the service shows for route fields never set, per protocol (docs/manual/reference.md, "Reference: decisions
 * where the spec is silent": responses show server defaults). The reconciler treats these values as
 * absent, so they are never drift. An unknown protocol gives the defaults both protocols share.
 */
export function routeServerDefaults(protocol: ProtocolType | undefined): Readonly<Record<string, unknown>> {
  return protocol === "HTTP" ? { authorizationType: "NONE" } : { authorizationType: "NONE", apiKeyRequired: false };
}

/** What the service shows for integration fields never set, per protocol (see routeServerDefaults). */
export function integrationServerDefaults(protocol: ProtocolType | undefined): Readonly<Record<string, unknown>> {
  return { connectionType: "INTERNET", ...(protocol ? { timeoutInMillis: TIMEOUT_RANGE_BY_PROTOCOL[protocol].default } : {}) };
}

/** An API's ID as the service gives it: 10 lower-case letters or digits (e.g. `a1b2c3d4e5`). */
export const API_ID_PATTERN = /^[a-z0-9]{10}$/;
export const HTTP_ROUTE_KEY_PATTERN = /^(?:\$default|(?:ANY|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \/\S*)$/;
/** WebSocket integration requestParameters values: `method.request.{querystring|path|header}.{name}` or a static `'value'`. */
export const WEBSOCKET_PARAMETER_VALUE_PATTERN = /^(?:method\.request\.(?:querystring|path|header)\.[^\s.]+|'[^]*')$/;
/** HTTP integration requestParameters keys without a subtype: `<append|overwrite|remove>:<header|querystring|path>.<name>`. */
export const HTTP_PARAMETER_MAPPING_KEY_PATTERN = /^(?:append|overwrite|remove):(?:header|querystring|path)\.\S+$/;
export const STATUS_CODE_KEY_PATTERN = /^[2-5]\d\d$/;

const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `expected one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });

export const ProtocolType = enumOf(PROTOCOL_TYPES);
export const AuthorizationType = enumOf(AUTHORIZATION_TYPES);
export const IntegrationType = enumOf(INTEGRATION_TYPES);
export const ConnectionType = enumOf(CONNECTION_TYPES);
export const PassthroughBehavior = enumOf(PASSTHROUGH_BEHAVIORS);
export const ContentHandlingStrategy = enumOf(CONTENT_HANDLING_STRATEGIES);

const stringMap = z.record(z.string(), z.string());
export const ParameterConstraints = z.object({ required: z.boolean().optional() });
export const ResponseParameters = z.record(
  z.string().regex(STATUS_CODE_KEY_PATTERN, { error: "expected an HTTP status code from 200 to 599 as key" }),
  stringMap,
);
export const TlsConfig = z.object({ serverNameToVerify: z.string().optional() });
export const TimeoutInMillis = z.number().int({ error: "expected an integer number of milliseconds" });

/** Route fields a client may set (create), each with its wire type; shared with the desired model. */
export const ROUTE_FIELDS = {
  routeKey: z.string().min(1, { error: "expected a non-empty route key" }),
  authorizationType: AuthorizationType,
  authorizerId: z.string(),
  authorizationScopes: z.array(z.string()),
  apiKeyRequired: z.boolean(),
  requestParameters: z.record(z.string(), ParameterConstraints),
  requestModels: stringMap,
  modelSelectionExpression: z.string(),
  routeResponseSelectionExpression: z.string(),
  target: z.string(),
  operationName: z.string(),
};

/** Integration fields a client may set (create), each with its wire type. */
export const INTEGRATION_FIELDS = {
  description: z.string(),
  integrationType: IntegrationType,
  integrationSubtype: z.string(),
  integrationMethod: z.string(),
  integrationUri: z.string(),
  tlsConfig: TlsConfig,
  credentialsArn: z.string(),
  connectionType: ConnectionType,
  connectionId: z.string(),
  requestParameters: stringMap,
  responseParameters: ResponseParameters,
  requestTemplates: stringMap,
  templateSelectionExpression: z.string(),
  passthroughBehavior: PassthroughBehavior,
  contentHandlingStrategy: ContentHandlingStrategy,
  timeoutInMillis: TimeoutInMillis,
  payloadFormatVersion: z.string().min(1),
};

type Optionalized<T extends Record<string, z.ZodType>> = { [K in keyof T]: z.ZodOptional<T[K]> };
type Patchable<T extends Record<string, z.ZodType>> = { [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>> };

function optionalized<T extends Record<string, z.ZodType>>(fields: T): Optionalized<T> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as Optionalized<T>;
}
/** PATCH bodies: an absent field is unchanged, `null` clears it. */
function patchable<T extends Record<string, z.ZodType>>(fields: T): Patchable<T> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.nullable().optional()])) as Patchable<T>;
}

const { routeKey: _routeKey, ...optionalRouteFields } = ROUTE_FIELDS;
export const CreateRouteInput = z.object({ routeKey: ROUTE_FIELDS.routeKey, ...optionalized(optionalRouteFields) });
export type CreateRouteInput = z.infer<typeof CreateRouteInput>;
/** UpdateRouteInput: every field optional; `null` clears (routeKey cannot be cleared). */
export const UpdateRouteInput = z.object({ ...patchable(optionalRouteFields), routeKey: ROUTE_FIELDS.routeKey.optional() });
export type UpdateRouteInput = z.infer<typeof UpdateRouteInput>;
export const Route = CreateRouteInput.extend({ routeId: z.string(), apiGatewayManaged: z.boolean().optional() });
export type Route = z.infer<typeof Route>;

const { integrationType: _integrationType, ...optionalIntegrationFields } = INTEGRATION_FIELDS;
export const CreateIntegrationInput = z.object({ integrationType: INTEGRATION_FIELDS.integrationType, ...optionalized(optionalIntegrationFields) });
export type CreateIntegrationInput = z.infer<typeof CreateIntegrationInput>;
/** UpdateIntegrationInput: every field optional; `null` clears (integrationType cannot be cleared). */
export const UpdateIntegrationInput = z.object({ ...patchable(optionalIntegrationFields), integrationType: INTEGRATION_FIELDS.integrationType.optional() });
export type UpdateIntegrationInput = z.infer<typeof UpdateIntegrationInput>;
export const Integration = CreateIntegrationInput.extend({
  integrationId: z.string(),
  integrationResponseSelectionExpression: z.string().optional(),
  apiGatewayManaged: z.boolean().optional(),
});
export type Integration = z.infer<typeof Integration>;

export const Integrations = z.object({ items: z.array(Integration), nextToken: z.string().optional() });
export type Integrations = z.infer<typeof Integrations>;
export const Routes = z.object({ items: z.array(Route), nextToken: z.string().optional() });
export type Routes = z.infer<typeof Routes>;

export const CreateApiInput = z.object({
  name: z.string().min(1, { error: "expected 1 to 128 characters" }).max(128, { error: "expected 1 to 128 characters" }),
  protocolType: ProtocolType,
  routeSelectionExpression: z.string().min(1).optional(),
  target: z.string().min(1).optional(),
});
export type CreateApiInput = z.infer<typeof CreateApiInput>;
export const Api = z.object({
  apiId: z.string(),
  name: z.string(),
  protocolType: ProtocolType,
  routeSelectionExpression: z.string(),
  apiEndpoint: z.string(),
  createdDate: z.string(),
});
export type Api = z.infer<typeof Api>;
export const Apis = z.object({ items: z.array(Api), nextToken: z.string().optional() });
export type Apis = z.infer<typeof Apis>;

export const DEFAULT_HTTP_ROUTE_SELECTION_EXPRESSION = "${request.method} ${request.path}";
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;

/** `maxResults` travels as a string holding an integer 1..500 (docs/manual/reference.md). */
export const MaxResultsParameter = z.string().regex(/^\d{1,3}$/, { error: "expected a string holding an integer from 1 to 500" })
  .refine((value) => Number(value) >= 1 && Number(value) <= MAX_PAGE_SIZE, { error: "expected a string holding an integer from 1 to 500" });
export const ListQuery = z.object({ maxResults: MaxResultsParameter.optional(), nextToken: z.string().max(1000).optional() });

const API_PATH = "/v2/apis/{apiId}";
const ROUTE_PATH = `${API_PATH}/routes/{routeId}`;
const INTEGRATION_PATH = `${API_PATH}/integrations/{integrationId}`;

/**
 * Every operation of the API gateway service (docs/manual/embedded-service.md): the service routes
 * and answers each row, the client builds each call from it. Creates are the only writes that are
 * not idempotent; a delete answers 204 with no body.
 */
export const GATEWAY_OPERATIONS = {
  CreateApi: { method: "POST", path: "/v2/apis", request: CreateApiInput, response: Api, status: 201, idempotent: false, write: true },
  GetApis: { method: "GET", path: "/v2/apis", query: ListQuery, response: Apis, status: 200, idempotent: true, write: false },
  GetApi: { method: "GET", path: API_PATH, response: Api, status: 200, idempotent: true, write: false },
  DeleteApi: { method: "DELETE", path: API_PATH, status: 204, idempotent: true, write: true },
  CreateRoute: { method: "POST", path: `${API_PATH}/routes`, request: CreateRouteInput, response: Route, status: 201, idempotent: false, write: true },
  GetRoutes: { method: "GET", path: `${API_PATH}/routes`, query: ListQuery, response: Routes, status: 200, idempotent: true, write: false },
  GetRoute: { method: "GET", path: ROUTE_PATH, response: Route, status: 200, idempotent: true, write: false },
  UpdateRoute: { method: "PATCH", path: ROUTE_PATH, request: UpdateRouteInput, response: Route, status: 200, idempotent: true, write: true },
  DeleteRoute: { method: "DELETE", path: ROUTE_PATH, status: 204, idempotent: true, write: true },
  CreateIntegration: {
    method: "POST", path: `${API_PATH}/integrations`, request: CreateIntegrationInput, response: Integration,
    status: 201, idempotent: false, write: true,
  },
  GetIntegrations: { method: "GET", path: `${API_PATH}/integrations`, query: ListQuery, response: Integrations, status: 200, idempotent: true, write: false },
  GetIntegration: { method: "GET", path: INTEGRATION_PATH, response: Integration, status: 200, idempotent: true, write: false },
  UpdateIntegration: {
    method: "PATCH", path: INTEGRATION_PATH, request: UpdateIntegrationInput, response: Integration,
    status: 200, idempotent: true, write: true,
  },
  DeleteIntegration: { method: "DELETE", path: INTEGRATION_PATH, status: 204, idempotent: true, write: true },
} as const satisfies OperationTable;
export type GatewayOperationName = keyof typeof GATEWAY_OPERATIONS;

export const GatewayErrorBody = z.object({ message: z.string(), resourceType: z.string().optional(), limitType: z.string().optional() });
export type GatewayErrorBody = z.infer<typeof GatewayErrorBody>;

/** Fields of a route that only WebSocket APIs accept. */
export const WEBSOCKET_ONLY_ROUTE_FIELDS = [
  "apiKeyRequired", "requestParameters", "requestModels", "modelSelectionExpression", "routeResponseSelectionExpression",
] as const;
/** Fields of an integration that only HTTP APIs accept. */
export const HTTP_ONLY_INTEGRATION_FIELDS = ["integrationSubtype", "tlsConfig", "connectionId", "responseParameters"] as const;
/** Fields of an integration that only WebSocket APIs accept. */
export const WEBSOCKET_ONLY_INTEGRATION_FIELDS = ["requestTemplates", "templateSelectionExpression", "passthroughBehavior", "contentHandlingStrategy"] as const;

const PROTOCOL_LABEL: Readonly<Record<ProtocolType, string>> = { HTTP: "an HTTP API", WEBSOCKET: "a WebSocket API" };

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A route as the protocol rules see it: the fields that would be in effect (after a patch). */
export interface RouteRuleInput {
  readonly routeKey?: string | null | undefined;
  readonly authorizationType?: string | null | undefined;
  readonly [field: string]: unknown;
}

/** Every per-protocol rule a route breaks, with `prefix` before each field name (e.g. "spec."). */
export function routeProtocolIssues(protocol: ProtocolType, route: RouteRuleInput, prefix = ""): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const label = PROTOCOL_LABEL[protocol];
  if (protocol === "HTTP") {
    for (const field of WEBSOCKET_ONLY_ROUTE_FIELDS) {
      if (isSet(route[field])) issues.push({ name: prefix + field, message: `${prefix}${field} is for WebSocket APIs only; this route belongs to ${label}` });
    }
    if (typeof route.routeKey === "string" && !HTTP_ROUTE_KEY_PATTERN.test(route.routeKey)) {
      issues.push({
        name: `${prefix}routeKey`,
        message: `${prefix}routeKey ${renderValue(route.routeKey)} is not valid for an HTTP API: `
          + `expected "$default" or "METHOD /path" (e.g. "GET /orders") with METHOD one of ${HTTP_METHODS.join(", ")}`,
      });
    }
  }
  const authorizationType = route.authorizationType;
  if (typeof authorizationType === "string" && !AUTHORIZATION_TYPES_BY_PROTOCOL[protocol].includes(authorizationType as AuthorizationType)) {
    issues.push({
      name: `${prefix}authorizationType`,
      message: `${prefix}authorizationType ${renderValue(authorizationType)} is not valid for ${label}: `
        + `expected one of ${AUTHORIZATION_TYPES_BY_PROTOCOL[protocol].join(", ")}`,
    });
  }
  return issues;
}

/** An integration as the protocol rules see it: the fields that would be in effect (after a patch). */
export interface IntegrationRuleInput {
  readonly integrationSubtype?: string | null | undefined;
  readonly timeoutInMillis?: number | null | undefined;
  readonly requestParameters?: Readonly<Record<string, string>> | null | undefined;
  readonly payloadFormatVersion?: string | null | undefined;
  readonly [field: string]: unknown;
}

/**
 * Every per-protocol rule an integration breaks: protocol-only fields, the timeout range, the three
 * requestParameters shapes, and payloadFormatVersion being required for HTTP APIs.
 */
export function integrationProtocolIssues(
  protocol: ProtocolType,
  integration: IntegrationRuleInput,
  prefix = "",
  options: { requirePayloadFormatVersion?: boolean } = {},
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const label = PROTOCOL_LABEL[protocol];
  const wrongProtocolFields = protocol === "HTTP" ? WEBSOCKET_ONLY_INTEGRATION_FIELDS : HTTP_ONLY_INTEGRATION_FIELDS;
  const otherLabel = protocol === "HTTP" ? "WebSocket APIs" : "HTTP APIs";
  for (const field of wrongProtocolFields) {
    if (isSet(integration[field])) {
      issues.push({ name: prefix + field, message: `${prefix}${field} is for ${otherLabel} only; this integration belongs to ${label}` });
    }
  }
  const range = TIMEOUT_RANGE_BY_PROTOCOL[protocol];
  const timeout = integration.timeoutInMillis;
  if (typeof timeout === "number" && (timeout < range.min || timeout > range.max)) {
    issues.push({
      name: `${prefix}timeoutInMillis`,
      message: `${prefix}timeoutInMillis ${timeout} is out of range for ${label}: expected ${range.min} to ${range.max} (default ${range.default})`,
    });
  }
  if (protocol === "HTTP" && integration.payloadFormatVersion === null) {
    issues.push({
      name: `${prefix}payloadFormatVersion`,
      message: `${prefix}payloadFormatVersion cannot be absent (null) on an HTTP API: it is required there`,
    });
  } else if (protocol === "HTTP" && (options.requirePayloadFormatVersion ?? true) && !isSet(integration.payloadFormatVersion)) {
    issues.push({ name: `${prefix}payloadFormatVersion`, message: `${prefix}payloadFormatVersion is required for HTTP APIs (e.g. "1.0" or "2.0")` });
  }
  for (const [key, value] of Object.entries(integration.requestParameters ?? {})) {
    const name = `${prefix}requestParameters[${JSON.stringify(key)}]`;
    if (protocol === "WEBSOCKET" && !WEBSOCKET_PARAMETER_VALUE_PATTERN.test(value)) {
      issues.push({
        name,
        message: `${name} ${renderValue(value)} is not valid for a WebSocket API: `
          + `expected method.request.{querystring|path|header}.{name} or a static value in single quotes`,
      });
    }
    if (protocol === "HTTP" && !isSet(integration.integrationSubtype) && !HTTP_PARAMETER_MAPPING_KEY_PATTERN.test(key)) {
      issues.push({
        name,
        message: `requestParameters key ${renderValue(key)} is not valid for an HTTP API integration without integrationSubtype: `
          + `expected <append|overwrite|remove>:<header|querystring|path>.<name> (e.g. "overwrite:header.x-user")`,
      });
    }
  }
  return issues;
}
