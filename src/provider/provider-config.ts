import { invalidRequestTimeout, requestTimeoutMs } from "../clients/answer-limits.js";
import { errorDiagnostic, isUnknown, type Diagnostic, type Value } from "./runtime/index.js";

/** The provider block's attributes that give the services' origins. */
export const ENDPOINTS = ["endpoint", "account_endpoint", "gateway_endpoint"] as const;

/**
 * The deadline of one request in milliseconds from `request_timeout`, else CONVERGE_REQUEST_TIMEOUT,
 * else `undefined` (the clients' default); a value out of range is a diagnostic naming it.
 */
export function requestTimeout(value: Value | undefined): number | Diagnostic | undefined {
  if (isUnknown(value ?? null)) return errorDiagnostic("request_timeout is not known until apply: the provider needs it to plan", undefined, ["request_timeout"]);
  const fromEnvironment = value === null || value === undefined;
  const raw = fromEnvironment ? process.env.CONVERGE_REQUEST_TIMEOUT : value;
  if (raw === undefined || raw === "") return undefined;
  const given = typeof raw === "number" ? raw : String(raw);
  const requestMs = requestTimeoutMs(given);
  if (requestMs !== undefined) return requestMs;
  const source = fromEnvironment ? "CONVERGE_REQUEST_TIMEOUT" : "request_timeout";
  return errorDiagnostic(invalidRequestTimeout(source, given), undefined, fromEnvironment ? undefined : ["request_timeout"]);
}

/** An endpoint as the provider block or the environment gives it: its origin, or why not. */
export function origin(value: Value | undefined, attribute: string): string | Diagnostic | undefined {
  if (value === null || value === undefined) return undefined;
  if (isUnknown(value)) return errorDiagnostic(`${attribute} is not known until apply: the provider needs it to plan`, undefined, [attribute]);
  try {
    const url = new URL(String(value));
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  } catch {
    // reported below with what was received
  }
  return errorDiagnostic(`${attribute} ${JSON.stringify(value)} is not valid: expected an http:// or https:// URL (e.g. "http://127.0.0.1:4566")`, undefined, [attribute]);
}

/**
 * ValidateProviderConfig of converge's provider block: each known endpoint an http(s) URL, a known
 * `request_timeout` in range. What only configure can tell (the environment's defaults, a missing
 * token) is left to configure.
 */
export function validateProviderConfig(config: Readonly<Record<string, Value>>): Diagnostic[] {
  const timeout = isUnknown(config.request_timeout ?? null) || config.request_timeout === null || config.request_timeout === undefined
    ? undefined
    : requestTimeout(config.request_timeout);
  return [...ENDPOINTS.filter((attribute) => !isUnknown(config[attribute] ?? null))
    .map((attribute) => origin(config[attribute], attribute)), timeout]
    .filter((found): found is Diagnostic => typeof found === "object");
}
