import type { RunningService } from "../../src/service/index.js";

/** The operations a plan or a drift of the estate reads with. */
export const READ_OPERATIONS = ["GetRoutes", "GetIntegrations", "GetAlternateContact", "ListRegions", "GetApi", "GetApis"] as const;

/** Read requests the service answered since its last reset, by operation (throttled answers, which the client retries, left out). */
export function readsByOperation(service: RunningService): Record<string, number> {
  return Object.fromEntries(READ_OPERATIONS.map((operation) => [operation, service.requests.count({ operation }) - service.requests.count({ operation, status: 429 })]).filter(([, count]) => count !== 0));
}

/** The sum of counts by operation. */
export const totalOf = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((total, count) => total + count, 0);
