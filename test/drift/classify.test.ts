import { describe, expect, it } from "vitest";
import { parseDesiredText, type LoadedDocument } from "../../src/desired/load.js";
import { classifyDrift } from "../../src/reconcile/drift-classify.js";
import type { DriftResource } from "../../src/reconcile/drift-report.js";
import type { LiveState } from "../../src/reconcile/model.js";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { liveApi } from "../support/live-api.js";

/**
 * classifyDrift is pure: documents and live state in, one outcome per resource out. These cases pin
 * the rules that are drift's own (not the plan's): how ensure: absent, unreadable needs, problems and
 * undecidable unmanaged resources map to outcomes.
 */

const API = "apiaaaaaaa";

function documentsOf(files: Readonly<Record<string, string>>): LoadedDocument[] {
  return Object.entries(files).flatMap(([file, text]) => {
    const parsed = parseDesiredText(text, file);
    expect(parsed.problems).toEqual([]);
    return parsed.documents;
  });
}

function liveWith(api: { routes?: Route[]; integrations?: Integration[] } = {}, rest: Partial<LiveState> = {}): LiveState {
  return {
    apis: { [API]: liveApi({ apiId: API, name: "orders", protocolType: "HTTP", ...api }) },
    apiIdsByName: { orders: [API] },
    contacts: {},
    regions: {},
    ...rest,
  };
}

const integration = (id: string, uri: string, extra: Partial<Integration> = {}): Integration =>
  ({ integrationId: id, integrationType: "HTTP_PROXY", integrationUri: uri, integrationMethod: "ANY", payloadFormatVersion: "1.0", connectionType: "INTERNET", timeoutInMillis: 30000, apiGatewayManaged: false, ...extra }) as Integration;
const route = (id: string, routeKey: string, extra: Partial<Route> = {}): Route => ({ routeId: id, routeKey, authorizationType: "NONE", apiGatewayManaged: false, ...extra }) as Route;

function byAddress(resources: ReadonlyArray<DriftResource>): Record<string, Pick<DriftResource, "outcome" | "reason" | "fields">> {
  return Object.fromEntries(resources.map((resource) => [resource.address, { outcome: resource.outcome, reason: resource.reason, fields: resource.fields }]));
}

const OWNED = `kind: Api\napi: ${API}\nspec: {protocolType: HTTP}\n`;
const BACKEND = `kind: Integration\nname: backend\napi: ${API}\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://b.example", integrationMethod: ANY, payloadFormatVersion: "1.0"}\n`;

describe("classifyDrift", () => {
  it("reports an ensure: absent resource that exists as drifted on the field ensure, and one that is gone as in sync", () => {
    const documents = documentsOf({
      "a.yaml": `kind: Route\napi: ${API}\nensure: absent\nspec: {routeKey: GET /old}\n---\nkind: Route\napi: ${API}\nensure: absent\nspec: {routeKey: GET /gone}\n`,
    });
    expect(byAddress(classifyDrift(documents, liveWith({ routes: [route("r1", "GET /old")] })))).toEqual({
      [`Route/${API}/GET /old`]: { outcome: "drifted", reason: "declared ensure: absent, but it exists", fields: [{ path: "ensure", desired: "absent", live: "present" }] },
      [`Route/${API}/GET /gone`]: { outcome: "in-sync", reason: null, fields: [] },
    });
  });

  it("reports what pruning would delete as unmanaged even when the Api document does not prune", () => {
    const documents = documentsOf({ "a.yaml": `${OWNED}---\n${BACKEND}` });
    const resources = byAddress(classifyDrift(documents, liveWith({ integrations: [integration("i1", "https://b.example"), integration("i2", "https://stray.example")], routes: [route("r9", "GET /stray")] })));
    expect(resources[`Integration/${API}/backend`]!.outcome).toBe("in-sync");
    expect(resources[`Api/${API}`]!.outcome).toBe("in-sync");
    expect(resources[`Integration/${API}/i2`]).toEqual({ outcome: "unmanaged", reason: "live but not declared, in an API the Api document at a.yaml:1 owns", fields: [] });
    expect(resources[`Route/${API}/GET /stray`]!.outcome).toBe("unmanaged");
  });

  it("refuses to call a resource unmanaged when a document of its kind in that API could not be compared", () => {
    // the twin document matches two live integrations: either might be the one it declares
    const twin = `kind: Integration\nname: twin\napi: ${API}\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://twin.example"}\n`;
    const documents = documentsOf({ "a.yaml": `${OWNED}---\n${twin}` });
    const live = liveWith({ integrations: [integration("t1", "https://twin.example"), integration("t2", "https://twin.example"), integration("o1", "https://orphan.example")], routes: [route("r9", "GET /stray")] });
    const resources = byAddress(classifyDrift(documents, live));
    expect(resources[`Integration/${API}/twin`]!.outcome).toBe("unknown");
    expect(resources[`Integration/${API}/twin`]!.reason).toMatch(/^spec: integration "twin" matches 2 live integrations/);
    for (const id of ["t1", "t2", "o1"]) {
      expect(resources[`Integration/${API}/${id}`]!.outcome, id).toBe("unknown");
      expect(resources[`Integration/${API}/${id}`]!.reason).toMatch(/^not declared by a compared document, but the Integration document at a\.yaml:5 could not be compared \(spec: integration "twin" matches 2/);
    }
    // routes are another kind: the twin cannot declare them
    expect(resources[`Route/${API}/GET /stray`]!.outcome).toBe("unmanaged");
  });

  it("reports a route whose target integration could not be compared as unknown, and one whose target is missing as missing", () => {
    const twin = `kind: Integration\nname: twin\napi: ${API}\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://twin.example"}\n`;
    const documents = documentsOf({
      "a.yaml": `${twin}---\n${BACKEND}---\nkind: Route\napi: ${API}\nspec: {routeKey: GET /a, target: {integration: twin}}\n---\nkind: Route\napi: ${API}\nspec: {routeKey: GET /b, target: {integration: backend}}\n`,
    });
    const live = liveWith({ integrations: [integration("t1", "https://twin.example"), integration("t2", "https://twin.example")], routes: [route("ra", "GET /a", { target: "integrations/t1" })] });
    const resources = byAddress(classifyDrift(documents, live));
    expect(resources[`Route/${API}/GET /a`]).toEqual({ outcome: "unknown", reason: 'its target, integration "twin", could not be compared, so neither can the route\'s target', fields: [] });
    expect(resources[`Integration/${API}/backend`]!.outcome).toBe("missing");
    expect(resources[`Route/${API}/GET /b`]).toEqual({
      outcome: "missing",
      reason: null,
      fields: [{ path: "routeKey", desired: "GET /b", live: null }, { path: "target", desired: { integration: "backend" }, live: null }],
    });
  });

  it("makes only the documents whose read failed unknown, with the failure", () => {
    const documents = documentsOf({
      "c.yaml": [
        "kind: AlternateContact\nspec: {type: BILLING, name: B, title: T, emailAddress: b@example.com, phoneNumber: \"+1 555 0100\"}",
        "kind: AlternateContact\nspec: {type: SECURITY, name: S, title: T, emailAddress: s@example.com, phoneNumber: \"+1 555 0100\"}",
      ].join("\n---\n"),
    });
    const live = liveWith({}, { contacts: { "self/SECURITY": { AlternateContactType: "SECURITY", Name: "S", Title: "T", EmailAddress: "s@example.com", PhoneNumber: "+1 555 0100" } } });
    const failures = new Map([["contact:self/BILLING", "could not read the BILLING contact of the caller's account: boom"]]);
    expect(byAddress(classifyDrift(documents, live, failures))).toEqual({
      "AlternateContact/self/BILLING": { outcome: "unknown", reason: "could not read the BILLING contact of the caller's account: boom", fields: [] },
      "AlternateContact/self/SECURITY": { outcome: "in-sync", reason: null, fields: [] },
    });
  });

  it("attributes a problem to the document that holds it, in a JSON array file too", () => {
    const documents = documentsOf({
      "routes.json": JSON.stringify([
        { kind: "Route", api: API, spec: { routeKey: "GET /fine" } },
        { kind: "Route", api: API, spec: { routeKey: "not an http key" } },
        { kind: "Route", api: { name: "missing-api" }, spec: { routeKey: "GET /x" } },
      ], null, 2),
    });
    const resources = byAddress(classifyDrift(documents, liveWith({ routes: [route("r1", "GET /fine")] })));
    expect(resources[`Route/${API}/GET /fine`]!.outcome).toBe("in-sync");
    expect(resources[`Route/${API}/not an http key`]!.outcome).toBe("unknown");
    expect(resources[`Route/${API}/not an http key`]!.reason).toMatch(/^spec\.routeKey: /);
    expect(resources["Route/name:missing-api/GET /x"]).toEqual({ outcome: "unknown", reason: 'api: no API is named "missing-api" in this account (converge manages an API\'s routes and integrations, never the API itself: create it first, or check the endpoint and token)', fields: [] });
  });
});
