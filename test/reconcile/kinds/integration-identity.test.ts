import { afterAll, describe, expect, it } from "vitest";
import { plan } from "../../../src/reconcile/plan.js";
import type { Integration } from "../../../src/contract/gateway.js";
import type { LiveState } from "../../../src/reconcile/model.js";
import { liveApi } from "../../support/live-api.js";
import { removeDirectory, writeAndLoad } from "../support/reconcile-harness.js";

/**
 * The integration names of one plan (src/reconcile/kinds/integration-identity.ts): an Integration
 * document records which live integration its logical name resolved to, and a route of the same
 * plan that targets it by name plans against that ID, or waits for the create when there is none.
 */

const API = "a1b2c3d4e5";
const LIVE_INTEGRATION: Integration = { integrationId: "int0001", integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/api", integrationMethod: "ANY", payloadFormatVersion: "1.0" };
const INTEGRATION = `kind: Integration\nname: backend\napi: ${API}\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://orders.example/api", integrationMethod: ANY, payloadFormatVersion: "1.0"}`;
const ROUTE = `kind: Route\napi: ${API}\nspec: {routeKey: GET /orders, target: {integration: backend}}`;

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(directories.map(removeDirectory));
});

function liveWith(integrations: ReadonlyArray<Integration>): LiveState {
  return { apis: { [API]: liveApi({ apiId: API, protocolType: "HTTP", integrations: [...integrations] }) }, apiIdsByName: {}, contacts: {}, regions: {} };
}

describe("integration names in a plan", () => {
  const cases = [
    {
      name: "resolves a route's target to the live integration its document matched",
      live: liveWith([LIVE_INTEGRATION]),
      expected: { target: "integrations/int0001", targetIntegration: undefined },
    },
    {
      name: "waits for the create when the integration its document names is not live",
      live: liveWith([]),
      expected: { target: undefined, targetIntegration: "backend" },
    },
  ];

  it.each(cases)("$name", async ({ live, expected }) => {
    const loaded = await writeAndLoad({ "estate.yaml": [ROUTE, INTEGRATION].join("\n---\n") });
    directories.push(loaded.directory);
    const { plan: planned, problems } = plan(loaded.documents, live);
    expect(problems).toEqual([]);
    const route = planned.actions.find((action) => action.request?.op === "createRoute");
    const request = route?.request as { readonly body: { readonly target?: string }; readonly targetIntegration?: string } | undefined;
    expect(request?.body.target).toBe(expected.target);
    expect(request?.targetIntegration).toBe(expected.targetIntegration);
  });

  it("keeps the names of one plan to that plan", async () => {
    const loaded = await writeAndLoad({ "estate.yaml": INTEGRATION, "routes.yaml": ROUTE });
    directories.push(loaded.directory);
    const route = loaded.documents.filter((document) => document.document.kind === "Route");
    plan(loaded.documents, liveWith([LIVE_INTEGRATION]));
    const alone = plan(route, liveWith([LIVE_INTEGRATION]));
    const request = alone.plan.actions.find((action) => action.request?.op === "createRoute")?.request as { readonly targetIntegration?: string } | undefined;
    expect(request?.targetIntegration).toBe("backend");
  });
});
