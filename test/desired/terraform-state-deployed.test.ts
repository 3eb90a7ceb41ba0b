import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkDocument } from "../../src/desired/document-value.js";
import { loadTerraformStates, type LoadedState } from "../../src/desired/terraform-state.js";
import type { KindBinding } from "../../src/provider/kind-resource/index.js";
import { alternateContactBinding } from "../../src/provider/resources/alternate-contact.js";
import { integrationBinding } from "../../src/provider/resources/integration.js";
import { regionOptInBinding } from "../../src/provider/resources/region-opt-in.js";
import { routeBinding } from "../../src/provider/resources/route.js";
import { describeTerraform, MEMBER_ACCOUNT, memberBillingContact, ORDERS_API, providerBlock, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "../provider/terraform-fixture.js";
import { terraformSuite } from "../provider/terraform-suite.js";

/**
 * A state terraform 1.11 wrote through converge's provider (installed by the CLI, against the
 * embedded service on port 0): a module with count, a count and a for_each of converge_route and
 * converge_integration, a contact and a Region opt-in, beside a converge_api data source and a
 * terraform_data. Its instances load as the documents the provider plans for them.
 */

const suite = terraformSuite("state-source");
let work: TerraformDir;
let state: LoadedState;

const EDGE_MODULE = `terraform {
  required_providers {
    converge = { source = "converge/converge" }
  }
}

variable "api_id" {
  type = string
}

resource "converge_route" "get_edge" {
  api_id    = var.api_id
  route_key = "GET /edge"
}
`;

const MAIN = `${providerBlock()}
data "converge_api" "orders" {
  name = "orders"
}

resource "terraform_data" "marker" {
  input = "not converge's"
}

resource "converge_integration" "backend" {
  for_each               = { a = "/a", b = "/b" }
  api_id                 = data.converge_api.orders.api_id
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://orders.internal.example\${each.value}"
  integration_method     = "ANY"
  payload_format_version = "1.0"
  request_parameters = {
    "overwrite:header.x-tenant" = "$context.requestId"
  }
}

resource "converge_route" "r" {
  count                = 2
  api_id               = data.converge_api.orders.api_id
  route_key            = "GET /state-\${count.index}"
  target               = "integrations/\${converge_integration.backend["a"].integration_id}"
  authorization_type   = "JWT"
  authorizer_id        = "jwtauth1"
  authorization_scopes = ["orders.write", "orders.read"]
}

module "edge" {
  source = "./edge"
  count  = 1
  api_id = data.converge_api.orders.api_id
}

${memberBillingContact("+1 555 0100")}
resource "converge_region_opt_in" "east" {
  account_id  = "${MEMBER_ACCOUNT}"
  region_name = "ap-east-1"
  enabled     = true
}
`;

beforeAll(async () => {
  work = suite.dir("stack");
  work.write(MAIN);
  mkdirSync(work.path("edge"));
  writeFileSync(join(work.path("edge"), "main.tf"), EDGE_MODULE);
  const init = await work.init();
  if (init.code !== 0) throw new Error(describeTerraform(init));
  const apply = await work.apply();
  if (apply.code !== 0) throw new Error(describeTerraform(apply));
  [state] = await loadTerraformStates(["terraform.tfstate"], { cwd: work.dir });
}, TERRAFORM_TEST_TIMEOUT_MS);

const BINDINGS: Readonly<Record<string, KindBinding<never>>> = Object.fromEntries(
  [routeBinding, integrationBinding, alternateContactBinding, regionOptInBinding].map((binding) => [binding.typeName, binding as unknown as KindBinding<never>]),
);

describe("a state terraform 1.11 wrote through converge's provider", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("holds a document for every instance of converge's resources, by address, and skips the data source and the terraform_data", () => {
    expect(state.file).toBe("terraform.tfstate");
    expect(state.documents.map((loaded) => loaded.terraform?.address).sort()).toEqual([
      "converge_alternate_contact.billing",
      'converge_integration.backend["a"]',
      'converge_integration.backend["b"]',
      "converge_region_opt_in.east",
      "converge_route.r[0]",
      "converge_route.r[1]",
      "module.edge[0].converge_route.get_edge",
    ]);
    expect(state.skipped).toBe(2);
    expect(state.claims).toEqual([]);
  });

  it("makes each document as the provider planned it: API, account, spec and the pin of the ID terraform holds", () => {
    const attributes = work.state();
    const byAddress = new Map(state.documents.map((loaded) => [loaded.terraform!.address, loaded.document]));
    const route = byAddress.get("converge_route.r[1]");
    expect(route).toMatchObject({
      kind: "Route", api: ORDERS_API, ensure: "present",
      spec: { routeId: attributes["converge_route.r[1]"]!.route_id, routeKey: "GET /state-1", target: `integrations/${String(attributes['converge_integration.backend["a"]']!.integration_id)}`, authorizationType: "JWT", authorizerId: "jwtauth1" },
    });
    expect([...(route!.spec as { authorizationScopes: string[] }).authorizationScopes].sort()).toEqual(["orders.read", "orders.write"]);
    expect(byAddress.get('converge_integration.backend["b"]')).toMatchObject({
      kind: "Integration", name: "converge_integration.backend.b", api: ORDERS_API,
      spec: { integrationId: attributes['converge_integration.backend["b"]']!.integration_id, integrationUri: "https://orders.internal.example/b", requestParameters: { "overwrite:header.x-tenant": "$context.requestId" } },
    });
    expect(byAddress.get("converge_alternate_contact.billing")).toMatchObject({ kind: "AlternateContact", account: MEMBER_ACCOUNT, spec: { type: "BILLING", phoneNumber: "+1 555 0100" } });
    expect(byAddress.get("converge_region_opt_in.east")).toEqual({ kind: "RegionOptIn", account: MEMBER_ACCOUNT, ensure: "present", spec: { region: "ap-east-1", enabled: true } });
  });

  it("equals, for every instance, the document the provider's binding makes of the same values", () => {
    const attributes = work.state();
    for (const loaded of state.documents) {
      const values = attributes[loaded.terraform!.address.replace(/^module\.edge\[0\]\./, "")] ?? attributes[loaded.terraform!.address];
      const type = loaded.terraform!.address.replace(/^module\.edge\[0\]\./, "").split(".")[0]!;
      const planned = BINDINGS[type]!.document(values as never, { pin: values as never });
      const checked = checkDocument(loaded.document.kind, "name" in loaded.document ? { ...planned, name: loaded.document.name } : planned);
      expect("document" in checked && checked.document, loaded.terraform!.address).toEqual(loaded.document);
    }
  });

  it("places each document at its instance in the state", () => {
    for (const loaded of state.documents) {
      expect(loaded.source.file).toBe("terraform.tfstate");
      expect(loaded.source.line).toBeGreaterThan(1);
    }
  });
});
