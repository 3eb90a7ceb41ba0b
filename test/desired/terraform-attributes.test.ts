import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ALTERNATE_CONTACT_SERVICE_NAMES } from "../../src/desired/kinds/alternate-contact.js";
import { REGION_OPT_IN_SERVICE_NAMES } from "../../src/desired/kinds/region-opt-in.js";
import { IntegrationSpec, RouteSpec } from "../../src/desired/schema.js";
import { attributeValue, camelCase, fieldAttribute, snakeCase } from "../../src/desired/terraform-attributes.js";

/**
 * The one naming rule of terraform attributes (the provider's resources and the constructs'
 * provider vehicle): snake_case of the service's field names, nested object keys too, map keys as
 * written.
 */

describe("terraform attribute names", () => {
  it.each([
    ["integrationUri", "integration_uri"],
    ["AlternateContactType", "alternate_contact_type"],
    ["routeKey", "route_key"],
    ["timeoutInMillis", "timeout_in_millis"],
    ["serverNameToVerify", "server_name_to_verify"],
    ["Name", "name"],
    ["target", "target"],
  ])("%s is the attribute %s, and back", (field, attribute) => {
    expect(snakeCase(field)).toBe(attribute);
    if (/^[a-z]/.test(field)) expect(camelCase(attribute)).toBe(field);
  });

  it.each([
    ["type", ALTERNATE_CONTACT_SERVICE_NAMES, "alternate_contact_type"],
    ["emailAddress", ALTERNATE_CONTACT_SERVICE_NAMES, "email_address"],
    ["region", REGION_OPT_IN_SERVICE_NAMES, "region_name"],
    ["enabled", REGION_OPT_IN_SERVICE_NAMES, "enabled"],
    ["payloadFormatVersion", {}, "payload_format_version"],
  ])("the spec field %s is the attribute of the service's name of it", (field, names, attribute) => {
    expect(fieldAttribute(field, names)).toBe(attribute);
  });
});

describe("terraform attribute values", () => {
  const field = (shape: z.ZodRawShape, name: string) => shape[name] as z.ZodType;

  it.each<[string, z.ZodType, unknown, unknown]>([
    ["an object's keys are snake_case, every attribute of its schema present", field(IntegrationSpec.shape, "tlsConfig"), { serverNameToVerify: "a.example" }, { server_name_to_verify: "a.example" }],
    ["an object without a value of its attribute has it null", field(IntegrationSpec.shape, "tlsConfig"), {}, { server_name_to_verify: null }],
    ["a map's keys stay as written", field(IntegrationSpec.shape, "requestTemplates"), { "application/json": "{}", camelKey: "x" }, { "application/json": "{}", camelKey: "x" }],
    ["a map of maps keeps both levels' keys", field(IntegrationSpec.shape, "responseParameters"), { "404": { "overwrite:statusCode": "200" } }, { "404": { "overwrite:statusCode": "200" } }],
    ["a map of objects: keys as written, the objects' keys snake_case", field(RouteSpec.shape, "requestParameters"), { "route.request.header.authToken": { required: true } }, { "route.request.header.authToken": { required: true } }],
    ["a list item by item", field(RouteSpec.shape, "authorizationScopes"), ["orders.read", "orders.write"], ["orders.read", "orders.write"]],
    ["a scalar as it is", field(IntegrationSpec.shape, "timeoutInMillis"), 12000, 12000],
    ["null is null", field(IntegrationSpec.shape, "description"), null, null],
    ["a value that does not have its schema's shape is left for the schema to report", field(IntegrationSpec.shape, "tlsConfig"), "not an object", "not an object"],
  ])("%s", (_name, schema, value, expected) => {
    expect(attributeValue(value, schema)).toEqual(expected);
  });

  it("snake_cases object keys at any depth, through lists and maps", () => {
    const schema = z.record(z.string(), z.array(z.object({ innerField: z.object({ deepField: z.number() }) })));
    expect(attributeValue({ keyAsWritten: [{ innerField: { deepField: 1 } }] }, schema)).toEqual({ keyAsWritten: [{ inner_field: { deep_field: 1 } }] });
  });
});
