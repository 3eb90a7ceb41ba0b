import autocannon from "autocannon";
import type { LoadRequest } from "./bench-case.js";

export interface LoadOptions {
  readonly seconds: number;
  readonly connections: number;
  /** @default 1 */
  readonly pipelining?: number;
}

/** What one load round measured. Latencies in milliseconds. */
export interface RoundResult {
  /** Mean of the per-second counts of completed requests. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly completed: number;
  /** Answers outside 2xx: a case that gets them measures the wrong thing. */
  readonly non2xx: number;
  /** Connection errors, timeouts included. */
  readonly errors: number;
  readonly timeouts: number;
}

/** Repeats one request against `url` for `seconds` with autocannon (in this process) and summarizes it. */
export async function runLoad(url: string, request: LoadRequest, options: LoadOptions): Promise<RoundResult> {
  const result = await autocannon({
    url: url + request.path,
    method: request.method,
    headers: { ...request.headers },
    ...(request.body !== undefined ? { body: request.body } : {}),
    connections: options.connections,
    pipelining: options.pipelining ?? 1,
    duration: options.seconds,
    timeout: 10,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    completed: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
