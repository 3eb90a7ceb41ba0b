import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isDesiredStateError, type DesiredStateProblem } from "../../src/desired/desired-state-error.js";
import { encodeInventory } from "../../src/desired/inventory.js";
import { loadTerraformStates, type LoadedState } from "../../src/desired/terraform-state.js";
import { alternateContactBinding } from "../../src/provider/resources/alternate-contact.js";
import { integrationBinding } from "../../src/provider/resources/integration.js";
import { regionOptInBinding } from "../../src/provider/resources/region-opt-in.js";
import { routeBinding } from "../../src/provider/resources/route.js";
import { checkDocument } from "../../src/desired/document-value.js";

/**
 * terraform states (format 4) written by hand as terraform writes them: which instances become
 * documents (converge's provider under any host, alias and module; count and for_each), what they
 * hold, a stack's inventory as claims, the selection of a drift shard, and every refusal named by
 * file and line.
 */

const ORDERS = "a1b2c3d4e5";
const CONVERGE = 'provider["registry.terraform.io/converge/converge"]';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "converge-tfstate-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A state's text as terraform writes it (two-space indentation). */
function stateText(resources: ReadonlyArray<unknown>, version: unknown = 4): string {
  return `${JSON.stringify({ version, terraform_version: "1.11.4", serial: 3, lineage: "3f1c", outputs: {}, resources, check_results: null }, null, 2)}\n`;
}

/** Writes a file under the test's directory (directories made), and returns its path relative to it. */
function write(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return name;
}

const load = (paths: string[], options: Parameters<typeof loadTerraformStates>[1] = {}) => loadTerraformStates(paths, { cwd: dir, ...options });

/** The problems a load throws (fails when it does not). */
async function problemsOf(paths: string[], options: Parameters<typeof loadTerraformStates>[1] = {}): Promise<DesiredStateProblem[]> {
  const error = await load(paths, options).then(() => undefined, (thrown: unknown) => thrown);
  if (!isDesiredStateError(error)) throw new Error(`expected a DesiredStateError, received ${String(error)}`);
  return [...error.problems];
}

/** A converge_route instance's attributes, every attribute of the schema present as terraform writes them. */
function routeAttributes(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `${ORDERS}/r0001`, api_id: ORDERS, route_id: "r0001", api_gateway_managed: false,
    route_key: "GET /orders", target: "integrations/i0001", authorization_type: "JWT", authorizer_id: "jwtauth1",
    authorization_scopes: ["orders.read"], api_key_required: false, model_selection_expression: null, operation_name: null,
    request_models: null, request_parameters: null, route_response_selection_expression: null,
    ...overrides,
  };
}

function integrationAttributes(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: `${ORDERS}/i0001`, api_id: ORDERS, integration_id: "i0001", api_gateway_managed: false,
    integration_type: "HTTP_PROXY", integration_uri: "https://orders.internal.example/v2", integration_method: "ANY",
    payload_format_version: "1.0", timeout_in_millis: 10000, connection_type: "INTERNET", connection_id: null,
    description: null, credentials_arn: null, integration_subtype: null, passthrough_behavior: null,
    content_handling_strategy: null, template_selection_expression: null, request_templates: null,
    request_parameters: { "overwrite:header.x-tenant": "$context.authorizer.claims.tenant" },
    response_parameters: { "404": { "overwrite:statuscode": "410" } },
    tls_config: { server_name_to_verify: "orders.internal.example" },
    ...overrides,
  };
}

const contactAttributes = (overrides: Record<string, unknown> = {}) => ({
  id: "222222222222/BILLING", account_id: "222222222222", alternate_contact_type: "BILLING", name: "Ana Billing",
  title: "Controller", email_address: "billing@example.com", phone_number: "+1 555 0100", ...overrides,
});

const regionAttributes = (overrides: Record<string, unknown> = {}) => ({
  id: "ap-east-1", account_id: null, opt_status: "ENABLED", region_name: "ap-east-1", enabled: true, ...overrides,
});

/** A resource entry of a state. */
function resource(type: string, name: string, instances: ReadonlyArray<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  return { mode: "managed", type, name, provider: CONVERGE, ...extra, instances: instances.map((instance) => ({ schema_version: 0, sensitive_attributes: [], ...instance })) };
}

/** The 1-based line of the first line of `text` that holds `needle`. */
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((line) => line.includes(needle)) + 1;

const addresses = (states: ReadonlyArray<LoadedState>) => states.flatMap((state) => state.documents.map((loaded) => loaded.terraform?.address));

describe("which instances of a state are converge's", () => {
  it.each([
    ["terraform's registry", CONVERGE, 1],
    ["OpenTofu's registry", 'provider["registry.opentofu.org/converge/converge"]', 1],
    ["another host", 'provider["example.com/converge/converge"]', 1],
    ["an alias", 'provider["registry.terraform.io/converge/converge"].west', 1],
    ["a provider configured in a module", 'module.edge.provider["registry.terraform.io/converge/converge"]', 1],
    ["an aliased provider of a nested module", 'module.a.module.b.provider["example.com/converge/converge"].eu', 1],
    ["another namespace's converge provider", 'provider["registry.terraform.io/someone/converge"]', 0],
    ["another type of provider", 'provider["registry.terraform.io/converge/other"]', 0],
    ["no provider at all", undefined, 0],
  ])("%s: %s", async (_, provider, documents) => {
    const name = write(`providers/${documents}-${Math.random().toString(36).slice(2)}.tfstate`, stateText([
      resource("converge_route", "get_orders", [{ attributes: routeAttributes() }], { provider }),
    ]));
    const [state] = await load([name]);
    expect(state!.documents).toHaveLength(documents);
    expect(state!.skipped).toBe(1 - documents);
  });

  it("names instances by their address: modules, count and for_each, nested modules with keys", async () => {
    const name = write("addresses.tfstate", stateText([
      resource("converge_route", "get_orders", [{ attributes: routeAttributes() }], { module: "module.edge" }),
      resource("converge_route", "r", [0, 1].map((index) => ({ index_key: index, attributes: routeAttributes({ route_id: `r000${index}`, route_key: `GET /r${index}` }) }))),
      resource("converge_route", "each", [{ index_key: "a", attributes: routeAttributes({ route_id: "e0001" }) }]),
      resource("converge_route", "x", [{ attributes: routeAttributes({ route_id: "x0001" }) }], { module: "module.a.module.b[1]" }),
      resource("converge_route", "keyed", [{ index_key: "eu-1", attributes: routeAttributes({ route_id: "k0001" }) }], { module: 'module.a["blue"]' }),
    ]));
    expect(addresses(await load([name]))).toEqual([
      "module.edge.converge_route.get_orders",
      "converge_route.r[0]",
      "converge_route.r[1]",
      'converge_route.each["a"]',
      "module.a.module.b[1].converge_route.x",
      'module.a["blue"].converge_route.keyed["eu-1"]',
    ]);
  });

  it("skips and counts data sources and other providers' resources, converge's data sources included", async () => {
    const name = write("skipped.tfstate", stateText([
      { mode: "data", type: "converge_api", name: "orders", provider: CONVERGE, instances: [{ schema_version: 0, attributes: { api_id: ORDERS, name: "orders" } }] },
      { mode: "managed", type: "terraform_data", name: "marker", provider: 'provider["terraform.io/builtin/terraform"]', instances: [{ attributes: { id: "x", input: null, output: null, triggers_replace: null } }] },
      { mode: "managed", type: "aws_s3_bucket", name: "logs", provider: 'provider["registry.terraform.io/hashicorp/aws"]', instances: [{ index_key: 0, attributes: {} }, { index_key: 1, attributes: {} }] },
      resource("converge_route", "get_orders", [{ attributes: routeAttributes() }]),
    ]));
    const [state] = await load([name]);
    expect(state!.skipped).toBe(4);
    expect(state!.documents.map((loaded) => loaded.document.kind)).toEqual(["Route"]);
    expect(state!.file).toBe("skipped.tfstate");
    // a data source without its protocol records nothing
    expect(state!.apiProtocols).toEqual(new Map());
  });

  it("records the protocols converge_api data sources read, and no other provider's", async () => {
    const name = write("protocols.tfstate", stateText([
      { mode: "data", type: "converge_api", name: "orders", provider: CONVERGE, instances: [{ schema_version: 0, attributes: { api_id: ORDERS, name: "orders", protocol_type: "HTTP" } }] },
      { mode: "data", type: "converge_api", name: "chat", module: "module.edge", provider: 'module.edge.provider["registry.opentofu.org/converge/converge"]', instances: [{ index_key: 0, attributes: { api_id: "w5s0ck3t01", name: null, protocol_type: "WEBSOCKET" } }] },
      { mode: "data", type: "converge_api", name: "odd", provider: CONVERGE, instances: [{ attributes: { api_id: "zzzzzzzzzz", protocol_type: "GRPC" } }] },
      { mode: "data", type: "converge_api", name: "foreign", provider: 'provider["registry.terraform.io/someone/else"]', instances: [{ attributes: { api_id: "yyyyyyyyyy", protocol_type: "HTTP" } }] },
    ]));
    const [state] = await load([name]);
    expect(state!.apiProtocols).toEqual(new Map([[ORDERS, "HTTP"], ["w5s0ck3t01", "WEBSOCKET"]]));
  });
});

describe("the document of an instance", () => {
  it("is the document converge's provider plans for its values, pinned by the ID the state holds", async () => {
    const name = write("documents.tfstate", stateText([
      resource("converge_integration", "orders_backend", [{ attributes: integrationAttributes() }]),
      resource("converge_route", "get_orders", [{ attributes: routeAttributes({ authorization_scopes: ["b", "a"], request_parameters: { "route.request.querystring.id": { required: true } } }) }]),
      resource("converge_alternate_contact", "billing", [{ attributes: contactAttributes() }]),
      resource("converge_region_opt_in", "east", [{ attributes: regionAttributes() }]),
    ]));
    const [state] = await load([name]);
    expect(state!.documents.map((loaded) => loaded.document)).toEqual([
      {
        kind: "Integration", name: "converge_integration.orders_backend", api: ORDERS, ensure: "present",
        spec: {
          integrationId: "i0001", integrationType: "HTTP_PROXY", integrationUri: "https://orders.internal.example/v2", integrationMethod: "ANY",
          payloadFormatVersion: "1.0", timeoutInMillis: 10000, connectionType: "INTERNET", connectionId: null, description: null,
          credentialsArn: null, integrationSubtype: null, passthroughBehavior: null, contentHandlingStrategy: null,
          templateSelectionExpression: null, requestTemplates: null,
          requestParameters: { "overwrite:header.x-tenant": "$context.authorizer.claims.tenant" },
          responseParameters: { "404": { "overwrite:statuscode": "410" } },
          tlsConfig: { serverNameToVerify: "orders.internal.example" },
        },
      },
      {
        kind: "Route", api: ORDERS, ensure: "present",
        spec: {
          routeId: "r0001", routeKey: "GET /orders", target: "integrations/i0001", authorizationType: "JWT", authorizerId: "jwtauth1",
          authorizationScopes: ["b", "a"], apiKeyRequired: false, modelSelectionExpression: null, operationName: null, requestModels: null,
          requestParameters: { "route.request.querystring.id": { required: true } }, routeResponseSelectionExpression: null,
        },
      },
      {
        kind: "AlternateContact", account: "222222222222", ensure: "present",
        spec: { type: "BILLING", name: "Ana Billing", title: "Controller", emailAddress: "billing@example.com", phoneNumber: "+1 555 0100" },
      },
      // account_id null: the caller's own account, no account in the document
      { kind: "RegionOptIn", ensure: "present", spec: { region: "ap-east-1", enabled: true } },
    ]);
    expect(state!.documents.map((loaded) => loaded.terraform)).toEqual([
      { state: "documents.tfstate", address: "converge_integration.orders_backend" },
      { state: "documents.tfstate", address: "converge_route.get_orders" },
      { state: "documents.tfstate", address: "converge_alternate_contact.billing" },
      { state: "documents.tfstate", address: "converge_region_opt_in.east" },
    ]);
  });

  it("leaves a null required or defaulted attribute out, and makes a null optional one null (must be absent)", async () => {
    const name = write("nulls.tfstate", stateText([
      resource("converge_route", "r", [{ attributes: routeAttributes({ authorization_type: null, api_key_required: null, target: null }) }]),
    ]));
    const [state] = await load([name]);
    const spec = state!.documents[0]!.document.spec as Record<string, unknown>;
    expect(spec).not.toHaveProperty("authorizationType");
    expect(spec).not.toHaveProperty("apiKeyRequired");
    expect(spec.target).toBeNull();
  });

  it("leaves an instance unpinned when its state holds no ID yet", async () => {
    const name = write("unpinned.tfstate", stateText([resource("converge_route", "r", [{ attributes: routeAttributes({ route_id: null }) }])]));
    const [state] = await load([name]);
    expect(state!.documents[0]!.document.spec).not.toHaveProperty("routeId");
  });

  it("gives integrations logical names from their addresses, unique within the load", async () => {
    const one = write("names/one.tfstate", stateText([
      resource("converge_integration", "backend", ["a", "b c"].map((key) => ({ index_key: key, attributes: integrationAttributes({ integration_id: `i${key.length}` }) })), { module: "module.edge[0]" }),
    ]));
    const two = write("names/two.tfstate", stateText([
      resource("converge_integration", "backend", [{ index_key: "a", attributes: integrationAttributes() }], { module: "module.edge[0]" }),
      resource("converge_integration", "x".repeat(140), [{ attributes: integrationAttributes() }]),
    ]));
    const names = (await load([one, two])).flatMap((state) => state.documents.map((loaded) => (loaded.document as { name: string }).name));
    expect(names.slice(0, 3)).toEqual(["module.edge.0.converge_integration.backend.a", "module.edge.0.converge_integration.backend.b_c", "module.edge.0.converge_integration.backend.a-2"]);
    expect(names[3]).toHaveLength(128);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
  });

  it("places the document at its instance and a field at its attribute, lines counted when asked", async () => {
    const name = write("places.tfstate", stateText([resource("converge_route", "r", [{ attributes: routeAttributes() }])]));
    const text = stateText([resource("converge_route", "r", [{ attributes: routeAttributes() }])]);
    const lines = text.split("\n");
    const [state] = await load([name]);
    const loaded = state!.documents[0]!;
    expect(loaded.source).toEqual({ file: "places.tfstate", line: lines.findIndex((line) => line.includes('"schema_version"')), column: 9 });
    expect(loaded.locate(["spec", "routeKey"])).toMatchObject({ line: lines.findIndex((line) => line.includes('"route_key"')) + 1 });
    expect(loaded.locate(["api"])).toMatchObject({ line: lines.findIndex((line) => line.includes('"api_id"')) + 1 });
    expect(state!.text).toBe(text);
  });

  it.each([
    ["Route", routeBinding, routeAttributes({ authorization_scopes: ["b", "a"], request_parameters: { "route.request.querystring.id": { required: true } } })],
    ["Route unpinned", routeBinding, routeAttributes({ route_id: null, authorization_type: null })],
    ["Integration", integrationBinding, integrationAttributes()],
    ["AlternateContact", alternateContactBinding, contactAttributes({ account_id: null })],
    ["RegionOptIn", regionOptInBinding, regionAttributes({ account_id: "222222222222" })],
  ])("equals the provider binding's document for the same values: %s", async (label, binding, attributes) => {
    const name = write(`binding-${label.replace(/ /g, "-")}.tfstate`, stateText([resource(binding.typeName, "x", [{ attributes }])]));
    const [state] = await load([name]);
    const loaded = state!.documents[0]!.document;
    const planned = binding.document(attributes as never, { pin: attributes as never });
    const checked = checkDocument(binding.kind, "name" in loaded ? { ...planned, name: loaded.name } : planned);
    expect("document" in checked && checked.document).toEqual(loaded);
  });
});

describe("a stack's inventory", () => {
  const identities = [
    { kind: "Route", api: ORDERS, spec: { routeKey: "GET /orders", routeId: "r0001" } },
    { kind: "Integration", name: "orders", api: ORDERS, spec: { integrationType: "HTTP_PROXY", integrationUri: "https://orders.internal.example/v2" } },
    { kind: "AlternateContact", account: "222222222222", spec: { type: "SECURITY" } },
  ];

  it.each([
    ["terraform_data", "triggers_replace", (chunks: Record<string, string>) => ({ value: chunks, type: ["object", Object.fromEntries(Object.keys(chunks).map((key) => [key, "string"]))] })],
    ["null_resource", "triggers", (chunks: Record<string, string>) => chunks],
  ])("claims the identities a %s keeps in %s", async (type, attribute, shape) => {
    const chunks = Object.fromEntries(encodeInventory(identities).map((chunk, index) => [`inventory_${index}`, chunk]));
    const name = write(`inventory-${type}.tfstate`, stateText([
      { mode: "managed", type, name: "converge_owner", provider: 'provider["terraform.io/builtin/terraform"]', instances: [{ attributes: { id: "o", [attribute]: null } }] },
      { mode: "managed", type, name: "converge_inventory", provider: 'provider["terraform.io/builtin/terraform"]', instances: [{ schema_version: 0, attributes: { id: "i", [attribute]: shape({ ...chunks, resources: String(identities.length) }) } }] },
    ]));
    const [state] = await load([name]);
    expect(state!.documents).toEqual([]);
    expect(state!.skipped).toBe(1);
    expect(state!.claims.map((loaded) => loaded.document)).toEqual(identities.map((identity) => ({ ...identity, ensure: "absent" })));
    expect(state!.claims.map((loaded) => loaded.terraform)).toEqual(identities.map(() => ({ state: name, address: `${type}.converge_inventory` })));
    expect(state!.claims[0]!.source.line).toBeGreaterThan(1);
  });

  it("refuses an inventory that is not one, naming the file, the line and the attribute", async () => {
    const text = stateText([
      { mode: "managed", type: "null_resource", name: "converge_inventory", provider: 'provider["registry.terraform.io/hashicorp/null"]', instances: [{ attributes: { id: "i", triggers: { inventory_0: "bm90IGd6aXA=", resources: "1" } } }] },
    ]);
    const name = write("inventory-garbage.tfstate", text);
    const [problem] = await problemsOf([name]);
    expect(problem).toMatchObject({ file: name, line: lineOf(text, '"triggers"'), path: "null_resource.converge_inventory" });
    expect(problem!.message).toMatch(/^triggers is not an inventory written by converge's constructs/);
  });
});

describe("a drift shard's selection", () => {
  it("keeps the documents and claims of the read keys it accepts", async () => {
    const name = write("select.tfstate", stateText([
      resource("converge_route", "orders", [{ attributes: routeAttributes() }]),
      resource("converge_route", "chat", [{ attributes: routeAttributes({ api_id: "w5s0ck3t01", route_key: "$connect" }) }]),
      resource("converge_region_opt_in", "east", [{ attributes: regionAttributes() }]),
      { mode: "managed", type: "terraform_data", name: "converge_inventory", instances: [{ attributes: { triggers_replace: { value: { inventory_0: encodeInventory([{ kind: "Route", api: "w5s0ck3t01", spec: { routeKey: "$default" } }])[0] } } } }] },
    ]));
    const seen: string[] = [];
    const [state] = await load([name], { select: (key) => (seen.push(key), key === "api:w5s0ck3t01") });
    expect(state!.documents.map((loaded) => loaded.terraform?.address)).toEqual(["converge_route.chat"]);
    expect(state!.claims.map((loaded) => loaded.document.kind)).toEqual(["Route"]);
    expect(new Set(seen)).toEqual(new Set(["api:a1b2c3d4e5", "api:w5s0ck3t01", "regions:self"]));
  });
});

describe("where states come from", () => {
  it("reads a directory's *.tfstate files recursively in sorted order, hidden entries and other files skipped", async () => {
    write("tree/b/terraform.tfstate", stateText([resource("converge_route", "b", [{ attributes: routeAttributes() }])]));
    write("tree/a.tfstate", stateText([resource("converge_route", "a", [{ attributes: routeAttributes() }])]));
    write("tree/.terraform/terraform.tfstate", JSON.stringify({ version: 3, backend: {} }));
    write("tree/b/terraform.tfstate.backup", "not read");
    const states = await load(["tree"]);
    expect(states.map((state) => state.file)).toEqual(["tree/a.tfstate", "tree/b/terraform.tfstate"]);
  });

  it("expands a glob, sorted", async () => {
    write("globbed/z/one.tfstate", stateText([]));
    write("globbed/a/two.tfstate", stateText([]));
    expect((await load(["globbed/**/*.tfstate"])).map((state) => state.file)).toEqual(["globbed/a/two.tfstate", "globbed/z/one.tfstate"]);
  });

  it("reads - from standard input, named (stdin)", async () => {
    const text = stateText([resource("converge_route", "r", [{ attributes: routeAttributes() }])]);
    const [state] = await load(["-"], { stdin: Readable.from([Buffer.from(text)]) });
    expect(state!.file).toBe("(stdin)");
    expect(state!.documents).toHaveLength(1);
  });
});

describe("refusals, each naming the file and the line", () => {
  const truncated = stateText([resource("converge_route", "r", [{ attributes: routeAttributes() }])]).slice(0, 400);
  const deep = `{"version": 4, "resources": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  it.each([
    ["rejects a state of version 3", "v3.tfstate", stateText([], 3), 2, /^version 3 is not supported: expected 4/],
    ["rejects a truncated state", "truncated.tfstate", truncated, truncated.split("\n").length, /^is not a terraform state: not JSON: .*truncated/],
    ["rejects a text that is not JSON", "not-json.tfstate", "{\n  \"version\": 4,\n  resources: []\n}\n", 3, /^is not a terraform state: not JSON: /],
    ["rejects nesting 100,000 deep", "deep.tfstate", deep, 1, /nested too deeply/],
    ["rejects a terraform_version of the wrong type", "tfversion.tfstate", stateText([]).replace('"1.11.4"', "11"), 3, /^terraform_version 11 is not valid: expected a string/],
    ["rejects resources of the wrong type", "resources.tfstate", stateText([]).replace('"resources": []', '"resources": {}'), 7, /^resources \{\} is not valid: expected an array/],
    ["rejects a resource without instances", "instances.tfstate", stateText([{ mode: "managed", type: "converge_route", name: "r" }]), 8, /^instances nothing is not valid: expected an array/],
  ])("%s", async (_, name, text, line, message) => {
    write(name, text);
    const problems = await problemsOf([name]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: name, line });
    expect(problems[0]!.message).toMatch(message);
  });

  it("rejects an instance whose attributes its kind refuses, naming the attribute, its line and the value received", async () => {
    const text = stateText([resource("converge_route", "r", [{ index_key: 0, attributes: routeAttributes({ route_key: 5, authorization_scopes: "everything" }) }])]);
    const name = write("garbage.tfstate", text);
    const lines = text.split("\n");
    const problems = await problemsOf([name]);
    expect(problems).toEqual([
      expect.objectContaining({ file: name, line: lines.findIndex((line) => line.includes('"route_key"')) + 1, path: "converge_route.r[0]", message: "route_key 5 is not valid: expected string, received number" }),
      expect.objectContaining({ file: name, line: lines.findIndex((line) => line.includes('"authorization_scopes"')) + 1, path: "converge_route.r[0]", message: 'authorization_scopes "everything" is not valid: expected array, received string' }),
    ]);
  });

  it.each([
    ["rejects a directory without *.tfstate", () => (mkdirSync(join(dir, "empty-dir"), { recursive: true }), "empty-dir"), /^the directory empty-dir holds no \*\.tfstate file/],
    ["rejects a glob matching nothing", () => "nowhere/**/*.tfstate", /^the glob "nowhere\/\*\*\/\*\.tfstate" matches no file/],
    ["rejects a path that cannot be read", () => "missing.tfstate", /^cannot read missing\.tfstate: no such file or directory \(ENOENT\)/],
  ])("%s", async (_, path, message) => {
    const named = path();
    const problems = await problemsOf([named]);
    expect(problems).toEqual([expect.objectContaining({ file: named, line: 1, column: 1 })]);
    expect(problems[0]!.message).toMatch(message);
  });

  it("collects every problem of every state, and throws them once", async () => {
    write("many/a.tfstate", stateText([], 3));
    write("many/b.tfstate", "{");
    write("many/c.tfstate", stateText([resource("converge_route", "r", [{ attributes: routeAttributes({ api_id: "NOT AN API" }) }])]));
    const problems = await problemsOf(["many", "missing-too.tfstate"]);
    expect(problems.map((problem) => problem.file)).toEqual(["missing-too.tfstate", "many/a.tfstate", "many/b.tfstate", "many/c.tfstate"]);
    expect(problems[3]!.message).toMatch(/^api_id "NOT AN API" is not valid/);
  });
});
