import { beforeAll, describe, expect, it } from "vitest";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { describeTerraform, liveIntegrations, liveRoutes, operations, ORDERS_API, providerBlock, requestsDuring, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "./terraform-fixture.js";
import { terraformSuite } from "./terraform-suite.js";

/**
 * Routes and integrations made through the clients, brought under terraform by `terraform import`
 * and by an `import {}` block: nothing written, the state holding the live values, a clean plan.
 */

const suite = terraformSuite("import");
let work: TerraformDir;
/** A pair made for `terraform import`, and one for an import block. */
let byCommand: { readonly integration: Integration; readonly route: Route };
let byBlock: { readonly integration: Integration; readonly route: Route };

async function makePair(name: string) {
  const integration = await suite.clients.gateway.createIntegration(ORDERS_API, {
    integrationType: "HTTP_PROXY",
    integrationUri: `https://import.example/${name}`,
    integrationMethod: "POST",
    payloadFormatVersion: "2.0",
    timeoutInMillis: 5000,
    description: `made for ${name}`,
  });
  const route = await suite.clients.gateway.createRoute(ORDERS_API, {
    routeKey: `POST /${name}`,
    target: `integrations/${integration.integrationId}`,
    authorizationType: "JWT",
    authorizerId: "jwtauth1",
    authorizationScopes: ["import.write", "import.admin"],
    operationName: `Import${name}`,
  });
  return { integration, route };
}

/** The resources that declare a pair as it is live. */
function declaration(name: string): string {
  return `
resource "converge_integration" "${name}" {
  api_id                 = "${ORDERS_API}"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://import.example/${name}"
  integration_method     = "POST"
  payload_format_version = "2.0"
  timeout_in_millis      = 5000
  description            = "made for ${name}"
}

resource "converge_route" "${name}" {
  api_id               = "${ORDERS_API}"
  route_key            = "POST /${name}"
  target               = "integrations/\${converge_integration.${name}.integration_id}"
  authorization_type   = "JWT"
  authorizer_id        = "jwtauth1"
  authorization_scopes = ["import.admin", "import.write"]
  operation_name       = "Import${name}"
}
`;
}

beforeAll(async () => {
  byCommand = await makePair("command");
  byBlock = await makePair("block");
  work = await suite.initialized("import", providerBlock() + declaration("command"));
}, TERRAFORM_TEST_TIMEOUT_MS);

describe("importing under terraform 1.11", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("adopts a route and an integration with terraform import, writing nothing, then plans no change", async () => {
    const { result: imports, requests } = await requestsDuring(suite.service, async () => [
      await work.run(["import", "-input=false", "-no-color", "converge_integration.command", `${ORDERS_API}/${byCommand.integration.integrationId}`]),
      await work.run(["import", "-input=false", "-no-color", "converge_route.command", `${ORDERS_API}/${byCommand.route.routeId}`]),
    ]);
    for (const imported of imports) {
      expect(imported.code, describeTerraform(imported)).toBe(0);
      expect(imported.stdout).toContain("Import successful!");
    }
    expect(work.attributes("converge_integration.command")).toMatchObject({
      id: `${ORDERS_API}/${byCommand.integration.integrationId}`,
      integration_id: byCommand.integration.integrationId,
      integration_uri: "https://import.example/command",
      timeout_in_millis: 5000,
      description: "made for command",
      api_gateway_managed: false,
    });
    expect(work.attributes("converge_route.command")).toMatchObject({
      id: `${ORDERS_API}/${byCommand.route.routeId}`,
      route_id: byCommand.route.routeId,
      route_key: "POST /command",
      target: `integrations/${byCommand.integration.integrationId}`,
      authorization_scopes: ["import.admin", "import.write"],
    });

    const { result: plan, requests: planRequests } = await requestsDuring(suite.service, () => work.plan());
    expect(plan.code, describeTerraform(plan)).toBe(0);
    expect(plan.stdout).toContain("No changes.");
    expect(operations([...requests, ...planRequests], { writesOnly: true })).toEqual([]);
  });

  it("adopts a route and an integration with import blocks in one apply that writes nothing, then plans no change", async () => {
    work.write(`${providerBlock()}${declaration("command")}${declaration("block")}
import {
  to = converge_integration.block
  id = "${ORDERS_API}/${byBlock.integration.integrationId}"
}

import {
  to = converge_route.block
  id = "${ORDERS_API}/${byBlock.route.routeId}"
}
`);
    const { result: apply, requests } = await requestsDuring(suite.service, () => work.apply());
    expect(apply.code, describeTerraform(apply)).toBe(0);
    expect(apply.stdout).toContain("# converge_route.block will be imported");
    expect(apply.stdout).toContain("Apply complete! Resources: 2 imported, 0 added, 0 changed, 0 destroyed.");
    expect(work.attributes("converge_route.block")).toMatchObject({ route_id: byBlock.route.routeId, target: `integrations/${byBlock.integration.integrationId}`, operation_name: "Importblock" });
    expect(work.attributes("converge_integration.block")).toMatchObject({ integration_id: byBlock.integration.integrationId, description: "made for block" });

    const { result: plan, requests: planRequests } = await requestsDuring(suite.service, () => work.plan());
    expect(plan.code, describeTerraform(plan)).toBe(0);
    expect(operations([...requests, ...planRequests], { writesOnly: true })).toEqual([]);
    // still one of each: adopted, not created beside the originals
    expect((await liveRoutes(suite.clients, ORDERS_API)).filter((route) => route.routeKey.startsWith("POST /")).map((route) => route.routeId).sort())
      .toEqual([byCommand.route.routeId, byBlock.route.routeId].sort());
    expect((await liveIntegrations(suite.clients, ORDERS_API)).filter((integration) => integration.integrationUri?.startsWith("https://import.example/")).length).toBe(2);
  });
});
