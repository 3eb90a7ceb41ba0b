/**
 * Typed client errors with stable codes. Each carries a brand (a global symbol) so that the guards
 * work across duplicate installs, where `instanceof` would not. No error ever holds a credential:
 * messages are built from the service's answer (any echo of the token redacted by the transport) and
 * the operation, never from request headers.
 */

import { ERROR_BRAND, isBrandedError } from "../contract/error-brand.js";

export type ConvergeErrorCode =
  | "CONVERGE_API_ERROR"
  | "CONVERGE_AMBIGUOUS_WRITE"
  | "CONVERGE_CONTRACT_VIOLATION"
  | "CONVERGE_TRANSPORT"
  | "CONVERGE_ABORTED"
  | "CONVERGE_CREDENTIALS";

export abstract class ConvergeError extends Error {
  abstract readonly code: ConvergeErrorCode;
  readonly [ERROR_BRAND] = true;
}

function hasCode(value: unknown, code: ConvergeErrorCode): boolean {
  return isBrandedError(value, code);
}

export function isConvergeError(value: unknown): value is ConvergeError {
  return isBrandedError(value);
}

/** Which interface of the services a call went to: one of the two services, or their control interface (`control`, tests only). */
export type ServiceName = "account" | "apigateway" | "control";

export interface ApiErrorDetails {
  readonly service: ServiceName;
  readonly operation: string;
  readonly status: number;
  /** The error name from `x-svc-ErrorType` (e.g. "ValidationException"). */
  readonly errorName: string;
  readonly message: string;
  readonly requestId?: string | undefined;
  readonly fieldList?: ReadonlyArray<{ readonly name: string; readonly message: string }> | undefined;
  readonly reason?: string | undefined;
  readonly resourceType?: string | undefined;
  readonly limitType?: string | undefined;
}

/** The service answered with an error. */
export class ApiError extends ConvergeError implements ApiErrorDetails {
  readonly code = "CONVERGE_API_ERROR" as const;
  readonly service: ServiceName;
  readonly operation: string;
  readonly status: number;
  readonly errorName: string;
  readonly serviceMessage: string;
  readonly requestId: string | undefined;
  readonly fieldList: ReadonlyArray<{ readonly name: string; readonly message: string }> | undefined;
  readonly reason: string | undefined;
  readonly resourceType: string | undefined;
  readonly limitType: string | undefined;

  constructor(details: ApiErrorDetails) {
    super(`${details.service} ${details.operation} failed: ${details.status} ${details.errorName}: ${details.message}`);
    this.name = "ApiError";
    this.service = details.service;
    this.operation = details.operation;
    this.status = details.status;
    this.errorName = details.errorName;
    this.serviceMessage = details.message;
    this.requestId = details.requestId;
    this.fieldList = details.fieldList;
    this.reason = details.reason;
    this.resourceType = details.resourceType;
    this.limitType = details.limitType;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return hasCode(value, "CONVERGE_API_ERROR");
}

/** A 404 of the service (ResourceNotFoundException or NotFoundException), optionally of one resource type. */
export function isNotFound(value: unknown, resourceType?: string): value is ApiError {
  return isApiError(value) && value.status === 404 && (resourceType === undefined || value.resourceType === resourceType);
}

export function isConflict(value: unknown): value is ApiError {
  return isApiError(value) && value.status === 409;
}

export function isThrottled(value: unknown): value is ApiError {
  return isApiError(value) && value.status === 429;
}

/** An error of one operation of one service: which, for the message and for callers that branch on it. */
abstract class OperationError extends ConvergeError {
  readonly service: ServiceName;
  readonly operation: string;

  protected constructor(service: ServiceName, operation: string, message: string) {
    super(message);
    this.service = service;
    this.operation = operation;
  }
}

/**
 * A non-idempotent write (a create) failed in a way that leaves its outcome unknown: it may or may
 * not have been applied. It is never retried blindly; read the live state before creating again.
 */
export class AmbiguousWriteError extends OperationError {
  readonly code = "CONVERGE_AMBIGUOUS_WRITE" as const;
  /** What happened: the error of the failed attempt. */
  readonly underlying: ConvergeError;

  constructor(service: ServiceName, operation: string, underlying: ConvergeError) {
    super(service, operation, `${service} ${operation} may or may not have been applied (${underlying.message}); read the live state before retrying it`);
    this.name = "AmbiguousWriteError";
    this.underlying = underlying;
  }
}

export function isAmbiguousWrite(value: unknown): value is AmbiguousWriteError {
  return hasCode(value, "CONVERGE_AMBIGUOUS_WRITE");
}

/** The service answered something that does not match its contract (wrong shape, wrong status). */
export class ContractViolationError extends OperationError {
  readonly code = "CONVERGE_CONTRACT_VIOLATION" as const;
  readonly problems: ReadonlyArray<string>;

  constructor(service: ServiceName, operation: string, problems: ReadonlyArray<string>) {
    super(service, operation, `${service} ${operation} answered outside its contract: ${problems.join("; ")}`);
    this.name = "ContractViolationError";
    this.problems = problems;
  }
}

export function isContractViolation(value: unknown): value is ContractViolationError {
  return hasCode(value, "CONVERGE_CONTRACT_VIOLATION");
}

/** The request did not get an answer: connection refused or reset, timeout, DNS. */
export class TransportError extends OperationError {
  readonly code = "CONVERGE_TRANSPORT" as const;
  /** The underlying error code (e.g. "ECONNREFUSED", "UND_ERR_HEADERS_TIMEOUT"). */
  readonly causeCode: string | undefined;
  /** Whether the request may have reached the service (false only when the connection was never made). */
  readonly maybeDelivered: boolean;

  constructor(service: ServiceName, operation: string, causeCode: string | undefined, detail: string, maybeDelivered: boolean, origin?: string) {
    super(service, operation, `${service} ${operation}: no answer from the service${origin ? ` at ${origin}` : ""} (${causeCode ?? "network error"}: ${detail})`);
    this.name = "TransportError";
    this.causeCode = causeCode;
    this.maybeDelivered = maybeDelivered;
  }
}

export function isTransportError(value: unknown): value is TransportError {
  return hasCode(value, "CONVERGE_TRANSPORT");
}

export class AbortedError extends ConvergeError {
  readonly code = "CONVERGE_ABORTED" as const;
  constructor(operation: string) {
    super(`${operation} was cancelled`);
    this.name = "AbortedError";
  }
}

export function isAborted(value: unknown): value is AbortedError {
  return hasCode(value, "CONVERGE_ABORTED");
}

export class CredentialsError extends ConvergeError {
  readonly code = "CONVERGE_CREDENTIALS" as const;
  constructor(message: string) {
    super(message);
    this.name = "CredentialsError";
  }
}

export function isCredentialsError(value: unknown): value is CredentialsError {
  return hasCode(value, "CONVERGE_CREDENTIALS");
}
