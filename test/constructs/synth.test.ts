import { createHash } from "node:crypto";
import { App, TerraformStack } from "cdktf";
import { Construct } from "constructs";
import { afterAll, describe, expect, it } from "vitest";
import { AlternateContact, Api, ConvergeConfig, Integration, RegionOptIn, Route, type Vehicle } from "../../constructs/index.js";
import { decodeInventory, INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS } from "../../src/desired/inventory.js";
import { loadDesiredState } from "../../src/desired/load.js";
import { canonicalJson } from "../../src/desired/canonical-json.js";
import { ORDERS_API, buildShop } from "./shop-stack.js";
import { cleanupSynthDirs, localExecsOf, makeOutdir, normalizeSynth, resourceOf, synthStack, triggersOf, type LibraryName } from "./synth-fixture.js";

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
};
const fileSha256 = (text: string) => createHash("sha256").update(text).digest("hex");

afterAll(() => cleanupSynthDirs());

describe.each<{ vehicle: Vehicle; triggersKey: "triggers" | "triggers_replace"; library: LibraryName }>([
  { vehicle: "null_resource", triggersKey: "triggers", library: "cdktf" },
  { vehicle: "terraform_data", triggersKey: "triggers_replace", library: "cdktf" },
  { vehicle: "null_resource", triggersKey: "triggers", library: "cdktn" },
  { vehicle: "terraform_data", triggersKey: "triggers_replace", library: "cdktn" },
])("synth with the $vehicle vehicle ($library)", ({ vehicle, triggersKey, library }) => {
  const output = synthStack((stack) => buildShop(stack), { vehicle, endpoint: ENDPOINT, cli: CLI }, { library });
  const sha = fileSha256(output.desiredText);
  const environment = { CONVERGE_DESIRED_SHA256: sha, CONVERGE_ENDPOINT: ENDPOINT };
  const lookup = (index: number) => `\${lookup(self.${triggersKey}, "inventory_${index}", "")}`;

  it("emits three resources of the vehicle for the whole stack, whatever the number of constructs", () => {
    expect(Object.keys(output.tf.resource ?? {})).toEqual([vehicle]);
    expect(Object.keys(output.tf.resource![vehicle]!).sort()).toEqual(["converge_apply", "converge_inventory", "converge_owner"]);
    const larger = synthStack((stack) => {
      buildShop(stack);
      for (let i = 0; i < 50; i += 1) new Route(stack, `route-${i}`, { api: ORDERS_API, routeKey: `GET /r${i}` });
    }, { vehicle, endpoint: ENDPOINT, cli: CLI }, { library });
    expect(Object.keys(larger.tf.resource![vehicle]!).sort()).toEqual(["converge_apply", "converge_inventory", "converge_owner"]);
  });

  it("the apply resource maps each construct's path to its document's sha256, holds the file's sha256, and applies the stack at create time", () => {
    const apply = resourceOf(output, vehicle, "converge_apply");
    expect(triggersOf(apply)).toEqual({
      security: sha256(CONTACT), "orders-backend": sha256(INTEGRATION), "get-orders": sha256(ROUTE), "ap-east": sha256(REGION),
      "converge.desired.json": sha,
    });
    expect(localExecsOf(apply)).toEqual([{ when: "create", command: `${CLI} apply --from-synth . --expect-sha256-env CONVERGE_DESIRED_SHA256 --auto-approve`, environment }]);
    expect(apply.depends_on).toEqual([`${vehicle}.converge_inventory`]);
  });

  it("the inventory holds the deletable identities (no RegionOptIn), and at destroy applies the stack and deletes what it no longer lists", () => {
    const inventory = resourceOf(output, vehicle, "converge_inventory");
    const triggers = triggersOf(inventory);
    expect(Object.keys(triggers).sort()).toEqual(["inventory_0", "resources"]);
    expect(triggers.resources).toBe("3");
    expect(decodeInventory([triggers.inventory_0!])).toEqual([IDENTITIES.security, IDENTITIES["orders-backend"], IDENTITIES["get-orders"]]);
    const previous = Object.fromEntries(Array.from({ length: INVENTORY_MAX_CHUNKS }, (_, index) => [`CONVERGE_PREVIOUS_${index}`, lookup(index)]));
    expect(localExecsOf(inventory)).toEqual([{
      when: "destroy",
      command: `${CLI} apply --from-synth . --expect-sha256-env CONVERGE_DESIRED_SHA256 --previous-env CONVERGE_PREVIOUS --auto-approve`,
      environment: { CONVERGE_DESIRED_SHA256: sha, ...previous, CONVERGE_ENDPOINT: ENDPOINT },
    }]);
    expect(inventory.depends_on).toEqual([`${vehicle}.converge_owner`]);
  });

  it("the owner is never replaced (no triggers) and deletes, at destroy, everything the stack declares", () => {
    const owner = resourceOf(output, vehicle, "converge_owner");
    expect(triggersOf(owner)).toEqual({});
    expect(owner.depends_on).toBeUndefined();
    expect(localExecsOf(owner)).toEqual([{ when: "destroy", command: `${CLI} delete --from-synth . --expect-sha256-env CONVERGE_DESIRED_SHA256 --auto-approve`, environment }]);
  });

  it("declares the null provider only for null_resource; terraform_data needs none", () => {
    if (vehicle === "null_resource") {
      expect(output.tf.provider).toEqual({ null: [{}] });
      expect(output.tf.terraform?.required_providers).toMatchObject({ null: { source: library === "cdktf" ? "null" : "hashicorp/null" } });
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
  it("carries the stack with terraform_data when no vehicle is given (the default, measured fastest; nothing to download)", () => {
    const output = synthStack((stack) => buildShop(stack), { cli: CLI });
    expect(Object.keys(output.tf.resource ?? {})).toEqual(["terraform_data"]);
    expect(output.tf.terraform?.required_providers).toBeUndefined();
  });

  it("holds no document: values reach the CLI only through converge.desired.json", () => {
    const name = "${path.module} %{ if true }c%{ endif } $(touch /tmp/x) $${d}";
    const output = synthStack((stack) => buildShop(stack, { contact: { name } }), { vehicle: "terraform_data", cli: CLI });
    expect(output.text).not.toContain("path.module");
    expect(output.text).not.toContain("%{ if");
    expect(output.text).not.toContain("touch");
    expect((output.desired[0] as typeof CONTACT).spec.name).toBe(name);
  });

  it("breaks up ${ and %{ in construct paths, the one user text cdk.tf.json holds (as trigger keys)", () => {
    const output = synthStack((stack) => new Route(stack, "r ${path.module} %{ if true }", { api: ORDERS_API, routeKey: "GET /x" }), { vehicle: "terraform_data", cli: CLI });
    expect(Object.keys(triggersOf(resourceOf(output, "terraform_data", "converge_apply")))).toContain("r $ {path.module} % { if true }");
  });

  it("refuses a template sequence in the endpoint or the CLI command, which terraform would evaluate", () => {
    expect(() => synthStack(() => undefined, { vehicle: "terraform_data", endpoint: "http://h/${path.cwd}", cli: "node %{ if true }x%{ endif }" })).toThrow(
      /\[shop\/converge\] endpoint "http:\/\/h\/\$\{path\.cwd\}" is not valid: expected no terraform template sequence[\s\S]*\[shop\/converge\] cli "node %\{ if true \}x%\{ endif \}" is not valid: expected no terraform template sequence/);
  });

  it("names a token variable other than CONVERGE_TOKEN with --token-env, and never holds the token", () => {
    process.env.SHOP_TOKEN_FOR_SYNTH = "tok-synth-SECRET-5f1e";
    try {
      const output = synthStack((stack) => buildShop(stack), { vehicle: "terraform_data", tokenEnvironmentVariable: "SHOP_TOKEN_FOR_SYNTH" });
      const execs = Object.values(output.tf.resource!.terraform_data!).flatMap(localExecsOf);
      expect(execs).toHaveLength(3);
      for (const exec of execs) {
        expect(exec.command).toMatch(/^converge (apply|delete) --from-synth \. --expect-sha256-env CONVERGE_DESIRED_SHA256 (--previous-env CONVERGE_PREVIOUS )?--auto-approve --token-env SHOP_TOKEN_FOR_SYNTH$/);
        expect(exec.environment).not.toHaveProperty("CONVERGE_ENDPOINT");
      }
      expect(output.text).not.toContain("tok-synth-SECRET-5f1e");
      expect(output.desiredText).not.toContain("tok-synth-SECRET-5f1e");
    } finally {
      delete process.env.SHOP_TOKEN_FOR_SYNTH;
    }
  });

  it("names nested constructs by their path below the stack in the apply resource's triggers", () => {
    const output = synthStack((stack) => {
      const route = new Route(new Construct(stack, "api"), "raw", { api: ORDERS_API, routeKey: "GET /raw", target: "integrations/abc1234" });
      expect(route.triggerKey).toBe("api/raw");
    }, { vehicle: "terraform_data" });
    const document = { kind: "Route", api: ORDERS_API, spec: { routeKey: "GET /raw", target: "integrations/abc1234" } };
    expect(triggersOf(resourceOf(output, "terraform_data", "converge_apply"))["api/raw"]).toBe(sha256(document));
    expect(output.desired).toEqual([document]);
  });

  it("a stack of 1,000 constructs keeps its inventory within one environment variable", () => {
    const output = synthStack((stack) => {
      for (let i = 0; i < 500; i += 1) {
        const integration = new Integration(stack, `backend-${i}`, { api: ORDERS_API, integrationType: "HTTP_PROXY", integrationUri: `https://svc-${i}.internal.example/api`, integrationMethod: "ANY", payloadFormatVersion: "1.0" });
        new Route(stack, `route-${i}`, { api: ORDERS_API, routeKey: `GET /resource-${i}/{id}`, target: integration });
      }
    }, { vehicle: "terraform_data" });
    const triggers = triggersOf(resourceOf(output, "terraform_data", "converge_inventory"));
    expect(triggers.resources).toBe("1000");
    expect(Object.keys(triggers).filter((key) => key.startsWith("inventory_"))).toEqual(["inventory_0"]);
    expect(triggers.inventory_0!.length).toBeLessThanOrEqual(INVENTORY_CHUNK_CHARS);
    expect(decodeInventory([triggers.inventory_0!])).toHaveLength(1000);
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

  it("rejects a WebSocket-only prop on a route of an API an Api construct declares HTTP, naming the prop", () => {
    expect(() => synthStack((stack) => {
      new Api(stack, "orders", { api: ORDERS_API, protocolType: "HTTP" });
      new Route(stack, "get-orders", { api: ORDERS_API, routeKey: "GET /orders", apiKeyRequired: true });
    }, { vehicle: "terraform_data" })).toThrow("[shop/get-orders] apiKeyRequired is for WebSocket APIs only; this route belongs to an HTTP API");
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

