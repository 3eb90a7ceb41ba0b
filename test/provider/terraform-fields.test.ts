import { describe, expect, it } from "vitest";
import { INTEGRATION_FIELDS, ROUTE_FIELDS } from "../../src/contract/gateway.js";
import { specOfAttributes, terraformResourceOf, wireOfAttribute } from "../../src/desired/terraform-resources.js";
import { isUnknown, UNKNOWN, types } from "../../src/provider/runtime/index.js";
import { attributeOfPath, attributeOfWire, ctyTypeOf, attributeSchemasOf, specFields } from "../../src/provider/terraform-fields.js";

/** The attributes of a kind's resource come from the contract's field tables; values cross between terraform's form and the wire's. */

const ROUTE = specFields(terraformResourceOf("Route"));
const INTEGRATION = specFields(terraformResourceOf("Integration"));

describe("attributes from the contract's fields", () => {
  it("names every route and integration field of the spec by its snake_case, and no other", () => {
    expect(Object.keys(attributeSchemasOf(ROUTE)).sort()).toEqual([
      "api_key_required", "authorization_scopes", "authorization_type", "authorizer_id", "model_selection_expression",
      "operation_name", "request_models", "request_parameters", "route_key", "route_response_selection_expression", "target",
    ]);
    expect(Object.keys(attributeSchemasOf(INTEGRATION))).toHaveLength(Object.keys(INTEGRATION_FIELDS).length);
    expect(attributeSchemasOf(INTEGRATION)).toHaveProperty("timeout_in_millis");
    expect(attributeSchemasOf(INTEGRATION)).toHaveProperty("tls_config");
  });

  it.each([
    ["route_key", { required: true }],
    ["target", { optional: true }],
    ["authorization_type", { optional: true, computed: true }],
  ])("makes %s %j", (attribute, flags) => {
    expect(attributeSchemasOf(ROUTE)[attribute]).toMatchObject(flags);
  });

  it.each([
    [ROUTE_FIELDS.routeKey, types.string],
    [ROUTE_FIELDS.authorizationType, types.string],
    [ROUTE_FIELDS.apiKeyRequired, types.bool],
    [INTEGRATION_FIELDS.timeoutInMillis, types.number],
    [INTEGRATION_FIELDS.requestParameters, types.map(types.string)],
    [INTEGRATION_FIELDS.responseParameters, types.map(types.map(types.string))],
    [INTEGRATION_FIELDS.tlsConfig, types.object({ server_name_to_verify: types.string })],
    [ROUTE_FIELDS.requestParameters, types.map(types.object({ required: types.bool }))],
    [ROUTE_FIELDS.authorizationScopes, types.list(types.string)],
  ])("gives a wire schema its terraform type (%#)", (schema, type) => {
    expect(ctyTypeOf(schema)).toEqual(type);
  });

  it("types scopes as a set, compared as one by terraform", () => {
    expect(ROUTE.find((field) => field.field === "authorizationScopes")?.type).toEqual(types.set(types.string));
  });
});

describe("values between terraform and the wire", () => {
  const tls = INTEGRATION_FIELDS.tlsConfig;

  it.each([
    ["an object's attributes renamed", { server_name_to_verify: "a.example" }, tls, { serverNameToVerify: "a.example" }],
    ["a null attribute of an object left out", { server_name_to_verify: null }, tls, {}],
    ["map keys kept", { "overwrite:header.x-id": "$context.id" }, INTEGRATION_FIELDS.requestParameters, { "overwrite:header.x-id": "$context.id" }],
    ["null as null", null, ROUTE_FIELDS.routeKey, null],
    ["unknown as undefined (don't care)", UNKNOWN, ROUTE_FIELDS.routeKey, undefined],
    ["a list with an unknown element as undefined", ["a", UNKNOWN], ROUTE_FIELDS.authorizationScopes, undefined],
  ])("wireOfAttribute: %s", (_, value, schema, wire) => {
    expect(wireOfAttribute(value, schema, isUnknown)).toEqual(wire);
  });

  it("reads the wire back: an absent field of an object is null", () => {
    const field = (name: string) => INTEGRATION.find((candidate) => candidate.field === name)!;
    expect(attributeOfWire(field("tlsConfig"), {})).toEqual({ server_name_to_verify: null });
    expect(attributeOfWire(field("integrationUri"), undefined)).toBeNull();
    expect(attributeOfWire(field("responseParameters"), { "200": { a: "b" } })).toEqual({ "200": { a: "b" } });
  });

  it("makes a spec of values: unknown left out, null optional 'must be absent', null defaulted and required left out", () => {
    const values = { route_key: "GET /a", target: null, authorization_type: null, authorizer_id: UNKNOWN, authorization_scopes: ["b", "a"] };
    expect(specOfAttributes(ROUTE, values, isUnknown)).toEqual({
      routeKey: "GET /a",
      target: null,
      authorizationScopes: ["b", "a"],
      ...Object.fromEntries(["requestParameters", "requestModels", "modelSelectionExpression", "routeResponseSelectionExpression", "operationName"].map((field) => [field, null])),
    });
  });
});

describe("the attribute a document path names", () => {
  it.each([
    ["api", { attribute: "api_id", prefix: "api" }],
    ["spec.routeKey", { attribute: "route_key", prefix: "spec.routeKey" }],
    ['spec.requestParameters["x"]', { attribute: "request_parameters", prefix: "spec.requestParameters" }],
    ["spec.routeId", { attribute: "route_id", prefix: "spec.routeId" }],
    ["account", { attribute: "account_id", prefix: "account" }],
    ["spec.nothing", undefined],
    ["", undefined],
  ])("%s", (path, expected) => {
    expect(attributeOfPath(ROUTE, path, ["routeId"])).toEqual(expected);
  });
});
