import { request } from "undici";
import type { RunningService } from "../../src/service/index.js";

export interface CallOptions {
  readonly method?: "GET" | "POST" | "PATCH" | "DELETE" | "PUT" | "HEAD" | "OPTIONS";
  readonly token?: string | null;
  /** A value to send as JSON, or a raw string/Buffer sent as is. */
  readonly body?: unknown;
  readonly raw?: string | Buffer;
  readonly headers?: Record<string, string>;
}

export interface CallResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or `undefined` for an empty body. */
  readonly json: any;
  readonly text: string;
  /** Value of `x-svc-ErrorType`, when present. */
  readonly errorType: string | undefined;
}

/** One real HTTP call to a running service. `token: null` sends no Authorization header. */
export async function call(service: RunningService | string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const base = typeof service === "string" ? service : service.url;
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? "admin-token" : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await request(base + path, { method: options.method ?? "POST", headers, body });
  const text = await response.body.text();
  let json: unknown;
  if (text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  const errorType = response.headers["x-svc-errortype"];
  return {
    status: response.statusCode,
    headers: response.headers,
    json,
    text,
    errorType: Array.isArray(errorType) ? errorType[0] : errorType,
  };
}

/** Account service form A: `POST /<operation>` with a JSON body. */
export function accountCall(service: RunningService, operation: string, body: unknown, token: string | null = "admin-token") {
  const path = `/${operation[0]!.toLowerCase()}${operation.slice(1)}`;
  return call(service, path, { body, token });
}

/** Account service form B: `POST /` with `X-Svc-Target`. */
export function accountCallFormB(service: RunningService, operation: string, body: unknown, token: string | null = "admin-token", prefix = "AccountService_20210201") {
  return call(service, "/", { body, token, headers: { "x-svc-target": `${prefix}.${operation}` } });
}
