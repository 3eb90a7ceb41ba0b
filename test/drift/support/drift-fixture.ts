import { expect } from "vitest";
import type { DriftOutcome, DriftReport } from "../../../src/reconcile/drift-report.js";
import { describeCliResult, type CliResult } from "../../support/cli.js";
import { ORDERS_API } from "../../e2e/e2e-fixture.js";

/**
 * The orders API as the drift suites declare it, in `api` (the demo world's orders API unless
 * given): owned by an Api document (no prune: unmanaged resources are reported all the same), its
 * backend integration and its `GET /orders` route targeting it. Suites add routes with routeLines.
 */
export function ordersApiLines(api: string = ORDERS_API): string[] {
  return [
    "kind: Api",
    `api: ${api}`,
    "spec: {protocolType: HTTP}",
    "---",
    "kind: Integration",
    "name: backend",
    `api: ${api}`,
    'spec: {integrationType: HTTP_PROXY, integrationUri: "https://backend.example/orders", integrationMethod: ANY, payloadFormatVersion: "1.0"}',
    ...routeLines(api, "{routeKey: GET /orders, target: {integration: backend}}"),
  ];
}

/** A `Route` document of `api` whose spec is the flow mapping `spec`, after a `---`: to follow another document. */
export function routeLines(api: string, spec: string): string[] {
  return ["---", "kind: Route", `api: ${api}`, `spec: ${spec}`];
}

/**
 * The orders API of the demo world as the drift suites declare it, line by line: ordersApiLines
 * and two more routes targeting the backend (one with a JWT authorizer). Suites add their own
 * documents after a `---`.
 */
export const ORDERS_LINES: ReadonlyArray<string> = [
  ...ordersApiLines(),
  ...routeLines(ORDERS_API, "{routeKey: POST /orders, target: {integration: backend}, authorizationType: JWT, authorizerId: jwt1, authorizationScopes: [orders.write]}"),
  ...routeLines(ORDERS_API, '{routeKey: "DELETE /orders/{id}", target: {integration: backend}}'),
];

/** The member account's BILLING contact as the drift suites declare it. */
export const MEMBER_BILLING_LINES: ReadonlyArray<string> = [
  "kind: AlternateContact",
  'account: "222222222222"',
  'spec: {type: BILLING, name: Billing Team, title: Controller, emailAddress: billing@example.com, phoneNumber: "+1 555 0101"}',
];

/** us-east-1 declared disabled: a Region that cannot be disabled, so drift reports it refused. */
export const US_EAST_DISABLED_LINES: ReadonlyArray<string> = ["kind: RegionOptIn", "spec: {region: us-east-1, enabled: false}"];

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
