import { describe, expect, it } from "vitest";
import { parseDesiredText, type LoadedDocument } from "../../src/desired/load.js";
import { attributeOfFieldPath } from "../../src/desired/terraform-resources.js";
import type { AlternateContact } from "../../src/contract/account.js";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { classifyEstate, type DriftSources } from "../../src/reconcile/drift-estate.js";
import type { DriftResource } from "../../src/reconcile/drift-report.js";
import type { LiveState } from "../../src/reconcile/model.js";
import { liveApi } from "../support/live-api.js";

/**
 * classifyEstate is pure: the sources (documents, terraform state instances, inventories) and live
 * state in; every resource in one outcome, conflicts between sources, the unmanaged resources of the
 * scope and coverage out.
 */

const OWNED = "apiaaaaaaa";
const OTHER = "apibbbbbbb";
const STATE = { state: "infra/terraform.tfstate" };

const route = (id: string, routeKey: string, extra: Partial<Route> = {}): Route => ({ routeId: id, routeKey, authorizationType: "NONE", apiGatewayManaged: false, ...extra }) as Route;
const integration = (id: string, uri: string, extra: Partial<Integration> = {}): Integration =>
  ({ integrationId: id, integrationType: "HTTP_PROXY", integrationUri: uri, integrationMethod: "ANY", payloadFormatVersion: "1.0", connectionType: "INTERNET", timeoutInMillis: 30000, apiGatewayManaged: false, ...extra }) as Integration;
const contact = (type: AlternateContact["AlternateContactType"], phone = "+1 555 0100"): AlternateContact =>
  ({ AlternateContactType: type, Name: "Ops", Title: "lead", EmailAddress: "ops@example.com", PhoneNumber: phone });

function live(): LiveState {
  return {
    apis: {
      [OWNED]: liveApi({ apiId: OWNED, name: "orders", protocolType: "HTTP", routes: [route("r1", "GET /orders"), route("r2", "GET /inventory"), route("r3", "GET /stray"), route("rm", "$default", { apiGatewayManaged: true })], integrations: [integration("i1", "https://inventory.example")] }),
      [OTHER]: liveApi({ apiId: OTHER, name: "nobody", protocolType: "HTTP", routes: [route("r9", "GET /hand")], integrations: [] }),
    },
    apiIdsByName: {},
    contacts: { "self/SECURITY": contact("SECURITY"), "self/BILLING": contact("BILLING", "+1 555 9999"), "self/OPERATIONS": null },
    regions: { self: { "us-east-1": "ENABLED_BY_DEFAULT", "ap-east-1": "ENABLED", "eu-south-1": "DISABLED" } },
  };
}

function documentsOf(file: string, text: string): LoadedDocument[] {
  const parsed = parseDesiredText(text, file);
  expect(parsed.problems).toEqual([]);
  return parsed.documents;
}

/** Documents as the state loader makes them: each with its state and terraform address. */
function stateDocuments(entries: ReadonlyArray<readonly [address: string, text: string]>): LoadedDocument[] {
  return entries.map(([address, text], index) => ({ ...documentsOf(STATE.state, text)[0]!, terraform: { ...STATE, address }, source: { file: STATE.state, line: index + 1, column: 1 } }));
}

const YAML = documentsOf("a.yaml", [
  `kind: Api\napi: ${OWNED}\nspec: {protocolType: HTTP}`,
  `kind: Route\napi: ${OWNED}\nspec: {routeKey: GET /orders}`,
  "kind: AlternateContact\nspec: {type: SECURITY, name: Ops, title: lead, emailAddress: ops@example.com, phoneNumber: \"+1 555 0100\"}",
].join("\n---\n"));

const HCL = stateDocuments([
  ["converge_route.inventory", `kind: Route\napi: ${OWNED}\nspec: {routeKey: GET /inventory, routeId: r2}`],
  ["converge_integration.inventory", `kind: Integration\nname: tf-inventory\napi: ${OWNED}\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://inventory.example", integrationMethod: ANY, payloadFormatVersion: "1.0", integrationId: i1}`],
  ["module.billing.converge_alternate_contact.billing", "kind: AlternateContact\nspec: {type: BILLING, name: Ops, title: lead, emailAddress: ops@example.com, phoneNumber: \"+1 555 0100\"}"],
]);

const attributeOf: DriftSources["attributeOf"] = (loaded, path) => attributeOfFieldPath(loaded.document.kind, path) ?? path;

function byAddress(resources: ReadonlyArray<DriftResource>) {
  return Object.fromEntries(resources.map((resource) => [resource.address, resource]));
}

describe("classifyEstate", () => {
  it("compares a state's resources with what the state recorded, under terraform's names, and never reports them unmanaged", () => {
    const { resources, coverage } = classifyEstate({ documents: YAML, stateDocuments: HCL, attributeOf }, live());
    const found = byAddress(resources);
    expect(found[`Route/${OWNED}/GET /inventory`]).toMatchObject({ outcome: "in-sync", source: { ...STATE, address: "converge_route.inventory" } });
    expect(found[`Integration/${OWNED}/tf-inventory`]).toMatchObject({ outcome: "in-sync" });
    expect(found["AlternateContact/self/BILLING"]).toMatchObject({
      outcome: "drifted",
      fields: [{ path: "phone_number", desired: "+1 555 0100", live: "+1 555 9999" }],
      source: { ...STATE, address: "module.billing.converge_alternate_contact.billing" },
    });
    // only the stray route is undeclared in the owned API; the service's own $default route is protected, not unmanaged
    expect(resources.filter((resource) => resource.outcome === "unmanaged").map((resource) => resource.address)).toEqual([`Route/${OWNED}/GET /stray`]);
    expect(found[`Route/${OWNED}/$default`]?.outcome).toBe("refused");
    // live in the owned scope: r1, r2, r3, i1, both contacts (the APIs count only in scope all; a Region not declared is not looked at)
    expect(coverage).toEqual({ managed: 5, live: 6 });
  });

  it("reports the state's resources unmanaged when the state is not given", () => {
    const { resources } = classifyEstate({ documents: YAML }, live());
    expect(resources.filter((resource) => resource.outcome === "unmanaged").map((resource) => resource.address).sort())
      .toEqual([`Integration/${OWNED}/i1`, `Route/${OWNED}/GET /inventory`, `Route/${OWNED}/GET /stray`]);
  });

  it("reports a resource held by a state that is gone as missing", () => {
    const gone = stateDocuments([["converge_route.gone", `kind: Route\napi: ${OWNED}\nspec: {routeKey: GET /gone, routeId: r404}`]]);
    const { resources } = classifyEstate({ documents: [], stateDocuments: gone, attributeOf }, live());
    expect(byAddress(resources)[`Route/${OWNED}/GET /gone`]).toMatchObject({ outcome: "missing", fields: [], reason: "the state holds it, but it is gone from live state" });
  });

  it("reports a live resource two sources claim as a conflict on each, naming both", () => {
    const twice = stateDocuments([["converge_route.orders", `kind: Route\napi: ${OWNED}\nspec: {routeKey: GET /orders, routeId: r1}`]]);
    const { resources } = classifyEstate({ documents: YAML, stateDocuments: twice, attributeOf }, live());
    const conflicts = resources.filter((resource) => resource.outcome === "conflict");
    expect(conflicts).toHaveLength(2);
    for (const conflict of conflicts) {
      expect(conflict.address).toBe(`Route/${OWNED}/GET /orders`);
      expect(conflict.claimedBy).toEqual([{ file: "a.yaml", line: 5, column: 1 }, { ...STATE, address: "converge_route.orders" }]);
      expect(conflict.reason).toMatch(/^claimed by 2 sources \(a\.yaml:5; infra\/terraform\.tfstate converge_route\.orders\): two managers will fight/);
    }
  });

  it("does not take a cdktf inventory beside the stack's own documents for a conflict, but does beside a state's resource", () => {
    const inventory = stateDocuments([["terraform_data.stack_inventory", `kind: Route\napi: ${OWNED}\nensure: absent\nspec: {routeKey: GET /orders}`]]);
    const beside = classifyEstate({ documents: YAML, claims: inventory, attributeOf }, live());
    expect(beside.resources.filter((resource) => resource.outcome === "conflict")).toEqual([]);
    const state = stateDocuments([["converge_route.orders", `kind: Route\napi: ${OWNED}\nspec: {routeKey: GET /orders, routeId: r1}`]]);
    const fighting = classifyEstate({ documents: [], stateDocuments: state, claims: inventory, attributeOf }, live());
    expect(fighting.resources.map((resource) => resource.outcome)).toEqual(["conflict"]);
  });

  it("with scope all, reports every live resource no source manages (not the service's own), and counts APIs", () => {
    const { resources, coverage } = classifyEstate({ documents: YAML, stateDocuments: HCL, attributeOf, scope: "all" }, live());
    const unmanaged = resources.filter((resource) => resource.outcome === "unmanaged");
    expect(unmanaged.map((resource) => [resource.address, resource.source] as const).sort(([a], [b]) => a.localeCompare(b))).toEqual([
      [`Api/${OTHER}`, null],
      ["RegionOptIn/self/ap-east-1", null],
      [`Route/${OWNED}/GET /stray`, { file: "a.yaml", line: 1, column: 1 }],
      [`Route/${OTHER}/GET /hand`, null],
    ]);
    // live: both APIs, r1, r2, r3, i1, r9, two contacts and one opted-in Region; managed: the owned API and five resources
    expect(coverage).toEqual({ managed: 6, live: 10 });
  });
});
