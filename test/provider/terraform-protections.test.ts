import { beforeAll, describe, expect, it } from "vitest";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { describeTerraform, errorsOf, liveIntegrations, liveRoutes, operations, ORDERS_API, providerBlock, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * converge's protections under real terraform: error diagnostics that name the resource and the
 * rule, raised at plan time where terraform allows it, and nothing sent to the service.
 */

const suite = terraformSuite("protections");
let managed: TerraformDir;
/** The orders API's quick-created `$default` route and its integration, as the service made them. */
let managedRoute: Route;
let managedIntegration: Integration;

const INTEGRATION = `
resource "converge_integration" "default" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://orders.internal.example/api"
  integration_method     = "ANY"
  payload_format_version = "1.0"
}
`;

function route(routeKey: string): string {
  return `
resource "converge_route" "default" {
  api_id    = "${ORDERS_API}"
  route_key = "${routeKey}"
  target    = "integrations/\${converge_integration.default.integration_id}"
}
`;
}

/** The managed route and integration as they are live now. */
async function liveManaged() {
  return {
    route: (await liveRoutes(suite.clients, ORDERS_API)).find((candidate) => candidate.routeId === managedRoute.routeId),
    integration: (await liveIntegrations(suite.clients, ORDERS_API)).find((candidate) => candidate.integrationId === managedIntegration.integrationId),
  };
}

beforeAll(async () => {
  managedRoute = (await liveRoutes(suite.clients, ORDERS_API)).find((candidate) => candidate.apiGatewayManaged)!;
  managedIntegration = (await liveIntegrations(suite.clients, ORDERS_API)).find((candidate) => candidate.apiGatewayManaged)!;
  expect(managedRoute).toMatchObject({ routeKey: "$default", target: `integrations/${managedIntegration.integrationId}` });
  managed = await suite.initialized("managed", `${providerBlock()}${INTEGRATION}${route("$default")}
import {
  to = converge_integration.default
  id = "${ORDERS_API}/${managedIntegration.integrationId}"
}

import {
  to = converge_route.default
  id = "${ORDERS_API}/${managedRoute.routeId}"
}
`);
  const imported = await managed.apply();
  expect(imported.code, describeTerraform(imported)).toBe(0);
  expect(imported.stdout).toContain("Apply complete! Resources: 2 imported, 0 added, 0 changed, 0 destroyed.");
  expect(managed.attributes("converge_route.default")).toMatchObject({ api_gateway_managed: true, route_key: "$default" });
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("converge's protections under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("refuses at plan time to change the route key of the imported service-managed $default route, sending nothing", async () => {
    managed.write(`${providerBlock()}${INTEGRATION}${route("GET /renamed")}`);
    const { result: apply, requests } = await requestsDuring(suite.service, () => managed.apply());
    expect(apply.code, describeTerraform(apply)).toBe(1);
    expect(apply.stdout).toContain("Planning failed.");
    const errors = errorsOf(apply);
    expect(errors.map((error) => error.summary)).toEqual(["converge_route: refused by a converge protection"]);
    expect(errors[0]!.text).toContain("with converge_route.default,");
    expect(errors[0]!.text).toMatch(/on main\.tf line \d+, in resource "converge_route" "default":\n\s+\d+:   route_key = "GET \/renamed"/);
    expect(errors[0]!.text.replace(/\s+/g, " ")).toContain(`route ${managedRoute.routeId} is managed by the service (quick create): converge never changes its route key "$default". Nothing was sent to the service.`);
    expect(operations(requests, { writesOnly: true })).toEqual([]);
    expect((await liveManaged()).route).toEqual(managedRoute);
  });

  it("refuses at plan time to destroy the service-managed $default route, sending nothing", async () => {
    managed.write(`${providerBlock()}${INTEGRATION}${route("$default")}`);
    const { result: destroy, requests } = await requestsDuring(suite.service, () => managed.destroy());
    expect(destroy.code, describeTerraform(destroy)).toBe(1);
    const errors = errorsOf(destroy);
    expect(errors.map((error) => error.summary)).toEqual(["converge_route: refused by a converge protection"]);
    expect(errors[0]!.text).toContain("with converge_route.default,");
    const detail = errors[0]!.text.replace(/\s+/g, " ");
    expect(detail).toContain(`route ${managedRoute.routeId} ($default) is managed by the service (quick create): converge never deletes it. Nothing was sent to the service.`);
    expect(detail).toContain("a removed block with lifecycle { destroy = false }");
    expect(operations(requests, { writesOnly: true })).toEqual([]);
    expect(await liveManaged()).toEqual({ route: managedRoute, integration: managedIntegration });
    expect(Object.keys(managed.state()).sort()).toEqual(["converge_integration.default", "converge_route.default"]);
  });

  it("refuses at plan time to destroy the service-managed integration, sending nothing (the route forgotten by a removed block first)", async () => {
    managed.write(`${providerBlock()}${INTEGRATION}
removed {
  from = converge_route.default
  lifecycle {
    destroy = false
  }
}
`);
    const { result: forget, requests: forgetRequests } = await requestsDuring(suite.service, () => managed.apply());
    expect(forget.code, describeTerraform(forget)).toBe(0);
    expect(forget.stdout).toContain("# converge_route.default will no longer be managed by Terraform");
    expect(Object.keys(managed.state())).toEqual(["converge_integration.default"]);

    const { result: destroy, requests } = await requestsDuring(suite.service, () => managed.destroy());
    expect(destroy.code, describeTerraform(destroy)).toBe(1);
    const errors = errorsOf(destroy);
    expect(errors.map((error) => error.summary)).toEqual(["converge_integration: refused by a converge protection"]);
    expect(errors[0]!.text).toContain("with converge_integration.default,");
    expect(errors[0]!.text.replace(/\s+/g, " ")).toContain(`integration ${managedIntegration.integrationId} is managed by the service (quick create): it may be updated, never deleted. Nothing was sent to the service.`);
    expect(operations([...forgetRequests, ...requests], { writesOnly: true })).toEqual([]);
    expect(await liveManaged()).toEqual({ route: managedRoute, integration: managedIntegration });
  });

  it("refuses at apply time to delete an integration that a route made outside terraform still targets, naming the route and sending nothing", async () => {
    const targeted = suite.dir("targeted");
    targeted.write(`${providerBlock()}
resource "converge_integration" "targeted" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://protections.example/targeted"
  integration_method     = "GET"
  payload_format_version = "2.0"
}
`);
    expect((await targeted.init()).code).toBe(0);
    const created = await targeted.apply();
    expect(created.code, describeTerraform(created)).toBe(0);
    const integrationId = String(targeted.attributes("converge_integration.targeted").integration_id);
    const handMade = await suite.clients.gateway.createRoute(ORDERS_API, { routeKey: "GET /hand-made", target: `integrations/${integrationId}` });

    targeted.write(providerBlock());
    const { result: apply, requests } = await requestsDuring(suite.service, () => targeted.apply());
    expect(apply.code, describeTerraform(apply)).toBe(1);
    expect(apply.stdout).toContain("converge_integration.targeted: Destroying...");
    const errors = errorsOf(apply);
    expect(errors.map((error) => error.summary)).toEqual(["converge_integration: refused by a converge protection"]);
    expect(errors[0]!.text.replace(/\s+/g, " ")).toContain(`integration ${integrationId} is still the target of route ${handMade.routeId}: retarget or delete it first. Nothing was sent to the service.`);
    expect(operations(requests, { writesOnly: true })).toEqual([]);
    expect((await liveIntegrations(suite.clients, ORDERS_API)).some((integration) => integration.integrationId === integrationId)).toBe(true);
    expect(targeted.attributes("converge_integration.targeted").integration_id).toBe(integrationId);
  });

  describe("a route retargeted to a new integration while the old one is removed, in one apply", () => {
    /** An integration named `name` (of a backend of that name) and a route `key` targeting it. */
    const swap = (name: string, key: string, createBeforeDestroy: boolean) => `${providerBlock()}
resource "converge_integration" "${name}" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://retarget.example/${key}/${name}"
  integration_method     = "GET"
  payload_format_version = "2.0"
${createBeforeDestroy ? "\n  lifecycle {\n    create_before_destroy = true\n  }\n" : ""}}

resource "converge_route" "route" {
  api_id    = "${ORDERS_API}"
  route_key = "GET /${key}"
  target    = "integrations/\${converge_integration.${name}.integration_id}"
}
`;

    it("refuses to delete the old integration first, as terraform orders it without create_before_destroy, naming the route; the route applied first (-target), the rest follows", async () => {
      const work = await suite.initialized("retarget", swap("old", "retarget", false));
      expect((await work.apply()).code).toBe(0);
      const oldId = String(work.attributes("converge_integration.old").integration_id);
      const routeId = String(work.attributes("converge_route.route").route_id);

      work.write(swap("new", "retarget", false));
      const { result: refused, requests } = await requestsDuring(suite.service, () => work.apply());
      expect(refused.code, describeTerraform(refused)).toBe(1);
      expect(errorsOf(refused).map((error) => error.summary)).toEqual(["converge_integration: refused by a converge protection"]);
      expect(errorsOf(refused)[0]!.text.replace(/\s+/g, " ")).toContain(`integration ${oldId} is still the target of route ${routeId}`);
      expect(operations(requests, { writesOnly: true })).toEqual(["CreateIntegration"]);
      expect((await liveRoutes(suite.clients, ORDERS_API)).find((route) => route.routeId === routeId)?.target).toBe(`integrations/${oldId}`);

      const route = await work.run(["apply", "-auto-approve", "-input=false", "-no-color", "-target=converge_route.route"]);
      expect(route.code, describeTerraform(route)).toBe(0);
      const rest = await work.apply();
      expect(rest.code, describeTerraform(rest)).toBe(0);
      expect(rest.stdout).toContain("Apply complete! Resources: 0 added, 0 changed, 1 destroyed.");
      const newId = String(work.attributes("converge_integration.new").integration_id);
      expect((await liveRoutes(suite.clients, ORDERS_API)).find((candidate) => candidate.routeId === routeId)?.target).toBe(`integrations/${newId}`);
      expect((await liveIntegrations(suite.clients, ORDERS_API)).some((integration) => integration.integrationId === oldId)).toBe(false);
    });

    it("applies in one go when the old integration was made with create_before_destroy: create, retarget, then delete", async () => {
      const work = await suite.initialized("retarget-cbd", swap("old", "retarget-cbd", true));
      expect((await work.apply()).code).toBe(0);
      const oldId = String(work.attributes("converge_integration.old").integration_id);

      work.write(swap("new", "retarget-cbd", true));
      const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
      expect(apply.code, describeTerraform(apply)).toBe(0);
      expect(requests.filter((request) => request.write).map((request) => request.operation)).toEqual(["CreateIntegration", "UpdateRoute", "DeleteIntegration"]);
      const newId = String(work.attributes("converge_integration.new").integration_id);
      expect((await liveRoutes(suite.clients, ORDERS_API)).find((route) => route.routeKey === "GET /retarget-cbd")?.target).toBe(`integrations/${newId}`);
      expect((await liveIntegrations(suite.clients, ORDERS_API)).some((integration) => integration.integrationId === oldId)).toBe(false);
    });
  });
});
