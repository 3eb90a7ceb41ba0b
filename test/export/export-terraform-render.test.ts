import { describe, expect, it } from "vitest";
import { exportFormatOf } from "../../src/cli/commands/export-command.js";
import { exportAccount, exportApi } from "../../src/reconcile/export.js";
import type { LiveState } from "../../src/reconcile/model.js";
import { liveApi } from "../support/live-api.js";
import { renderExportAsTerraform, valuesNotInNfc } from "../../src/reconcile/render-export-terraform.js";

/**
 * The terraform rendering of an export, without a service: labels unique in the directory, the
 * import IDs of the provider's resources, the caller's own account without account_id, and the
 * format flag's checks. The round trip with real terraform is export-terraform.test.ts.
 */

const api = (apiId: string, name: string) => liveApi({
  apiId,
  name,
  protocolType: "HTTP" as const,
  integrations: [{ integrationId: `i-${apiId}`, integrationType: "HTTP_PROXY" as const, integrationUri: "https://orders.example/api", payloadFormatVersion: "1.0", connectionType: "INTERNET" as const, timeoutInMillis: 30000 }],
  routes: [{ routeId: `r-${apiId}`, routeKey: "GET /orders", target: `integrations/i-${apiId}`, authorizationType: "NONE" as const }],
});

const live: LiveState = {
  apis: { aaaaaaaaaa: api("aaaaaaaaaa", "orders"), bbbbbbbbbb: api("bbbbbbbbbb", "orders") },
  apiIdsByName: {},
  contacts: {},
  regions: {},
};

describe("renderExportAsTerraform", () => {
  it("gives resources of two APIs with the same names labels unique in the directory, each imported by the provider's ID", () => {
    const files = renderExportAsTerraform([exportApi(api("aaaaaaaaaa", "orders")), exportApi(api("bbbbbbbbbb", "orders"))], live);
    expect(files.map((file) => file.name)).toEqual(["api-aaaaaaaaaa.tf", "api-bbbbbbbbbb.tf", "providers.tf"]);
    const second = files[1]!.text;
    expect(second).toContain('data "converge_api" "orders_2" {\n  api_id = "bbbbbbbbbb"');
    expect(second).toContain('resource "converge_integration" "orders-api_2" {\n  api_id                 = data.converge_api.orders_2.api_id\n  integration_type       = "HTTP_PROXY"\n  integration_uri        = "https://orders.example/api"\n  payload_format_version = "1.0"\n}');
    expect(second).toContain('import {\n  to = converge_integration.orders-api_2\n  id = "bbbbbbbbbb/i-bbbbbbbbbb"\n}');
    expect(second).toContain('resource "converge_route" "get_orders_2" {\n  api_id    = data.converge_api.orders_2.api_id\n  route_key = "GET /orders"\n  target    = "integrations/${converge_integration.orders-api_2.integration_id}"\n}');
    expect(second).toContain('id = "bbbbbbbbbb/r-bbbbbbbbbb"');
    expect(files[2]!.text).not.toMatch(/token\s*=|endpoint\s*=/);
  });

  it("writes the caller's own account without account_id (import IDs TYPE and REGION_NAME) and another's with it", () => {
    const contact = { AlternateContactType: "SECURITY" as const, Name: "Sec", Title: "CISO", EmailAddress: "s@example.com", PhoneNumber: "+1 555 0100" };
    const [self, member] = renderExportAsTerraform([
      exportAccount("self", { SECURITY: contact }, { "ap-east-1": "ENABLED" }),
      exportAccount("222222222222", { SECURITY: contact }, { "ap-east-1": "DISABLED", "us-east-1": "ENABLED_BY_DEFAULT" }),
    ], live);
    expect(self!.text).toContain('resource "converge_alternate_contact" "security" {\n  alternate_contact_type = "SECURITY"\n  name                   = "Sec"');
    expect(self!.text).toContain('to = converge_alternate_contact.security\n  id = "SECURITY"');
    expect(self!.text).toContain('resource "converge_region_opt_in" "ap_east_1" {\n  region_name = "ap-east-1"\n  enabled     = true\n}');
    expect(member!.text).toContain('resource "converge_alternate_contact" "security_222222222222" {\n  account_id             = "222222222222"');
    expect(member!.text).toContain('id = "222222222222/ap-east-1"');
    expect(member!.text).not.toContain("us-east-1");
  });

  it("finds the live values terraform would read as another string (not in NFC)", () => {
    const contact = { AlternateContactType: "BILLING" as const, Name: "Re\u0301mi", Title: "Chef", EmailAddress: "b@example.com", PhoneNumber: "+1 555 0100" };
    expect(valuesNotInNfc([exportAccount("self", { BILLING: contact }, {})])).toEqual(['account-self.tf: "Re\u0301mi"']);
  });
});

describe("exportFormatOf", () => {
  it("takes yaml by default and terraform with a directory", () => {
    expect(exportFormatOf({})).toBe("yaml");
    expect(exportFormatOf({ format: "terraform", out: "tf" })).toBe("terraform");
  });

  it("rejects an unknown format and terraform without a directory, naming what was received", () => {
    expect(() => exportFormatOf({ format: "hcl" })).toThrow('--format "hcl" is not valid: expected yaml or terraform');
    expect(() => exportFormatOf({ format: "terraform" })).toThrow("--format terraform writes several .tf files: pass -o DIR");
  });
});
