import { expect } from "vitest";
import type { DriftOutcome, DriftReport } from "../../../src/reconcile/drift-report.js";
import { describeCliResult, type CliResult } from "../../support/cli.js";
import { ORDERS_API } from "../../e2e/e2e-fixture.js";

/**
 * The orders API of the demo world as the drift suites declare it, line by line: owned by an Api
 * document (no prune: unmanaged resources are reported all the same), its backend integration and
 * three routes targeting it. Suites add their own documents after a `---`.
 */
export const ORDERS_LINES: ReadonlyArray<string> = [
  "kind: Api",
  `api: ${ORDERS_API}`,
  "spec: {protocolType: HTTP}",
  "---",
  "kind: Integration",
  "name: backend",
  `api: ${ORDERS_API}`,
  'spec: {integrationType: HTTP_PROXY, integrationUri: "https://backend.example/orders", integrationMethod: ANY, payloadFormatVersion: "1.0"}',
  "---",
  "kind: Route",
  `api: ${ORDERS_API}`,
  "spec: {routeKey: GET /orders, target: {integration: backend}}",
  "---",
  "kind: Route",
  `api: ${ORDERS_API}`,
  "spec: {routeKey: POST /orders, target: {integration: backend}, authorizationType: JWT, authorizerId: jwt1, authorizationScopes: [orders.write]}",
  "---",
  "kind: Route",
  `api: ${ORDERS_API}`,
  "spec: {routeKey: \"DELETE /orders/{id}\", target: {integration: backend}}",
];

/** Parses a `--output json` drift report; fails the test with the whole output when it is not JSON. */
export function parseDriftJson(result: CliResult): DriftReport {
  try {
    return JSON.parse(result.stdout) as DriftReport;
  } catch (error) {
    throw new Error(`drift --output json did not print JSON (${(error as Error).message}):\n${describeCliResult(result)}`);
  }
}

/** A report without what differs from run to run (the time), for comparing reports by value. */
export function normalizeReport(report: DriftReport): Omit<DriftReport, "generatedAt"> {
  const { generatedAt, ...rest } = report;
  expect(Number.isNaN(Date.parse(generatedAt)), `generatedAt ${generatedAt}`).toBe(false);
  return { ...rest, resources: [...rest.resources].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)) };
}

/** `outcome address` lines of the resources, sorted. */
export function outcomeLines(report: Pick<DriftReport, "resources">): string[] {
  return report.resources.map((resource) => `${resource.outcome} ${resource.address}`).sort();
}

export function resourceAt(report: DriftReport, address: string) {
  const matches = report.resources.filter((resource) => resource.address === address);
  expect(matches.map((resource) => resource.address), `resources at ${address}`).toEqual([address]);
  return matches[0]!;
}

export function countOutcomes(report: Pick<DriftReport, "resources">): Record<DriftOutcome, number> {
  const counts: Record<DriftOutcome, number> = { "in-sync": 0, drifted: 0, missing: 0, unmanaged: 0, conflict: 0, refused: 0, unknown: 0 };
  for (const resource of report.resources) counts[resource.outcome] += 1;
  return counts;
}
