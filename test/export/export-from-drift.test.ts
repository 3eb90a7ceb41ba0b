import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { driftReport, type DriftResource } from "../../src/reconcile/drift-report.js";
import { exportUnmanaged, selectUnmanaged } from "../../src/reconcile/export-from-drift.js";
import type { LiveState } from "../../src/reconcile/model.js";
import { renderExportedFile } from "../../src/reconcile/render-export.js";
import { liveApi } from "../support/live-api.js";
import { renderExportAsTerraform } from "../../src/reconcile/render-export-terraform.js";

/**
 * `converge export --from-drift` without a service: which findings of a hand-written drift report
 * are selected (and which left out), and what is written of live state for them, in YAML and in
 * terraform. The report holds the kinds `drift --unmanaged all` adds (a whole Api, AlternateContact,
 * RegionOptIn) next to the routes and integrations of an owned API. The round trip with real
 * terraform and drift is export-from-drift-cli.test.ts.
 */

const OWNED = "ownedapi01";
const WHOLE = "wholeapi02";
const MEMBER = "222222222222";
const OWNER = { file: "infra/orders.yaml", line: 1, column: 1 };

const finding = (kind: DriftResource["kind"], identity: string, extra: Partial<DriftResource> = {}): DriftResource => ({
  address: `${kind}/${identity}`, kind, identity, outcome: "unmanaged", fields: [], reason: "live but not declared", source: null, ...extra,
});
const declared = (kind: DriftResource["kind"], identity: string): DriftResource => ({
  address: `${kind}/${identity}`, kind, identity, outcome: "in-sync", fields: [], reason: null, source: OWNER,
});

const REPORT = driftReport({
  generatedAt: "2025-01-01T00:00:00.000Z",
  desiredFingerprint: "f".repeat(64),
  coverage: { managed: 3, live: 12 },
  resources: [
    declared("Api", OWNED),
    declared("Integration", `${OWNED}/orders`),
    declared("Route", `${OWNED}/GET /orders`),
    finding("Integration", `${OWNED}/i-hand`, { source: OWNER }),
    finding("Route", `${OWNED}/GET /hand`, { source: OWNER }),
    finding("Route", `${OWNED}/GET /legacy`, { source: OWNER }),
    finding("Route", `${OWNED}/GET /accepted`, { source: OWNER, ignoredBy: { file: ".convergeignore", line: 3, reason: "kept by hand" } }),
    finding("Route", `${OWNED}/GET /deleted-since`, { source: OWNER }),
    finding("Api", WHOLE),
    finding("Integration", `${WHOLE}/i-whole`),
    finding("Route", `${WHOLE}/$default`),
    finding("AlternateContact", "self/SECURITY"),
    finding("RegionOptIn", `${MEMBER}/ap-east-1`),
    finding("RegionOptIn", "333333333333/me-south-1"),
  ],
});

const LIVE: LiveState = {
  apis: {
    [OWNED]: liveApi({
      apiId: OWNED,
      name: "orders",
      protocolType: "HTTP",
      integrations: [
        { integrationId: "i-orders", integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/", payloadFormatVersion: "1.0" },
        // its derived name would be "orders", which the report's Integration document takes
        { integrationId: "i-hand", integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/", payloadFormatVersion: "1.0", description: "by hand" },
      ],
      routes: [
        { routeId: "r-orders", routeKey: "GET /orders", target: "integrations/i-orders" },
        { routeId: "r-hand", routeKey: "GET /hand", target: "integrations/i-hand" },
        { routeId: "r-legacy", routeKey: "GET /legacy", target: "integrations/i-orders" },
        { routeId: "r-accepted", routeKey: "GET /accepted", target: "integrations/i-orders" },
      ],
    }),
    [WHOLE]: liveApi({
      apiId: WHOLE,
      name: "whole",
      protocolType: "HTTP",
      integrations: [{ integrationId: "i-whole", integrationType: "HTTP_PROXY", integrationUri: "https://whole.example/", payloadFormatVersion: "1.0" }],
      routes: [{ routeId: "r-whole", routeKey: "$default", target: "integrations/i-whole" }],
    }),
  },
  apiIdsByName: {},
  contacts: {
    "self/SECURITY": { AlternateContactType: "SECURITY", Name: "Sec", Title: "CISO", EmailAddress: "s@example.com", PhoneNumber: "+1 555 0100" },
    "self/BILLING": { AlternateContactType: "BILLING", Name: "Bill", Title: "CFO", EmailAddress: "b@example.com", PhoneNumber: "+1 555 0101" },
    "self/OPERATIONS": null,
  },
  regions: {
    self: { "us-east-1": "ENABLED_BY_DEFAULT" },
    [MEMBER]: { "ap-east-1": "ENABLED", "me-south-1": "ENABLED" },
    "333333333333": { "ap-east-1": "ENABLED" },
  },
};

describe("selectUnmanaged", () => {
  it("selects the unmanaged findings not ignored, in the APIs and accounts their identities start with", () => {
    const selection = selectUnmanaged(REPORT, "r.json");
    expect(selection.scope).toEqual({ apis: [OWNED, WHOLE], accounts: ["222222222222", "333333333333", "self"] });
    expect(selection.findings.map(({ address }) => address)).toEqual([
      "AlternateContact/self/SECURITY",
      `Api/${WHOLE}`,
      `Integration/${OWNED}/i-hand`,
      `Integration/${WHOLE}/i-whole`,
      `RegionOptIn/${MEMBER}/ap-east-1`,
      "RegionOptIn/333333333333/me-south-1",
      `Route/${OWNED}/GET /deleted-since`,
      `Route/${OWNED}/GET /hand`,
      `Route/${OWNED}/GET /legacy`,
      `Route/${WHOLE}/$default`,
    ]);
    expect(selection.findings.find(({ kind }) => kind === "Api")?.place).toEqual({ api: WHOLE });
    expect(selection.ignored).toEqual([`Route/${OWNED}/GET /accepted`]);
    expect(selection.declaredNames.get(OWNED)).toEqual(new Set(["orders", "GET /orders"]));
  });

  it("selects the ignored findings too with includeIgnored", () => {
    const selection = selectUnmanaged(REPORT, "r.json", { includeIgnored: true });
    expect(selection.ignored).toEqual([]);
    expect(selection.findings.map(({ address }) => address)).toContain(`Route/${OWNED}/GET /accepted`);
  });

  it("intersects with the APIs and accounts named, saying which were left out and which named ones had nothing", () => {
    const selection = selectUnmanaged(REPORT, "r.json", { within: { apis: [OWNED, "otherapi03"], accounts: ["self"] } });
    expect(selection.scope).toEqual({ apis: [OWNED], accounts: ["self"] });
    expect(selection.findings.map(({ address }) => address)).toEqual([
      "AlternateContact/self/SECURITY", `Integration/${OWNED}/i-hand`, `Route/${OWNED}/GET /deleted-since`, `Route/${OWNED}/GET /hand`, `Route/${OWNED}/GET /legacy`,
    ]);
    expect(selection.outside).toHaveLength(5);
    expect(selection.unmatched).toEqual(["--api otherapi03"]);
  });

  it("selects nothing from a report with no unmanaged resource", () => {
    const selection = selectUnmanaged(driftReport({ ...REPORT, resources: [declared("Api", OWNED)], coverage: { managed: 1, live: 1 } }), "r.json");
    expect(selection.findings).toEqual([]);
    expect(selection.scope).toEqual({ apis: [], accounts: [] });
  });

  it("rejects identities that name no API or account, every one at once, naming the file", () => {
    const report = driftReport({
      ...REPORT,
      resources: [finding("Route", "byname:orders/GET /x"), finding("RegionOptIn", "12345/ap-east-1"), finding("Api", OWNED)],
      coverage: { managed: 0, live: 3 },
    });
    expect(() => selectUnmanaged(report, "r.json")).toThrow(
      "r.json lists unmanaged resources export cannot place:\n"
      + '  RegionOptIn/12345/ap-east-1: identity "12345/ap-east-1" does not start with an account (12 digits, or self)\n'
      + '  Route/byname:orders/GET /x: identity "byname:orders/GET /x" does not start with an apiId (10 lower-case letters or digits)',
    );
  });
});

describe("exportUnmanaged", () => {
  const selection = selectUnmanaged(REPORT, "r.json");
  const exported = exportUnmanaged(LIVE, selection);
  const fileNamed = (name: string) => exported.files.find((file) => file.name === name)!;

  it("writes exactly the findings: of an owned API its unmanaged children, no Api document", () => {
    const owned = fileNamed(`api-${OWNED}.yaml`);
    expect(owned.documents).toEqual([
      {
        kind: "Integration",
        name: "orders-2",
        api: OWNED,
        spec: { integrationId: "i-hand", integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/", payloadFormatVersion: "1.0", description: "by hand" },
      },
      { kind: "Route", api: OWNED, spec: { routeKey: "GET /hand", target: { integration: "orders-2" } } },
      // its integration is declared elsewhere: the literal target, not a name this file does not have
      { kind: "Route", api: OWNED, spec: { routeKey: "GET /legacy", target: "integrations/i-orders" } },
    ]);
    expect(owned.referenced).toEqual([{ kind: "Api", api: OWNED, spec: { protocolType: "HTTP" } }]);
    expect(owned.header[1]).toBe("No Api document: the one at infra/orders.yaml:1 declares the API; these documents join it.");
  });

  it("writes an unmanaged whole API's Api document without prune, with its unmanaged children", () => {
    const whole = fileNamed(`api-${WHOLE}.yaml`);
    expect(whole.documents.map((document) => document.kind)).toEqual(["Api", "Integration", "Route"]);
    expect(whole.documents[0]).toEqual({ kind: "Api", api: WHOLE, spec: { protocolType: "HTTP" } });
    expect(whole.referenced).toBeUndefined();
  });

  it("writes of an account only the settings listed", () => {
    expect(fileNamed("account-self.yaml").documents).toEqual([
      { kind: "AlternateContact", spec: { type: "SECURITY", name: "Sec", title: "CISO", emailAddress: "s@example.com", phoneNumber: "+1 555 0100" } },
    ]);
    expect(fileNamed(`account-${MEMBER}.yaml`).documents).toEqual([{ kind: "RegionOptIn", account: MEMBER, spec: { region: "ap-east-1", enabled: true } }]);
  });

  it("skips the findings no longer live, naming them, and writes no file for a place left empty", () => {
    expect(exported.gone).toEqual([`Route/${OWNED}/GET /deleted-since`, "RegionOptIn/333333333333/me-south-1"]);
    expect(exported.files.map((file) => file.name)).toEqual([`api-${OWNED}.yaml`, `api-${WHOLE}.yaml`, `account-${MEMBER}.yaml`, "account-self.yaml"]);
    expect(exported.problems).toEqual([]);
  });

  it("counts every finding of an API that is gone as gone", () => {
    const { files, gone } = exportUnmanaged({ ...LIVE, apis: { [OWNED]: LIVE.apis[OWNED]! } }, selection);
    expect(files.map((file) => file.name)).not.toContain(`api-${WHOLE}.yaml`);
    expect(gone).toEqual(expect.arrayContaining([`Api/${WHOLE}`, `Integration/${WHOLE}/i-whole`, `Route/${WHOLE}/$default`]));
  });

  it("writes YAML that loads back as exactly the documents, without the owned API's Api document", () => {
    const text = renderExportedFile(fileNamed(`api-${OWNED}.yaml`));
    expect(parseAllDocuments(text).map((document) => document.toJS() as unknown)).toEqual(fileNamed(`api-${OWNED}.yaml`).documents);
    expect(text).not.toContain("kind: Api");
  });

  it("writes terraform with the API's data source, and a resource and an import block per finding only", () => {
    const files = renderExportAsTerraform(exported.files, LIVE);
    expect(files.map((file) => file.name)).toEqual([`api-${OWNED}.tf`, `api-${WHOLE}.tf`, `account-${MEMBER}.tf`, "account-self.tf", "providers.tf"]);
    const owned = files[0]!.text;
    expect(owned).toContain(`data "converge_api" "orders" {\n  api_id = "${OWNED}"`);
    expect(owned).toContain('target    = "integrations/${converge_integration.orders-2.integration_id}"');
    expect(owned).toContain('resource "converge_route" "get_legacy" {\n  api_id    = data.converge_api.orders.api_id\n  route_key = "GET /legacy"\n  target    = "integrations/i-orders"\n}');
    const imports = files.flatMap((file) => [...file.text.matchAll(/^ {2}id = "(.*)"$/gm)].map((match) => match[1]));
    expect(imports).toEqual([
      `${OWNED}/i-hand`, `${OWNED}/r-hand`, `${OWNED}/r-legacy`,
      `${WHOLE}/i-whole`, `${WHOLE}/r-whole`,
      `${MEMBER}/ap-east-1`,
      "SECURITY",
    ]);
    expect(files[1]!.text).toContain(`data "converge_api" "whole" {\n  api_id = "${WHOLE}"`);
    expect(files.map((file) => file.text).join("\n")).not.toMatch(/resource "converge_api"|GET \/orders"|GET \/accepted|BILLING|me-south-1/);
  });
});
