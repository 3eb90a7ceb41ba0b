import type { BenchCase } from "../bench-case.js";
import { ACCOUNT_CASES } from "./account.js";
import { GATEWAY_CASES } from "./gateway.js";

/**
 * Every benchmark case, in the order they run. Add a service's cases here (e.g. the gateway's
 * GetRoute and GetIntegrations, a typed client against autocannon, a reconcile of N resources).
 */
export const BENCH_CASES: ReadonlyArray<BenchCase> = [...ACCOUNT_CASES, ...GATEWAY_CASES];
