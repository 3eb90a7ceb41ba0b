import { beforeAll, describe, expect, it } from "vitest";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { describeTerraform, errorsOf, operations, ORDERS_API, providerBlock, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * Issue 26, item 3: the provider's MoveResourceState from `terraform_data` (terraform ≥ 1.8), and
 * its natural-key import IDs. An HCL configuration that wrapped converge with `terraform_data`
 * resources whose `input` is a converge document hands each one's live resource to a `converge_*`
 * resource with a `moved` block: the plan shows only moves, nothing is written, the next plan is
 * clean. A natural-key import ID that matches nothing, or is malformed, fails with what was received.
 */

const suite = terraformSuite("move");
let work: TerraformDir;
let route: Route;
let integration: Integration;

/** What an HCL user may have wrapped converge in: terraform_data resources whose input is a document. */
const WRAPPED = `
resource "terraform_data" "backend" {
  input = jsonencode({ kind = "Integration", name = "backend", api = "${ORDERS_API}", spec = { integrationType = "HTTP_PROXY", integrationUri = "https://move.example/$\${x}", integrationMethod = "GET", payloadFormatVersion = "1.0" } })
}

resource "terraform_data" "get_moved" {
  input = { kind = "Route", api = "${ORDERS_API}", spec = { routeKey = "GET /moved" } }
}

resource "terraform_data" "security" {
  input = { kind = "AlternateContact", spec = { type = "SECURITY", name = "Sec", title = "CISO", emailAddress = "sec@example.com", phoneNumber = "+1 555 0100" } }
}
`;

/** The converge resources that declare the same live resources, and the moves. */
const MOVED = `
resource "converge_integration" "backend" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://move.example/$\${x}"
  integration_method     = "GET"
  payload_format_version = "1.0"
}

resource "converge_route" "get_moved" {
  api_id    = "${ORDERS_API}"
  route_key = "GET /moved"
  target    = "integrations/\${converge_integration.backend.integration_id}"
}

resource "converge_alternate_contact" "security" {
  alternate_contact_type = "SECURITY"
  name                   = "Sec"
  title                  = "CISO"
  email_address          = "sec@example.com"
  phone_number           = "+1 555 0100"
}

moved {
  from = terraform_data.backend
  to   = converge_integration.backend
}

moved {
  from = terraform_data.get_moved
  to   = converge_route.get_moved
}

moved {
  from = terraform_data.security
  to   = converge_alternate_contact.security
}
`;

beforeAll(async () => {
  integration = await suite.clients.gateway.createIntegration(ORDERS_API, { integrationType: "HTTP_PROXY", integrationUri: "https://move.example/${x}", integrationMethod: "GET", payloadFormatVersion: "1.0" });
  route = await suite.clients.gateway.createRoute(ORDERS_API, { routeKey: "GET /moved", target: `integrations/${integration.integrationId}` });
  await suite.clients.account.putAlternateContact({ AlternateContactType: "SECURITY", Name: "Sec", Title: "CISO", EmailAddress: "sec@example.com", PhoneNumber: "+1 555 0100" });
  work = await suite.initialized("move", providerBlock() + WRAPPED);
  const applied = await work.apply();
  expect(applied.code, describeTerraform(applied)).toBe(0);
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("moving state from terraform_data to converge's resources under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("moves each terraform_data holding a document to its converge resource: the plan shows only moves, nothing is written, the next plan is clean", async () => {
    work.write(providerBlock() + MOVED);
    const { result: plan, requests } = await requestsDuring(suite.service, () => work.plan());
    expect(plan.code, describeTerraform(plan)).toBe(2);
    expect(plan.stdout).toContain("# terraform_data.get_moved has moved to converge_route.get_moved");
    expect(plan.stdout).toContain("# terraform_data.backend has moved to converge_integration.backend");
    expect(plan.stdout).toContain("# terraform_data.security has moved to converge_alternate_contact.security");
    expect(plan.stdout).toContain("Plan: 0 to add, 0 to change, 0 to destroy.");
    expect(plan.stdout).not.toMatch(/will be (created|destroyed|updated in-place)|must be replaced/);

    const { result: apply, requests: applyRequests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(work.attributes("converge_route.get_moved")).toMatchObject({ id: `${ORDERS_API}/${route.routeId}`, route_id: route.routeId, route_key: "GET /moved", target: `integrations/${integration.integrationId}` });
    expect(work.attributes("converge_integration.backend")).toMatchObject({ integration_id: integration.integrationId, integration_uri: "https://move.example/${x}" });
    expect(work.attributes("converge_alternate_contact.security")).toMatchObject({ name: "Sec", title: "CISO" });
    const { result: again, requests: againRequests } = await requestsDuring(suite.service, () => work.plan());
    expect(again.code, describeTerraform(again)).toBe(0);
    expect(operations([...requests, ...applyRequests, ...againRequests], { writesOnly: true })).toEqual([]);
  });

  it("imports by natural key, and rejects a natural-key import ID that is malformed or matches no live resource, naming what it received", async () => {
    const attempt = async (id: string) => {
      work.write(`${providerBlock()}${MOVED.replace(/moved \{[^}]*\}/g, "")}
resource "converge_route" "other" {
  api_id    = "${ORDERS_API}"
  route_key = "GET /other"
}

import {
  to = converge_route.other
  id = ${JSON.stringify(id)}
}
`);
      return requestsDuring(suite.service, () => work.plan());
    };
    const unknownKey = await attempt(`${ORDERS_API}?route=GET%20%2Fother`);
    expect(unknownKey.result.code, describeTerraform(unknownKey.result)).toBe(1);
    expect(errorsOf(unknownKey.result).map((error) => error.text.replace(/\s+/g, " ")).join("\n")).toContain(`converge_route: import ID "${ORDERS_API}?route=GET%20%2Fother" is not valid`);
    expect(errorsOf(unknownKey.result).map((error) => error.text.replace(/\s+/g, " ")).join("\n")).toContain(`"route" is not an attribute of the natural key: expected API_ID?route_key=VALUE`);

    const none = await attempt(`${ORDERS_API}?route_key=GET%20%2Fother`);
    expect(none.result.code, describeTerraform(none.result)).toBe(1);
    expect(errorsOf(none.result).map((error) => error.text.replace(/\s+/g, " ")).join("\n")).toContain(`matches no live resources`);

    const made = await suite.clients.gateway.createRoute(ORDERS_API, { routeKey: "GET /other" });
    const found = await attempt(`${ORDERS_API}?route_key=GET%20%2Fother`);
    expect(found.result.code, describeTerraform(found.result)).toBe(2);
    expect(found.result.stdout).toContain("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.");
    expect(operations([...unknownKey.requests, ...none.requests, ...found.requests], { writesOnly: true })).toEqual([]);
    expect(made.routeKey).toBe("GET /other");
  });
});
