import { describe, expect, it } from "vitest";
import { INTEGRATION_FIELDS, ROUTE_FIELDS } from "../../src/contract/gateway.js";
import {
  attributeOfFieldPath,
  documentOfAttributes,
  TERRAFORM_RESOURCES,
  terraformResourceOf,
  terraformResourceOfType,
  wireOfAttribute,
} from "../../src/desired/terraform-resources.js";

/** The facts of each kind's terraform resource, and how attribute values and paths map to the document's. */

describe("each kind's terraform resource", () => {
  it.each([
    ["Route", "converge_route", "api_id", { idField: "routeId", idAttribute: "route_id" }],
    ["Integration", "converge_integration", "api_id", { idField: "integrationId", idAttribute: "integration_id", named: true }],
    ["AlternateContact", "converge_alternate_contact", "account_id", { keyField: "type", keyAttribute: "alternate_contact_type" }],
    ["RegionOptIn", "converge_region_opt_in", "account_id", { keyField: "region", keyAttribute: "region_name" }],
  ] as const)("%s is %s under %s", (kind, typeName, parentAttribute, facts) => {
    const resource = terraformResourceOf(kind);
    expect(resource).toMatchObject({ kind, typeName, parentAttribute, ...facts });
    expect(terraformResourceOfType(typeName)).toBe(resource);
  });

  it("has none for the Api (a data source) nor for a type converge's provider has not", () => {
    expect([...TERRAFORM_RESOURCES.keys()]).not.toContain("Api");
    expect(() => terraformResourceOf("Api")).toThrow(/^kind Api has no terraform resource: expected one of /);
    expect(terraformResourceOfType("converge_api")).toBeUndefined();
    expect(terraformResourceOfType("aws_route")).toBeUndefined();
  });

  it.each([
    ["Route", "routeKey", "required"],
    ["Route", "authorizationType", "defaulted"],
    ["Route", "target", "optional"],
    ["Integration", "timeoutInMillis", "defaulted"],
    ["AlternateContact", "phoneNumber", "required"],
  ] as const)("%s's %s is %s", (kind, field, presence) => {
    expect(terraformResourceOf(kind).fields.find((candidate) => candidate.field === field)?.presence).toBe(presence);
  });
});

describe("an attribute's value as the wire's", () => {
  it.each([
    ["an object's attributes renamed by the schema", { server_name_to_verify: "a.example" }, INTEGRATION_FIELDS.tlsConfig, { serverNameToVerify: "a.example" }],
    ["an attribute the object's schema has not kept for its check", { server_name_to_verify: "a", extra_key: 1 }, INTEGRATION_FIELDS.tlsConfig, { serverNameToVerify: "a", extraKey: 1 }],
    ["map of maps with keys kept", { "404": { "overwrite:statuscode": "410" } }, INTEGRATION_FIELDS.responseParameters, { "404": { "overwrite:statuscode": "410" } }],
    ["a map of objects", { "route.request.header.x": { required: true } }, ROUTE_FIELDS.requestParameters, { "route.request.header.x": { required: true } }],
    ["a value of another shape as it is", "everything", ROUTE_FIELDS.authorizationScopes, "everything"],
  ])("%s", (_, value, schema, wire) => {
    expect(wireOfAttribute(value, schema)).toEqual(wire);
  });
});

describe("the document of attribute values", () => {
  it("names the parent, pins by the pin's ID, and carries the name given", () => {
    const values = { api_id: "a1b2c3d4e5", integration_id: "i1", integration_type: "MOCK" };
    expect(documentOfAttributes(terraformResourceOf("Integration"), values, { pin: values, name: "n" })).toMatchObject({
      kind: "Integration", name: "n", api: "a1b2c3d4e5", spec: { integrationId: "i1", integrationType: "MOCK", integrationUri: null },
    });
    expect(documentOfAttributes(terraformResourceOf("Integration"), values).spec).not.toHaveProperty("integrationId");
  });
});

describe("the attribute of a document's field path", () => {
  it.each([
    ["Route", "authorizationScopes", "authorization_scopes"],
    ["Route", "spec.routeKey", "route_key"],
    ["Route", "routeId", "route_id"],
    ["Route", ["spec", "routeId"], "route_id"],
    ["Route", "api", "api_id"],
    ["Route", "account", undefined],
    ["Route", ["requestParameters", "route.request.header.x", "required"], 'request_parameters["route.request.header.x"].required'],
    ["Route", ["authorizationScopes", 1], "authorization_scopes[1]"],
    ["Integration", "tlsConfig.serverNameToVerify", "tls_config.server_name_to_verify"],
    ["Integration", "requestParameters.overwrite:header.x-tenant", 'request_parameters["overwrite:header.x-tenant"]'],
    ["Integration", "responseParameters.404.overwrite:statuscode", 'response_parameters["404"]["overwrite:statuscode"]'],
    ["Integration", "name", undefined],
    ["AlternateContact", "type", "alternate_contact_type"],
    ["AlternateContact", "phoneNumber", "phone_number"],
    ["AlternateContact", "account", "account_id"],
    ["RegionOptIn", "region", "region_name"],
    ["RegionOptIn", "enabled", "enabled"],
    ["RegionOptIn", "status", "enabled"],
    ["RegionOptIn", "nothing", undefined],
    ["Api", "prune", undefined],
  ] as const)("%s %j is %s", (kind, path, attribute) => {
    expect(attributeOfFieldPath(kind, path)).toBe(attribute);
  });
});
