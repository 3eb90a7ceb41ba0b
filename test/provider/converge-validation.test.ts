import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { convergeProvider } from "../../src/provider/converge-provider.js";
import { convergeValidation } from "../../src/provider/converge-validation.js";
import { encodeMsgpack, impliedType, UNKNOWN, type Logger, type Schema, type Value } from "../../src/provider/runtime/index.js";
import { NODE_WARNING_LINE } from "../support/cli.js";
import { useWorld } from "../support/world.js";
import { startPlugin, type PluginProcess } from "./runtime/plugin-process.js";
import { ORDERS_API, providerWorld, TOKEN } from "./terraform-fixture.js";

/**
 * terraform starts the provider once per command only to validate configuration: that process
 * answers from the kinds' documents (converge-validation.ts) and loads neither the clients nor the
 * engine, and its answers are the definition's.
 */

const MAIN = resolve(import.meta.dirname, "../../dist/src/provider/main.js");
const RECORDER = pathToFileURL(resolve(import.meta.dirname, "fixtures/record-loaded-modules.mjs")).href;

const silent: Logger = { trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Every attribute of `schema` null but those given, as terraform sends a configuration. */
function configOf(schema: Schema, given: Readonly<Record<string, Value>>): Record<string, Value> {
  return { ...Object.fromEntries(Object.keys(schema.attributes).map((name) => [name, null])), ...given };
}

/** Configurations of each resource type, data source and the provider block: valid, refused, and with unknowns. */
const CASES: ReadonlyArray<{ readonly what: "resource" | "dataSource" | "provider"; readonly name: string; readonly given: Readonly<Record<string, Value>> }> = [
  { what: "resource", name: "converge_route", given: { api_id: ORDERS_API, route_key: "GET /orders" } },
  { what: "resource", name: "converge_route", given: { api_id: ORDERS_API, route_key: "get /orders", authorization_type: "SOMETIMES" } },
  { what: "resource", name: "converge_route", given: { api_id: UNKNOWN, route_key: "GET /x", target: UNKNOWN } },
  { what: "resource", name: "converge_integration", given: { api_id: ORDERS_API, integration_type: "HTTP_PROXY", integration_uri: "not a url", timeout_in_millis: 1 } },
  { what: "resource", name: "converge_integration", given: { api_id: ORDERS_API, integration_type: "HTTP_PROXY", integration_uri: "https://example.com", payload_format_version: "1.0" } },
  { what: "resource", name: "converge_alternate_contact", given: { account_id: "12", alternate_contact_type: "billing", name: "", email_address: "nope", phone_number: "x" } },
  { what: "resource", name: "converge_region_opt_in", given: { region_name: "ap-east-1", enabled: true } },
  { what: "resource", name: "converge_region_opt_in", given: { region_name: "", enabled: UNKNOWN } },
  { what: "dataSource", name: "converge_api", given: {} },
  { what: "dataSource", name: "converge_regions", given: { account_id: "1", region_opt_status_contains: ["ENABLED", "NOPE"] } },
  { what: "provider", name: "converge", given: { endpoint: "ftp://x", request_timeout: -1 } },
];

describe("the provider's validation", () => {
  it("validates every resource type and data source the definition has", () => {
    expect(Object.keys(convergeValidation.resources).sort()).toEqual(Object.keys(convergeProvider.resources).sort());
    expect(Object.keys(convergeValidation.dataSources).sort()).toEqual(Object.keys(convergeProvider.dataSources).sort());
  });

  it.each(CASES)("answers $name ($given) as the definition does", async ({ what, name, given }) => {
    const definition = what === "provider" ? convergeProvider : what === "resource" ? convergeProvider.resources[name]! : convergeProvider.dataSources[name]!;
    const validation = what === "provider" ? convergeValidation : what === "resource" ? convergeValidation.resources[name]! : convergeValidation.dataSources[name]!;
    const request = { config: configOf(definition.schema, given), log: silent } as never;
    const expected = await definition.validate!(request);
    expect(await validation.validate!(request)).toEqual(expected);
  });

  it("refuses what the kinds' schemas refuse, on the attribute it is about", async () => {
    const route = convergeProvider.resources.converge_route!;
    const diagnostics = await convergeValidation.resources.converge_route!.validate!({ config: configOf(route.schema, { api_id: ORDERS_API, route_key: "" }), log: silent } as never);
    expect(diagnostics).toEqual([{ severity: "error", summary: 'route_key "" is not valid: expected a non-empty route key', path: ["route_key"] }]);
  });
});

describe("a provider process that only validates", () => {
  const { service } = useWorld({ world: providerWorld() });
  let directory: string;
  let plugin: PluginProcess | undefined;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "provider-validation-"));
  });

  afterAll(async () => {
    plugin?.kill();
    rmSync(directory, { recursive: true, force: true });
  });

  it("loads neither the clients nor the engine to validate, and loads them when configured", async () => {
    const loadedFile = join(directory, "loaded.txt");
    plugin = await startPlugin({ NODE_OPTIONS: `--import=${RECORDER}`, CONVERGE_TEST_LOADED_MODULES: loadedFile }, MAIN);
    const route = convergeProvider.resources.converge_route!;
    const answer = await plugin.call<{ diagnostics: ReadonlyArray<{ summary: string; attribute: unknown }> }>("ValidateResourceConfig", {
      type_name: "converge_route",
      config: { msgpack: Buffer.from(encodeMsgpack(configOf(route.schema, { api_id: ORDERS_API, route_key: "" }), impliedType(route.schema))) },
    });
    expect(answer.diagnostics).toEqual([expect.objectContaining({ summary: 'route_key "" is not valid: expected a non-empty route key' })]);
    const validating = loadedModules(loadedFile);
    // the recorder saw the process load the runtime and the kinds' document schemas
    expect(validating).toEqual(expect.arrayContaining(["src/provider/main.js", "src/provider/converge-validation.js", "src/desired/document-value.js"]));
    expect(validating.filter(isClientOrEngine)).toEqual([]);

    const configured = await plugin.call<{ diagnostics: ReadonlyArray<unknown> }>("ConfigureProvider", {
      terraform_version: "1.11.4",
      config: { msgpack: Buffer.from(encodeMsgpack(configOf(convergeProvider.schema, { endpoint: service.url, token: TOKEN }), impliedType(convergeProvider.schema))) },
    });
    expect(configured.diagnostics).toEqual([]);
    const afterConfigure = loadedModules(loadedFile);
    // the same recorder sees them once configure needs them: the check above is not blind to them
    expect(afterConfigure).toEqual(expect.arrayContaining(["src/provider/converge-provider.js", "src/clients/index.js", "undici/lib/dispatcher/pool.js"]));
    expect(afterConfigure.filter(isClientOrEngine).some((module) => module.startsWith("src/reconcile/"))).toBe(true);
  });
});

describe("a provider process answering what it refuses", () => {
  const { service } = useWorld({ world: providerWorld() });

  it("prints no process warning of a library on its stderr: refused configurations, a configure, a read of what is not there", async () => {
    const plugin = await startPlugin({}, MAIN);
    type Answer = { diagnostics: ReadonlyArray<{ severity: string; summary: string }> };
    const refused: string[] = [];
    try {
      for (const { what, name, given } of CASES) {
        const definition = what === "provider" ? convergeProvider : what === "resource" ? convergeProvider.resources[name]! : convergeProvider.dataSources[name]!;
        const config = { msgpack: Buffer.from(encodeMsgpack(configOf(definition.schema, given), impliedType(definition.schema))) };
        const method = what === "provider" ? "ValidateProviderConfig" : what === "resource" ? "ValidateResourceConfig" : "ValidateDataResourceConfig";
        const answer = await plugin.call<Answer>(method, what === "provider" ? { config } : { type_name: name, config });
        refused.push(...answer.diagnostics.filter((diagnostic) => diagnostic.severity === "ERROR").map((diagnostic) => diagnostic.summary));
      }
      const configured = await plugin.call<Answer>("ConfigureProvider", {
        terraform_version: "1.11.4",
        config: { msgpack: Buffer.from(encodeMsgpack(configOf(convergeProvider.schema, { endpoint: service.url, token: TOKEN }), impliedType(convergeProvider.schema))) },
      });
      expect(configured.diagnostics).toEqual([]);
      const api = convergeProvider.dataSources.converge_api!;
      const read = await plugin.call<Answer>("ReadDataSource", { type_name: "converge_api", config: { msgpack: Buffer.from(encodeMsgpack(configOf(api.schema, { api_id: "zzzzzzzzzz" }), impliedType(api.schema))) } });
      refused.push(...read.diagnostics.filter((diagnostic) => diagnostic.severity === "ERROR").map((diagnostic) => diagnostic.summary));
    } finally {
      plugin.kill();
      await plugin.exited;
    }
    // the cases were refused (the process did speak), and only in its answers and its own log lines
    expect(refused.length).toBeGreaterThan(CASES.length / 2);
    expect(refused.some((summary) => summary.includes("zzzzzzzzzz"))).toBe(true);
    expect(plugin.stderr()).not.toMatch(NODE_WARNING_LINE);
  });
});

/** The modules a recorded process loaded: its own by their path under dist/, a package's as `package/file`. */
function loadedModules(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map((url) => {
    const inPackage = url.split("/node_modules/")[1];
    if (inPackage !== undefined) return inPackage;
    const own = url.split("/dist/")[1];
    return own ?? url;
  });
}

/** A module of the clients (but their answer limits, plain constants the provider block's check shares), the engine, the service, or undici. */
function isClientOrEngine(module: string): boolean {
  if (module === "src/clients/answer-limits.js") return false;
  return /^(src\/(clients|reconcile|service)\/|undici\/)/.test(module) || module === "src/provider/converge-provider.js" || module === "src/provider/live-cache.js";
}
