import { Construct } from "constructs";
import { afterAll, describe, expect, it } from "vitest";
import { AlternateContact, Api, ConvergeConfig, Integration, RegionOptIn, Route } from "../../constructs/index.js";
import { convergeProvider } from "../../src/provider/converge-provider.js";
import type { CtyType } from "../../src/provider/runtime/index.js";
import { ORDERS_API, buildShop } from "./shop-stack.js";
import { LIBRARIES, cleanupSynthDirs, makeOutdir, normalizeSynth, synthStack, type LibraryName, type SynthOutput } from "./synth-fixture.js";

/**
 * Issue "cdktf and cdktn": the provider vehicle. Each construct is one resource of converge's own
 * provider whose attributes are its document's fields, a route's target construct a reference, a
 * pin an import, an Api a data source; the provider block holds the endpoint and never the token.
 * Every emitted attribute is checked against the provider's own schema.
 */

const ENDPOINT = "http://127.0.0.1:4566";
const TOKEN = "tok-provider-synth-SECRET-77d1";

afterAll(() => cleanupSynthDirs());

type Element = Record<string, unknown> & { lifecycle?: { ignore_changes?: string[]; postcondition?: Array<{ condition: string; error_message: string }> } };
const resourcesOf = (output: SynthOutput) => output.tf.resource as unknown as Record<string, Record<string, Element>>;
const dataOf = (output: SynthOutput) => (output.tf as { data?: Record<string, Record<string, Element>> }).data ?? {};
const importsOf = (output: SynthOutput) => (output.tf as { import?: Array<{ id: string; to: string }> }).import ?? [];
/** An element's attributes, without cdktf's metadata and the lifecycle. */
const attributesOf = (element: Element | undefined) => {
  if (!element) throw new Error("no such element");
  const { "//": _metadata, lifecycle: _lifecycle, ...attributes } = element;
  return attributes;
};

/** Whether `value` is a value of `type` as terraform reads cdk.tf.json (a template string stands for any type). */
function conforms(value: unknown, type: CtyType): boolean {
  if (value === null || (typeof value === "string" && value.includes("${"))) return true;
  switch (type.kind) {
    case "string": return typeof value === "string";
    case "number": return typeof value === "number";
    case "bool": return typeof value === "boolean";
    case "list": case "set": return Array.isArray(value) && value.every((item) => conforms(item, type.element));
    case "map": return typeof value === "object" && !Array.isArray(value) && Object.values(value as object).every((item) => conforms(item, type.element));
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return false;
      const record = value as Record<string, unknown>;
      return Object.keys(record).every((key) => key in type.attributes) && Object.entries(type.attributes).every(([key, inner]) => key in record && conforms(record[key], inner));
    }
    default: return true;
  }
}

/** Problems of the resources and data sources of a synth against the provider's schemas: unknown types or attributes, computed-only attributes set, values of another type. */
function schemaProblems(output: SynthOutput): string[] {
  const problems: string[] = [];
  const check = (kind: "resources" | "dataSources", type: string, name: string, element: Element) => {
    const schema = (convergeProvider[kind] as Record<string, { schema: { attributes: Record<string, { type: CtyType; required?: boolean; optional?: boolean; computed?: boolean }> } }>)[type]?.schema;
    if (!schema) return void problems.push(`${type}.${name}: no such ${kind} type`);
    for (const [attribute, value] of Object.entries(attributesOf(element))) {
      const declared = schema.attributes[attribute];
      if (!declared) problems.push(`${type}.${name}: no attribute ${attribute}`);
      else if (!declared.required && !declared.optional) problems.push(`${type}.${name}: ${attribute} is computed only`);
      else if (!conforms(value, declared.type)) problems.push(`${type}.${name}: ${attribute} ${JSON.stringify(value)} is not a ${JSON.stringify(declared.type)}`);
    }
    for (const attribute of element.lifecycle?.ignore_changes ?? []) if (!schema.attributes[attribute]) problems.push(`${type}.${name}: ignores the unknown attribute ${attribute}`);
    for (const [attribute, declared] of Object.entries(schema.attributes)) if (declared.required && !(attribute in element)) problems.push(`${type}.${name}: lacks the required ${attribute}`);
  };
  for (const [type, byName] of Object.entries(resourcesOf(output))) for (const [name, element] of Object.entries(byName)) check("resources", type, name, element);
  for (const [type, byName] of Object.entries(dataOf(output))) for (const [name, element] of Object.entries(byName)) check("dataSources", type, name, element);
  return problems;
}

describe.each<LibraryName>(["cdktf", "cdktn"])("synth with the provider vehicle (%s)", (library) => {
  process.env.CONVERGE_TOKEN = TOKEN;
  let shop: SynthOutput;
  try {
    shop = synthStack((stack) => {
      buildShop(stack);
      new Api(stack, "orders-api", { api: ORDERS_API, protocolType: "HTTP" });
    }, { vehicle: "provider", endpoint: ENDPOINT }, { library });
  } finally {
    delete process.env.CONVERGE_TOKEN;
  }

  it("emits one resource of converge's provider per construct, named by its path, and nothing of the CLI vehicles", () => {
    expect(Object.fromEntries(Object.entries(resourcesOf(shop)).map(([type, byName]) => [type, Object.keys(byName)]))).toEqual({
      converge_alternate_contact: ["security"],
      converge_integration: ["orders-backend"],
      converge_route: ["get-orders"],
      converge_region_opt_in: ["ap-east"],
    });
    expect(Object.keys(dataOf(shop))).toEqual(["converge_api"]);
    expect(shop.text).not.toMatch(/null_resource|terraform_data|local-exec|converge_apply/);
  });

  it("gives each resource its document's fields as snake_case attributes (the contact's and the Region's by their service names)", () => {
    const resources = resourcesOf(shop);
    expect(attributesOf(resources.converge_alternate_contact!.security)).toEqual({
      alternate_contact_type: "SECURITY", name: "Security Team", title: "CISO", email_address: "security@example.com", phone_number: "+1 555 0100",
    });
    expect(attributesOf(resources.converge_integration!["orders-backend"])).toEqual({
      api_id: ORDERS_API, integration_type: "HTTP_PROXY", integration_uri: "https://shop.internal.example/orders", integration_method: "ANY", payload_format_version: "1.0", timeout_in_millis: 10000,
    });
    expect(attributesOf(resources.converge_region_opt_in!["ap-east"])).toEqual({ region_name: "ap-east-1", enabled: true });
  });

  it("refers to a target construct's integration_id, so terraform creates the integration first and destroys the route first", () => {
    expect(attributesOf(resourcesOf(shop).converge_route!["get-orders"])).toEqual({
      api_id: ORDERS_API, route_key: "GET /orders", target: "integrations/${converge_integration.orders-backend.integration_id}",
    });
  });

  it("leaves out the fields the construct leaves out and has terraform ignore their changes (converge's \"don't care\")", () => {
    const route = resourcesOf(shop).converge_route!["get-orders"]!;
    expect(route.lifecycle?.ignore_changes?.sort()).toEqual([
      "api_key_required", "authorization_scopes", "authorization_type", "authorizer_id", "model_selection_expression",
      "operation_name", "request_models", "request_parameters", "route_response_selection_expression",
    ]);
    expect(resourcesOf(shop).converge_alternate_contact!.security!.lifecycle).toBeUndefined();
    expect(resourcesOf(shop).converge_integration!["orders-backend"]!.lifecycle?.ignore_changes).not.toContain("timeout_in_millis");
  });

  it("reads an Api construct's API with a converge_api data source, whose postcondition checks the declared protocol", () => {
    const api = dataOf(shop).converge_api!["orders-api"]!;
    expect(attributesOf(api)).toEqual({ api_id: ORDERS_API });
    expect(api.lifecycle?.postcondition).toEqual([{
      condition: '${self.protocol_type == "HTTP"}',
      error_message: `protocolType "HTTP" of the Api construct at "shop/orders-api" does not match API ${ORDERS_API}, which is \${self.protocol_type}: declare the API's protocol, or another API`,
    }]);
  });

  it("declares converge's provider with the endpoint, from converge/converge, and never the token", () => {
    expect(shop.tf.provider).toEqual({ converge: [{ endpoint: ENDPOINT }] });
    expect(shop.tf.terraform?.required_providers).toEqual({ converge: { source: "converge/converge" } });
    expect(shop.text).not.toContain(TOKEN);
    expect(shop.desiredText).not.toContain(TOKEN);
    expect(shop.text).not.toMatch(/"token"/);
  });

  it("checks every attribute against the provider's own schema", () => {
    expect(schemaProblems(shop)).toEqual([]);
  });

  it("still writes the stack's desired state, the same as with a CLI vehicle", () => {
    const cli = synthStack((stack) => {
      buildShop(stack);
      new Api(stack, "orders-api", { api: ORDERS_API, protocolType: "HTTP" });
    }, { vehicle: "terraform_data", endpoint: ENDPOINT }, { library });
    expect(shop.desiredText).toBe(cli.desiredText);
    expect(shop.desired.map((document) => (document as { kind: string }).kind)).toEqual(["AlternateContact", "Integration", "Route", "RegionOptIn", "Api"]);
  });

  it("maps every field of every kind, nested object keys snake_case and map keys as written, within the provider's schema", () => {
    const output = synthStack((stack) => {
      new AlternateContact(stack, "billing", { account: "222222222222", type: "BILLING", name: "Billing", title: "CFO", emailAddress: "b@example.com", phoneNumber: "+1 555 0101" });
      const ws = new Integration(stack, "ws-backend", {
        api: { name: "chat" }, integrationType: "HTTP", integrationUri: "https://ws.example/x", integrationMethod: "POST", description: "templates",
        requestTemplates: { "application/json": '{"action": "$input.body"}' }, requestParameters: { "integration.request.header.X-Id": "route.request.header.Id" },
        templateSelectionExpression: "\\$default", passthroughBehavior: "NEVER", contentHandlingStrategy: "CONVERT_TO_TEXT", timeoutInMillis: 20000,
        credentialsArn: "arn:aws:iam::123456789012:role/x", connectionType: "INTERNET",
      });
      new Route(stack, "ws-route", {
        api: { name: "chat" }, routeKey: "sendMessage", target: ws, authorizationType: "NONE", apiKeyRequired: true, operationName: "send",
        requestParameters: { "route.request.header.Id": { required: true } }, requestModels: { "$default": "Message" },
        modelSelectionExpression: "$request.body.type", routeResponseSelectionExpression: "$default",
      });
      new Integration(stack, "http-backend", {
        api: ORDERS_API, integrationType: "HTTP_PROXY", integrationUri: "https://h.example", integrationMethod: "ANY", payloadFormatVersion: "2.0",
        tlsConfig: { serverNameToVerify: "h.example" }, responseParameters: { "404": { "overwrite:statusCode": "200" } }, integrationSubtype: undefined,
      });
      new Route(stack, "jwt-route", { api: ORDERS_API, routeKey: "GET /jwt", authorizationType: "JWT", authorizerId: "abc123", authorizationScopes: ["orders.read"], target: "integrations/xyz7890" });
      new RegionOptIn(stack, "bahrain", { account: "222222222222", region: "me-south-1", enabled: false });
    }, { vehicle: "provider" }, { library });
    const resources = resourcesOf(output);
    expect(schemaProblems(output)).toEqual([]);
    expect(attributesOf(resources.converge_alternate_contact!.billing)).toMatchObject({ account_id: "222222222222", alternate_contact_type: "BILLING" });
    expect(attributesOf(resources.converge_region_opt_in!.bahrain)).toEqual({ account_id: "222222222222", region_name: "me-south-1", enabled: false });
    expect(attributesOf(resources.converge_integration!["ws-backend"])).toMatchObject({
      api_id: "${data.converge_api.api_chat.api_id}",
      request_templates: { "application/json": '{"action": "$input.body"}' },
      request_parameters: { "integration.request.header.X-Id": "route.request.header.Id" },
      template_selection_expression: "\\$default",
      credentials_arn: "arn:aws:iam::123456789012:role/x",
    });
    expect(attributesOf(resources.converge_route!["ws-route"])).toMatchObject({
      target: "integrations/${converge_integration.ws-backend.integration_id}",
      request_parameters: { "route.request.header.Id": { required: true } },
      request_models: { $default: "Message" },
      api_key_required: true,
    });
    expect(attributesOf(resources.converge_integration!["http-backend"])).toMatchObject({ tls_config: { server_name_to_verify: "h.example" }, response_parameters: { "404": { "overwrite:statusCode": "200" } } });
    expect(resources.converge_integration!["http-backend"]!.lifecycle?.ignore_changes).toContain("integration_subtype");
    expect(attributesOf(resources.converge_route!["jwt-route"])).toMatchObject({ authorization_type: "JWT", authorizer_id: "abc123", authorization_scopes: ["orders.read"], target: "integrations/xyz7890" });
    // one lookup of the API named chat, shared by both constructs that name it
    expect(dataOf(output).converge_api).toEqual({ api_chat: expect.objectContaining({ name: "chat" }) });
    expect(output.tf.provider).toEqual({ converge: [{}] });
  });

  it("makes every document value literal for terraform: ${ and %{ escaped in values and map keys", () => {
    const output = synthStack((stack) => {
      new Integration(stack, "templated", {
        api: { name: "orders ${var.x}" }, integrationType: "HTTP_PROXY", integrationUri: "https://t.example", payloadFormatVersion: "1.0",
        description: "costs ${5} %{ if true }x%{ endif } $${already}", requestParameters: { "overwrite:header.${x}": "$request.header.y" },
      });
    }, { vehicle: "provider" }, { library });
    const integration = attributesOf(resourcesOf(output).converge_integration!.templated);
    expect(integration.description).toBe("costs $${5} %%{ if true }x%%{ endif } $$${already}");
    expect(integration.request_parameters).toEqual({ "overwrite:header.$${x}": "$request.header.y" });
    const [lookup] = Object.values(dataOf(output).converge_api!);
    expect(attributesOf(lookup)).toEqual({ name: "orders $${var.x}" });
    expect(integration.api_id).toMatch(/^\$\{data\.converge_api\.api_orders___var_x__[0-9a-f]{8}\.api_id\}$/);
    expect(output.desired).toEqual([expect.objectContaining({ spec: expect.objectContaining({ description: "costs ${5} %{ if true }x%{ endif } $${already}" }) })]);
  });

  it("imports a pinned route or integration by its ID (the API looked up by name where it is named)", () => {
    const output = synthStack((stack) => {
      const integration = new Integration(stack, "pinned-backend", { api: { name: "orders" }, integrationId: "3yjzbve", integrationType: "HTTP_PROXY", integrationUri: "https://orders.internal.example/api", payloadFormatVersion: "1.0" });
      new Route(stack, "pinned-default", { api: { name: "orders" }, routeId: "e6db55a", routeKey: "$default", target: integration });
      new Route(stack, "pinned-by-id", { api: ORDERS_API, routeId: "f7ec66b", routeKey: "GET /pinned" });
    }, { vehicle: "provider" }, { library });
    expect(importsOf(output)).toEqual([
      { id: "${data.converge_api.api_orders.api_id}/3yjzbve", to: "converge_integration.pinned-backend" },
      { id: "${data.converge_api.api_orders.api_id}/e6db55a", to: "converge_route.pinned-default" },
      { id: `${ORDERS_API}/f7ec66b`, to: "converge_route.pinned-by-id" },
    ]);
    const resources = resourcesOf(output);
    expect(attributesOf(resources.converge_route!["pinned-default"])).not.toHaveProperty("route_id");
    expect(attributesOf(resources.converge_integration!["pinned-backend"])).not.toHaveProperty("integration_id");
    expect(output.desired).toEqual([
      expect.objectContaining({ spec: expect.objectContaining({ integrationId: "3yjzbve" }) }),
      expect.objectContaining({ spec: expect.objectContaining({ routeId: "e6db55a" }) }),
      expect.objectContaining({ spec: expect.objectContaining({ routeId: "f7ec66b" }) }),
    ]);
  });

  it("matches the normalized snapshot", () => {
    expect(normalizeSynth(shop.text, { "<outdir>": shop.outdir })).toMatchSnapshot();
  });
});

describe("synth with the provider vehicle: refusals", () => {
  const refusal = (build: (stack: Construct) => void, config: Parameters<typeof synthStack>[1] = { vehicle: "provider" }) => {
    try {
      synthStack(build, config);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("the synth was not refused");
  };

  it("refuses an Api construct that prunes, saying why, with its other problems", () => {
    const message = refusal((stack) => new Api(stack, "orders", { api: ORDERS_API, prune: true, protocolType: "HTTPS" as "HTTP" }));
    expect(message).toContain("[shop/orders] prune true is refused with the provider vehicle: terraform deletes only what its own configuration made, so deleting the API's routes and integrations that no construct declares is converge's job (converge apply --prune, or the null_resource or terraform_data vehicle)");
    expect(message).toContain('[shop/orders] protocolType "HTTPS" is not valid');
  });

  it("refuses a cli and a token variable other than CONVERGE_TOKEN, which the provider vehicle cannot use, every problem at once", () => {
    const message = refusal(() => undefined, { vehicle: "provider", cli: "npx converge", tokenEnvironmentVariable: "SHOP_TOKEN" });
    expect(message).toContain('[shop/converge] cli "npx converge" is not used by the provider vehicle: terraform runs converge\'s own provider, and no provisioner runs the CLI');
    expect(message).toContain('[shop/converge] tokenEnvironmentVariable "SHOP_TOKEN" is not available with the provider vehicle: the provider reads its token from CONVERGE_TOKEN where terraform runs');
    expect(() => synthStack(() => undefined, { vehicle: "provider", tokenEnvironmentVariable: "CONVERGE_TOKEN" })).not.toThrow();
  });

  it("refuses two constructs whose paths make one terraform name, and a name the stack's lookup of an API has", () => {
    const message = refusal((stack) => {
      new RegionOptIn(new Construct(stack, "a"), "b", { region: "ap-east-1", enabled: true });
      new RegionOptIn(stack, "a_b", { account: "222222222222", region: "ap-east-1", enabled: true });
      new Route(stack, "r", { api: { name: "orders" }, routeKey: "GET /r" });
      new Api(stack, "api_orders", { api: ORDERS_API });
    });
    expect(message).toContain('[shop/a_b] the construct\'s terraform name converge_region_opt_in.a_b is already the name of the construct at "shop/a/b": give the construct another id');
    expect(message).toContain('[shop/api_orders] the construct\'s terraform name data.converge_api.api_orders is already the stack\'s lookup of the API named "orders"');
  });

  it.each<LibraryName>(["cdktf", "cdktn"])("refuses HCL output (%s), which cdktf cannot write for the provider's generic elements", (library) => {
    const app = new LIBRARIES[library].App({ outdir: makeOutdir("hcl"), hclOutput: true });
    const stack = new LIBRARIES[library].TerraformStack(app, "shop");
    new ConvergeConfig(stack, "converge", { vehicle: "provider" });
    new RegionOptIn(stack, "ap-east", { region: "ap-east-1", enabled: true });
    expect(() => app.synth()).toThrow("[shop/converge] the provider vehicle writes cdk.tf.json only: its resources are generic elements of converge's provider, which cdktf cannot write as HCL");
  });

  it("still validates every prop with the desired-state schemas (one problem per prop)", () => {
    const message = refusal((stack) => new Integration(stack, "bad", { api: ORDERS_API, integrationType: "HTTP_PROXY", timeoutInMillis: 1.5 }));
    expect(message).toContain("[shop/bad] timeoutInMillis 1.5 is not valid: expected an integer number of milliseconds");
  });

  it("refuses a vehicle it does not know, naming the three it does", () => {
    expect(refusal(() => undefined, { vehicle: "lambda" as "provider" })).toContain('[shop/converge] vehicle "lambda" is not valid: expected "null_resource", "terraform_data" or "provider"');
  });
});

describe("synth with the provider vehicle: libraries", () => {
  it("makes the same cdk.tf.json with cdktf and with cdktn", () => {
    const [cdktf, cdktn] = (Object.keys(LIBRARIES) as LibraryName[]).map((library) => synthStack((stack) => buildShop(stack), { vehicle: "provider", endpoint: ENDPOINT }, { library, outdir: makeOutdir(library) }));
    const comparable = (output: SynthOutput) => normalizeSynth(JSON.stringify({ ...output.tf, terraform: { ...output.tf.terraform, backend: undefined } }), { "<outdir>": output.outdir });
    expect(comparable(cdktn!)).toEqual(comparable(cdktf!));
  });
});
