import type { FieldIssue } from "../contract/field-issues.js";

/** Which of the two services answers a request; decides the error dialect. */
export type ServiceName = "account" | "apigateway";

/**
 * An error the service answers with: HTTP status, the error name sent in `x-svc-ErrorType`,
 * and the extra body fields of that error. Thrown by handlers, rendered by the server.
 */
export class ServiceError extends Error {
  readonly status: number;
  readonly errorType: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, errorType: string, message: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ServiceError";
    this.status = status;
    this.errorType = errorType;
    this.fields = fields;
    this.headers = headers;
  }
}

/**
 * The failures both services share (denied, throttled, internal, a bad request) under the name and
 * body each service's error table gives them.
 */
export interface ErrorDialect {
  accessDenied(message: string): ServiceError;
  throttled(message: string, retryAfterMs: number): ServiceError;
  internal(message: string): ServiceError;
  invalid(message: string, fields: ReadonlyArray<FieldIssue>): ServiceError;
  /**
   * Renders the JSON body of an error in this service's shape, with `__type` naming the error as
   * the public API models of these services do, so that SDKs following the JSON error conventions
   * (which look for `x-amzn-ErrorType`, a body `code` or a body `__type`) can name it.
   */
  body(error: ServiceError): Record<string, unknown>;
}

/** `Retry-After` is whole seconds by RFC 9110; the precise wait travels in `x-svc-retry-after-ms`. */
function retryHeaders(retryAfterMs: number): Record<string, string> {
  return {
    "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    "x-svc-retry-after-ms": String(Math.max(1, Math.ceil(retryAfterMs))),
  };
}

export const accountDialect: ErrorDialect = {
  accessDenied: (message) => new ServiceError(403, "AccessDeniedException", message),
  throttled: (message, retryAfterMs) =>
    new ServiceError(429, "TooManyRequestsException", message, {}, retryHeaders(retryAfterMs)),
  internal: (message) => new ServiceError(500, "InternalServerException", message),
  invalid: (message, fields) => accountErrors.validation(message, fields),
  body(error) {
    if (error.errorType === "ValidationException") return { __type: error.errorType, message: error.message, ...error.fields };
    return { __type: error.errorType, message: error.message, errorType: error.errorType, ...error.fields };
  },
};

export const accountErrors = {
  validation(message: string, fields: ReadonlyArray<FieldIssue>, reason: "fieldValidationFailed" | "invalidRegionOptTarget" = "fieldValidationFailed") {
    return new ServiceError(400, "ValidationException", message, { reason, fieldList: fields.map((f) => ({ name: f.name, message: f.message })) });
  },
  notFound: (message: string) => new ServiceError(404, "ResourceNotFoundException", message),
  conflict: (message: string) => new ServiceError(409, "ConflictException", message),
};

/**
 * Where the public API model names a gateway error differently from the service's own name for
 * the status: its 429 `LimitExceededException` (with `limitType`) is the model's `TooManyRequestsException`
 * (with `limitType`), so `__type` carries the model's name and the header keeps the service's.
 */
const GATEWAY_MODEL_NAMES: Readonly<Record<string, string>> = { LimitExceededException: "TooManyRequestsException" };

export const gatewayDialect: ErrorDialect = {
  accessDenied: (message) => new ServiceError(403, "AccessDeniedException", message),
  throttled: (message, retryAfterMs) =>
    new ServiceError(429, "LimitExceededException", message, { limitType: "RequestRate" }, retryHeaders(retryAfterMs)),
  internal: (message) => new ServiceError(500, "InternalServerException", message),
  invalid: (message) => gatewayErrors.badRequest(message),
  body: (error) => ({ __type: GATEWAY_MODEL_NAMES[error.errorType] ?? error.errorType, message: error.message, ...error.fields }),
};

export type GatewayResourceType = "Api" | "Route" | "Integration";

export const gatewayErrors = {
  badRequest: (message: string) => new ServiceError(400, "BadRequestException", message),
  notFound: (resourceType: GatewayResourceType, message: string) => new ServiceError(404, "NotFoundException", message, { resourceType }),
  conflict: (message: string) => new ServiceError(409, "ConflictException", message),
};

export const DIALECTS: Readonly<Record<ServiceName, ErrorDialect>> = { account: accountDialect, apigateway: gatewayDialect };
