import { createHash } from "node:crypto";
import { App, TerraformStack } from "cdktf";
import { Construct } from "constructs";
import { afterAll, describe, expect, it } from "vitest";
import { AlternateContact, ConvergeConfig, Integration, RegionOptIn, Route, type Vehicle } from "../../constructs/index.js";
import { loadDesiredState } from "../../src/desired/load.js";
import { canonicalJson } from "../../src/desired/canonical-json.js";
import { ORDERS_API, buildShop } from "./shop-stack.js";
import { cleanupSynthDirs, localExecsOf, makeOutdir, normalizeSynth, resourceOf, synthStack, triggersOf } from "./synth-fixture.js";

const CLI = "node /opt/converge/dist/src/cli/main.js";
const ENDPOINT = "http://127.0.0.1:4566";
const sha256 = (value: unknown) => createHash("sha256").update(canonicalJson(value)).digest("hex");

const CONTACT = { kind: "AlternateContact", spec: { type: "SECURITY", name: "Security Team", title: "CISO", emailAddress: "security@example.com", phoneNumber: "+1 555 0100" } };
const INTEGRATION = {
  kind: "Integration",
  name: "orders-backend",
  api: ORDERS_API,
  spec: { integrationType: "HTTP_PROXY", integrationUri: "https://shop.internal.example/orders", integrationMethod: "ANY", payloadFormatVersion: "1.0", timeoutInMillis: 10000 },
};
const ROUTE = { kind: "Route", api: ORDERS_API, spec: { routeKey: "GET /orders", target: { integration: "orders-backend" } } };
const REGION = { kind: "RegionOptIn", spec: { region: "ap-east-1", enabled: true } };
const IDENTITIES = {
  security: { kind: "AlternateContact", spec: { type: "SECURITY" } },
  "orders-backend": { kind: "Integration", name: "orders-backend", api: ORDERS_API, spec: { integrationType: "HTTP_PROXY", integrationUri: "https://shop.internal.example/orders", integrationMethod: "ANY" } },
  "get-orders": { kind: "Route", api: ORDERS_API, spec: { routeKey: "GET /orders" } },
  "ap-east": { kind: "RegionOptIn", spec: { region: "ap-east-1" } },
};

afterAll(() => cleanupSynthDirs());

describe.each<{ vehicle: Vehicle; triggersKey: "triggers" | "triggers_replace" }>([
  { vehicle: "null_resource", triggersKey: "triggers" },
  { vehicle: "terraform_data", triggersKey: "triggers_replace" },
])("synth with the $vehicle vehicle", ({ vehicle, triggersKey }) => {
  const output = synthStack((stack) => buildShop(stack), { vehicle, endpoint: ENDPOINT, cli: CLI });
  const selfDocument = `\${self.${triggersKey}.document}`;
  const applyExec = { when: "create", command: `${CLI} apply --document-env CONVERGE_DOCUMENT --auto-approve`, environment: { CONVERGE_DOCUMENT: selfDocument, CONVERGE_ENDPOINT: ENDPOINT } };
  const deleteExec = { when: "destroy", command: `${CLI} delete --document-env CONVERGE_DOCUMENT --auto-approve`, environment: { CONVERGE_DOCUMENT: selfDocument, CONVERGE_ENDPOINT: ENDPOINT } };

  it("emits exactly an identity and a document resource of the vehicle per construct, plus the inventory", () => {
    expect(Object.keys(output.tf.resource ?? {})).toEqual([vehicle]);
    expect(Object.keys(output.tf.resource![vehicle]!).sort()).toEqual([
      "ap-east_document", "ap-east_identity", "converge_inventory", "get-orders_document", "get-orders_identity",
      "orders-backend_document", "orders-backend_identity", "security_document", "security_identity",
    ]);
    for (const resource of Object.values(output.tf.resource![vehicle]!)) expect(Object.keys(resource[triggersKey] ?? {})).toContain("document");
  });

  it.each([
    ["security", CONTACT],
    ["orders-backend", INTEGRATION],
    ["ap-east", REGION],
  ] as const)("the %s document resource holds the document and its sha256, and applies it at create time", (name, document) => {
    const resource = resourceOf(output, vehicle, `${name}_document`);
    const triggers = triggersOf(resource);
    expect(Object.keys(triggers).sort()).toEqual(["document", "hash"]);
    expect(JSON.parse(triggers.document!)).toEqual(document);
    expect(triggers.hash).toBe(sha256(document));
    expect(localExecsOf(resource)).toEqual([applyExec]);
    expect(resource.depends_on).toEqual([`${vehicle}.${name}_identity`]);
  });

  it.each(["security", "orders-backend", "get-orders"] as const)("the %s identity resource names only the identity and deletes it at destroy time", (name) => {
    const resource = resourceOf(output, vehicle, `${name}_identity`);
    const triggers = triggersOf(resource);
    expect(JSON.parse(triggers.document!)).toEqual(IDENTITIES[name]);
    expect(triggers.hash).toBe(sha256(IDENTITIES[name]));
    expect(localExecsOf(resource)).toEqual([deleteExec]);
    // terraform destroys the inventory after every identity resource
    expect(resource.depends_on?.[0]).toBe(`${vehicle}.converge_inventory`);
  });

  it("a RegionOptIn identity has no provisioner: removing it leaves the Region as it is", () => {
    const resource = resourceOf(output, vehicle, "ap-east_identity");
    expect(JSON.parse(triggersOf(resource).document!)).toEqual(IDENTITIES["ap-east"]);
    expect(resource.provisioner).toBeUndefined();
  });

  it("a route targeting an Integration construct applies [integration, route] and comes after the integration's document", () => {
    const document = resourceOf(output, vehicle, "get-orders_document");
    expect(JSON.parse(triggersOf(document).document!)).toEqual([INTEGRATION, ROUTE]);
    expect(triggersOf(document).hash).toBe(sha256([INTEGRATION, ROUTE]));
    expect(document.depends_on).toEqual([`${vehicle}.get-orders_identity`, `${vehicle}.orders-backend_document`]);
    expect(localExecsOf(document)).toEqual([applyExec]);
    const identity = resourceOf(output, vehicle, "get-orders_identity");
    expect(identity.depends_on).toEqual([`${vehicle}.converge_inventory`, `${vehicle}.orders-backend_document`]);
    // the integration's identity hash: a new integration identity replaces the route as well
    expect(triggersOf(identity).target).toBe(sha256(IDENTITIES["orders-backend"]));
  });

  it("the inventory lists the deletable identities and deletes, at destroy, those the configuration no longer lists", () => {
    const inventory = resourceOf(output, vehicle, "converge_inventory");
    const identities = [IDENTITIES.security, IDENTITIES["orders-backend"], IDENTITIES["get-orders"]];
    expect(JSON.parse(triggersOf(inventory).document!)).toEqual(identities);
    expect(localExecsOf(inventory)).toEqual([{
      when: "destroy",
      command: `${CLI} delete --document-env CONVERGE_DOCUMENT --keep-env CONVERGE_KEEP --auto-approve`,
      environment: { CONVERGE_DOCUMENT: selfDocument, CONVERGE_KEEP: triggersOf(inventory).document, CONVERGE_ENDPOINT: ENDPOINT },
    }]);
  });

  it("declares the null provider only for null_resource; terraform_data needs none", () => {
    if (vehicle === "null_resource") {
      expect(output.tf.provider).toEqual({ null: [{}] });
      expect(output.tf.terraform?.required_providers).toEqual({ null: { source: "null", version: "3.2.4" } });
    } else {
      expect(output.tf.provider).toBeUndefined();
      expect(output.tf.terraform?.required_providers).toBeUndefined();
    }
  });

  it("writes the stack's desired state beside cdk.tf.json, valid for the desired-state loader", async () => {
    expect(output.desired).toEqual([CONTACT, INTEGRATION, ROUTE, REGION]);
    const { documents } = await loadDesiredState([`${output.stackDir}/converge.desired.json`]);
    expect(documents.map((loaded) => loaded.document.kind)).toEqual(["AlternateContact", "Integration", "Route", "RegionOptIn"]);
  });

  it("matches the normalized snapshot", () => {
    expect(normalizeSynth(output.text, { "<outdir>": output.outdir })).toMatchSnapshot();
  });
});

describe("synth: what reaches cdk.tf.json", () => {
  it("escapes ${ and %{ so that terraform expands nothing, and the document reads back unchanged", () => {
    const name = "a ${path.module} b %{ if true }c%{ endif } $${d} \\u0024{e}";
    const output = synthStack((stack) => buildShop(stack, { contact: { name } }), { vehicle: "terraform_data", cli: CLI });
    expect(output.text).not.toContain("${path.module}");
    expect(output.text).not.toContain("%{ if");
    const triggers = triggersOf(resourceOf(output, "terraform_data", "security_document"));
    expect((JSON.parse(triggers.document!) as typeof CONTACT).spec.name).toBe(name);
    expect((output.desired[0] as typeof CONTACT).spec.name).toBe(name);
  });

  it("names a token variable other than CONVERGE_TOKEN with --token-env, and never holds the token", () => {
    process.env.SHOP_TOKEN_FOR_SYNTH = "tok-synth-SECRET-5f1e";
    try {
      const output = synthStack((stack) => buildShop(stack), { vehicle: "terraform_data", tokenEnvironmentVariable: "SHOP_TOKEN_FOR_SYNTH" });
      const execs = Object.values(output.tf.resource!.terraform_data!).flatMap(localExecsOf);
      expect(execs).toHaveLength(8);
      for (const exec of execs) {
        expect(exec.command).toMatch(/^converge (apply|delete) --document-env CONVERGE_DOCUMENT (--keep-env CONVERGE_KEEP )?--auto-approve --token-env SHOP_TOKEN_FOR_SYNTH$/);
        expect(exec.environment).not.toHaveProperty("CONVERGE_ENDPOINT");
      }
      expect(output.text).not.toContain("tok-synth-SECRET-5f1e");
      expect(output.desiredText).not.toContain("tok-synth-SECRET-5f1e");
    } finally {
      delete process.env.SHOP_TOKEN_FOR_SYNTH;
    }
  });

  it("keeps every command fixed: documents travel only in the environment", () => {
    const output = synthStack((stack) => buildShop(stack, { contact: { name: "$(touch /tmp/x)" } }), { vehicle: "null_resource" });
    const commands = new Set(Object.values(output.tf.resource!.null_resource!).flatMap(localExecsOf).map((exec) => exec.command));
    expect([...commands].sort()).toEqual([
      "converge apply --document-env CONVERGE_DOCUMENT --auto-approve",
      "converge delete --document-env CONVERGE_DOCUMENT --auto-approve",
      "converge delete --document-env CONVERGE_DOCUMENT --keep-env CONVERGE_KEEP --auto-approve",
    ]);
  });

  it("names nested constructs' resources by their path below the stack", () => {
    const output = synthStack((stack) => {
      const route = new Route(new Construct(stack, "api"), "raw", { api: ORDERS_API, routeKey: "GET /raw", target: "integrations/abc1234" });
      expect(route.documentAddress).toBe("terraform_data.api_raw_document");
      expect(route.identityAddress).toBe("terraform_data.api_raw_identity");
    }, { vehicle: "terraform_data" });
    expect(JSON.parse(triggersOf(resourceOf(output, "terraform_data", "api_raw_document")).document!)).toEqual({ kind: "Route", api: ORDERS_API, spec: { routeKey: "GET /raw", target: "integrations/abc1234" } });
  });
});

describe("synth: validation", () => {
  it("rejects invalid props at synth, every problem at once, each with its construct path", () => {
    const app = new App({ outdir: makeOutdir("invalid") });
    const stack = new TerraformStack(app, "shop");
    new ConvergeConfig(stack, "converge", { vehicle: "terraform_data", endpoint: "localhost:4566", tokenEnvironmentVariable: "MY-TOKEN" });
    new AlternateContact(stack, "security", { type: "Security" as "SECURITY", name: "", title: "CISO", emailAddress: "not an email", phoneNumber: "+1 555 0100" });
    new AlternateContact(stack, "billing", { account: "12345", type: "BILLING", name: "Billing", title: "CFO", emailAddress: "b@example.com", phoneNumber: "call me" });
    const integration = new Integration(stack, "Orders Backend", { api: ORDERS_API, integrationType: "HTTP_PROXY", timeoutInMillis: 1.5, colour: "blue" } as never);
    new Route(stack, "get-orders", { api: "b1b2c3d4e5", routeKey: "", target: integration });
    new RegionOptIn(stack, "ap-east", { region: "", enabled: "yes" as unknown as boolean });
    let message = "";
    try {
      app.synth();
    } catch (error) {
      message = (error as Error).message;
    }
    const expected = [
      ["shop/converge", 'endpoint "localhost:4566" is not valid: expected an http(s) origin'],
      ["shop/converge", 'tokenEnvironmentVariable "MY-TOKEN" is not valid: expected the name of an environment variable'],
      ["shop/security", 'type "Security" is not valid: expected one of "BILLING", "OPERATIONS", "SECURITY" (upper case)'],
      ["shop/security", 'name "" is not valid'],
      ["shop/security", 'emailAddress "not an email" is not valid'],
      ["shop/billing", 'account "12345" is not valid: expected exactly 12 digits'],
      ["shop/billing", 'phoneNumber "call me" is not valid'],
      ["shop/Orders Backend", 'name "Orders Backend" is not valid: expected a logical name'],
      ["shop/Orders Backend", "timeoutInMillis 1.5 is not valid: expected an integer number of milliseconds"],
      ["shop/Orders Backend", 'unknown field "colour"'],
      ["shop/get-orders", 'routeKey "" is not valid: expected a non-empty route key'],
      ["shop/get-orders", 'target.integration "Orders Backend" is not valid: expected a logical name'],
      ["shop/get-orders", 'target is the Integration at "shop/Orders Backend" of API a1b2c3d4e5, but the route belongs to API b1b2c3d4e5'],
      ["shop/ap-east", 'region "" is not valid'],
      ["shop/ap-east", 'enabled "yes" is not valid'],
    ];
    for (const [path, text] of expected) expect(message, `[${path}] ${text}`).toContain(`[${path}] ${text}`);
    expect(message.split("\n").filter((line) => line.trim().startsWith("[shop/"))).toHaveLength(expected.length);
  });

  it("rejects two constructs that declare the same resource, naming both", () => {
    expect(() => synthStack((stack) => {
      new AlternateContact(stack, "security", { type: "SECURITY", name: "A", title: "T", emailAddress: "a@example.com", phoneNumber: "1" });
      new AlternateContact(stack, "security-again", { type: "SECURITY", name: "B", title: "T", emailAddress: "b@example.com", phoneNumber: "2" });
    }, { vehicle: "terraform_data" })).toThrow(/\[shop\/security-again\] AlternateContact\/self\/SECURITY is declared twice: first at "shop\/security"/);
  });

  it("rejects a route whose target integration belongs to another stack", () => {
    const app = new App({ outdir: makeOutdir("cross-stack") });
    const first = new TerraformStack(app, "first");
    const second = new TerraformStack(app, "second");
    new ConvergeConfig(first, "converge", { vehicle: "terraform_data" });
    new ConvergeConfig(second, "converge", { vehicle: "terraform_data" });
    const integration = new Integration(first, "orders-backend", { api: ORDERS_API, integrationType: "HTTP_PROXY", integrationUri: "https://b.example", payloadFormatVersion: "1.0" });
    new Route(second, "route", { api: ORDERS_API, routeKey: "GET /x", target: integration });
    expect(() => app.synth()).toThrow(/\[second\/route\] target is the Integration at "first\/orders-backend", which belongs to another stack/);
  });

  it("rejects a converge construct in a stack without a ConvergeConfig, when it is created", () => {
    const stack = new TerraformStack(new App({ outdir: makeOutdir("no-config") }), "bare");
    expect(() => new RegionOptIn(stack, "ap-east", { region: "ap-east-1", enabled: true })).toThrow('no ConvergeConfig in stack "bare": create one before the first converge construct');
  });

  it("rejects a second ConvergeConfig in one stack", () => {
    const stack = new TerraformStack(new App({ outdir: makeOutdir("two-configs") }), "twice");
    new ConvergeConfig(stack, "one");
    expect(() => new ConvergeConfig(stack, "two")).toThrow('stack "twice" already has a ConvergeConfig at "twice/one"');
  });
});

