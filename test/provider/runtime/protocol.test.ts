import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { connect } from "node:tls";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeMsgpack, encodeMsgpack, impliedType, types, UNKNOWN, type Schema } from "../../../src/provider/runtime/index.js";
import { selfSignedCertificate, type SelfSignedCertificate } from "../../../src/provider/runtime/self-signed-certificate.js";
import { runProcess } from "../../support/run-process.js";
import { MAGIC_COOKIE, startPlugin, TOY_PROVIDER, type PluginProcess } from "./plugin-process.js";

/**
 * The runtime alone against the protocol's own messages: the toy provider runs as a child process
 * started the way terraform starts one, and a gRPC client loaded from the .proto files talks to it
 * over mutual TLS. MessagePack is written out byte by byte as cty encodes it.
 */

/** Bytes from hex, spaces allowed. */
const hex = (...parts: string[]) => Buffer.from(parts.join("").replace(/\s+/g, ""), "hex");
/** A MessagePack string: fixstr up to 31 bytes, else str8. */
const str = (text: string) => {
  const length = Buffer.byteLength(text);
  return (length < 32 ? (0xa0 + length).toString(16) : `d9${length.toString(16).padStart(2, "0")}`) + Buffer.from(text).toString("hex");
};
const NIL = "c0";
const UNKNOWN_BYTES = "d4 00 00"; // fixext1, extension 0
const REFINED_NOT_NULL_UNKNOWN = "c7 03 0c 81 01 c2"; // ext8 of 3 bytes, extension 12: {1: false} (not null)
const LIST_OF_STRING_JSON = Buffer.from('["list","string"]').toString("hex");

interface Answer {
  readonly diagnostics: ReadonlyArray<{ severity: string; summary: string; detail: string; attribute: { steps: ReadonlyArray<Record<string, unknown>> } | null }>;
  readonly [field: string]: unknown;
}
type DynamicValue = { msgpack: Buffer; json: Buffer } | null;

/** toy_kitchen's attributes in cty's (sorted) order, for the byte sequences below. */
function kitchen(values: Partial<Record<"amount" | "anything" | "derived" | "flag" | "id" | "mode" | "names" | "pairs" | "point" | "text" | "unique" | "weights", string>>): Buffer {
  const names = ["amount", "anything", "derived", "flag", "id", "mode", "names", "pairs", "point", "text", "unique", "weights"] as const;
  return hex("8c", ...names.map((name) => str(name) + (values[name] ?? NIL)));
}

let plugin: PluginProcess;
let store: string;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "provider-runtime-"));
  store = join(directory, "store.json");
  plugin = await startPlugin();
  const configured = await plugin.call<Answer>("ConfigureProvider", {
    terraform_version: "1.11.4",
    config: { msgpack: hex("82", str("store"), str(store), str("token"), str("secret")) },
  });
  expect(configured.diagnostics).toEqual([]);
});

afterAll(() => {
  plugin?.kill();
  rmSync(directory, { recursive: true, force: true });
});

describe("handshake", () => {
  it("prints one line: core protocol 1, protocol 6, a Unix socket in a directory of its own, grpc and its certificate as unpadded base64 DER", () => {
    expect(plugin.handshake).toMatch(/^1\|6\|unix\|[^|]+\/converge-plugin-[A-Za-z0-9]{6}\/plugin\.sock\|grpc\|[A-Za-z0-9+/]+$/);
    const directory = dirname((plugin.where as { path: string }).path);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    expect(statSync(join(directory, "plugin.sock")).isSocket()).toBe(true);
    const certificate = new X509Certificate(plugin.serverCertificatePem);
    expect(certificate.subjectAltName).toContain("DNS:localhost");
    expect(certificate.ca).toBe(true);
    expect(certificate.checkIssued(certificate)).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
  });

  it("refuses to run without terraform's magic cookie, saying why on stderr", async () => {
    const result = await runProcess(process.execPath, [TOY_PROVIDER], { env: { PATH: process.env["PATH"] ?? "", PLUGIN_PROTOCOL_VERSIONS: "6" }, timeoutMs: 10_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("TF_PLUGIN_MAGIC_COOKIE is not set");
    expect(result.stderr).toContain("is a terraform provider plugin");
  });

  it("refuses to run when terraform does not offer protocol 6", async () => {
    const result = await runProcess(process.execPath, [TOY_PROVIDER], { env: { PATH: process.env["PATH"] ?? "", ...MAGIC_COOKIE, PLUGIN_PROTOCOL_VERSIONS: "4,5" }, timeoutMs: 10_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PLUGIN_PROTOCOL_VERSIONS is "4,5"');
  });

  it("refuses to run when PLUGIN_CLIENT_CERT is not a certificate, before any handshake line", async () => {
    const result = await runProcess(process.execPath, [TOY_PROVIDER], {
      env: { PATH: process.env["PATH"] ?? "", ...MAGIC_COOKIE, PLUGIN_PROTOCOL_VERSIONS: "6", PLUGIN_CLIENT_CERT: "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n" },
      timeoutMs: 10_000,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("PLUGIN_CLIENT_CERT that is not a certificate (79 characters;");
  });

  it("rejects a client whose certificate is not the one terraform gave it", async () => {
    /** How a TLS connection with this client certificate ends: "accepted" once the server answers, else the TLS error or "closed". */
    const handshakeWith = (certificate: SelfSignedCertificate | undefined) =>
      new Promise<string>((resolveOutcome) => {
        const socket = connect({ ...plugin.where, servername: "localhost", ca: plugin.serverCertificatePem, ...(certificate === undefined ? {} : { key: certificate.privateKeyPem, cert: certificate.certificatePem }), ALPNProtocols: ["h2"] });
        socket.once("error", (error) => resolveOutcome(error.message));
        socket.once("close", () => resolveOutcome("closed"));
        socket.once("secureConnect", () => socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
        socket.once("data", () => {
          resolveOutcome("accepted");
          socket.destroy();
        });
      });
    // another certificate of the same subject and usage, made as terraform makes its own, is refused
    await expect(handshakeWith(selfSignedCertificate())).resolves.toMatch(/^closed$|alert unknown ca|certificate/);
    // nor one without a certificate at all
    await expect(handshakeWith(undefined)).resolves.toMatch(/^closed$|certificate/);
    await expect(handshakeWith(plugin.clientCertificate)).resolves.toBe("accepted");
  });

  it("answers RPCs terraform 1.11 never calls UNIMPLEMENTED", async () => {
    await expect(plugin.call("ValidateEphemeralResourceConfig", { type_name: "toy_item" })).rejects.toMatchObject({ code: 12 });
  });

  it("refuses MoveResourceState to a type that takes no state from other types, with a diagnostic naming both", async () => {
    const answer = await plugin.call("MoveResourceState", { source_type_name: "terraform_data", target_type_name: "toy_item" });
    expect(answer).toMatchObject({ diagnostics: [{ severity: "ERROR", summary: "moving terraform_data to toy_item is not supported", detail: expect.stringContaining("toy_item takes no state from other resource types") }] });
  });
});

describe("GetProviderSchema", () => {
  type SchemaAnswer = {
    provider: { block: { attributes: Array<Record<string, unknown>> } };
    resource_schemas: Record<string, { version: number; block: { attributes: Array<{ name: string; type: Buffer } & Record<string, unknown>>; block_types: Array<Record<string, unknown>> } }>;
    data_source_schemas: Record<string, unknown>;
    server_capabilities: Record<string, boolean>;
    diagnostics: unknown[];
  };
  let schema: SchemaAnswer;
  const attribute = (resource: string, name: string) => {
    const found = schema.resource_schemas[resource]!.block.attributes.find((each) => each.name === name)!;
    return { ...found, type: found.type.toString("utf8") };
  };

  beforeAll(async () => {
    schema = await plugin.call<SchemaAnswer>("GetProviderSchema", {});
  });

  it("announces planned destroys and an optional schema call", () => {
    expect(schema.diagnostics).toEqual([]);
    expect(schema.server_capabilities).toMatchObject({ plan_destroy: true, get_provider_schema_optional: true });
  });

  it("gives each attribute its flags, its description and its cty type as JSON bytes", () => {
    expect(schema.resource_schemas["toy_item"]!.version).toBe(1);
    expect(attribute("toy_item", "id")).toMatchObject({ type: '"string"', computed: true, optional: false, required: false, description: "The item's id (`item-NAME`).", description_kind: "MARKDOWN" });
    expect(attribute("toy_item", "name")).toMatchObject({ type: '"string"', required: true, computed: false });
    expect(attribute("toy_item", "size")).toMatchObject({ type: '"number"', optional: true, computed: true });
    expect(attribute("toy_item", "protected")).toMatchObject({ type: '"bool"', optional: true });
    expect(attribute("toy_item", "secret")).toMatchObject({ sensitive: true });
    expect(attribute("toy_item", "name")).toMatchObject({ sensitive: false });
    expect(attribute("toy_item", "tags").type).toBe('["map","string"]');
    expect(attribute("toy_item", "labels").type).toBe('["set","string"]');
    expect(attribute("toy_kitchen", "names").type).toBe('["list","string"]');
    expect(attribute("toy_kitchen", "pairs").type).toBe('["list",["object",{"key":"string","size":"number"}]]');
    expect(attribute("toy_kitchen", "point").type).toBe('["object",{"x":"number","y":"number"}]');
    expect(attribute("toy_kitchen", "anything").type).toBe('"dynamic"');
    expect(schema.provider.block.attributes.find((each) => each.name === "token")).toMatchObject({ sensitive: true, optional: true });
  });

  it("gives nested blocks their nesting and their own attributes", () => {
    const [rule] = schema.resource_schemas["toy_item"]!.block.block_types as Array<{ type_name: string; nesting: string; block: { attributes: Array<{ name: string; required: boolean; computed: boolean }> } }>;
    expect(rule).toMatchObject({ type_name: "rule", nesting: "LIST" });
    expect(rule!.block.attributes.map((each) => [each.name, each.required, each.computed])).toEqual([
      ["port", true, false],
      ["note", false, true],
    ]);
    expect(Object.keys(schema.data_source_schemas)).toEqual(["toy_lookup"]);
  });
});

describe("values over MessagePack (cty's encoding)", () => {
  const config = kitchen({
    amount: "cb 400c000000000000", // 3.5 as float64
    anything: `92 c4 11 ${LIST_OF_STRING_JSON} 91 ${str("a")}`, // dynamic: [type JSON as bin, value]
    flag: "c3",
    names: `92 ${str("x")} ${str("y")}`,
    pairs: `91 82 ${str("key")} ${str("k")} ${str("size")} cd 012c`, // size 300 as uint16
    point: `82 ${str("x")} ff ${str("y")} 02`, // x -1 as negative fixint
    text: REFINED_NOT_NULL_UNKNOWN,
    unique: `92 ${str("b")} ${str("a")}`,
    weights: `82 ${str("b")} ${str("12.5")} ${str("a")} 01`, // a number as a decimal string; keys unsorted
  });

  it("plans a create: computed attributes null in config become unknown, the refined unknown plain, numbers and map keys as cty writes them", async () => {
    const answer = await plugin.call<Answer & { planned_state: DynamicValue; requires_replace: unknown[] }>("PlanResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: hex(NIL) },
      proposed_new_state: { msgpack: config },
      config: { msgpack: config },
    });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.requires_replace).toEqual([]);
    expect(answer.planned_state!.msgpack.toString("hex")).toBe(
      kitchen({
        amount: "cb 400c000000000000",
        anything: `92 c4 11 ${LIST_OF_STRING_JSON} 91 ${str("a")}`, // still a list, not a tuple
        derived: UNKNOWN_BYTES,
        flag: "c3",
        id: UNKNOWN_BYTES,
        names: `92 ${str("x")} ${str("y")}`,
        pairs: `91 82 ${str("key")} ${str("k")} ${str("size")} cd 012c`,
        point: `82 ${str("x")} ff ${str("y")} 02`,
        text: UNKNOWN_BYTES,
        unique: `92 ${str("b")} ${str("a")}`,
        weights: `82 ${str("a")} 01 ${str("b")} cb 4029000000000000`, // sorted; 12.5 as float64
      }).toString("hex"),
    );
  });

  it("applies a create: the unknowns filled in, null kept apart from an absent map key", async () => {
    const planned = kitchen({ id: UNKNOWN_BYTES, derived: UNKNOWN_BYTES, text: str("t"), weights: `81 ${str("a")} ${NIL}` });
    const answer = await plugin.call<Answer & { new_state: DynamicValue }>("ApplyResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: hex(NIL) },
      planned_state: { msgpack: planned },
      config: { msgpack: kitchen({ text: str("t"), weights: `81 ${str("a")} ${NIL}` }) },
    });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.new_state!.msgpack.toString("hex")).toBe(
      kitchen({ id: str("kitchen"), derived: str("derived"), text: str("t"), weights: `81 ${str("a")} ${NIL}` }).toString("hex"),
    );
  });

  it("plans an update that changes something as the framework does: computed values unknown, those marked useStateForUnknown kept, no replacement", async () => {
    const prior = kitchen({ id: str("kitchen"), derived: str("derived"), text: str("t") });
    const proposed = kitchen({ id: str("kitchen"), derived: str("derived"), text: str("u") });
    const answer = await plugin.call<Answer & { planned_state: DynamicValue; requires_replace: unknown[] }>("PlanResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: prior },
      proposed_new_state: { msgpack: proposed },
      config: { msgpack: kitchen({ text: str("u") }) },
    });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.requires_replace).toEqual([]);
    expect(answer.planned_state!.msgpack.toString("hex")).toBe(kitchen({ id: str("kitchen"), derived: UNKNOWN_BYTES, text: str("u") }).toString("hex"));
  });

  it("plans an update that changes nothing as the prior state, computed values kept", async () => {
    const prior = kitchen({ id: str("kitchen"), derived: str("derived"), text: str("t") });
    const answer = await plugin.call<Answer & { planned_state: DynamicValue }>("PlanResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: prior },
      proposed_new_state: { msgpack: prior },
      config: { msgpack: kitchen({ text: str("t") }) },
    });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.planned_state!.msgpack.equals(prior)).toBe(true);
  });

  it("reads a resource that is gone as null", async () => {
    const answer = await plugin.call<Answer & { new_state: DynamicValue }>("ReadResource", {
      type_name: "toy_kitchen",
      current_state: { msgpack: kitchen({ id: str("kitchen"), mode: str("gone") }) },
    });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.new_state!.msgpack.toString("hex")).toBe(NIL);
  });

  it("reads a resource that is still there unchanged", async () => {
    const state = kitchen({ id: str("kitchen"), unique: `91 ${str("z")}`, amount: "cd 0400" });
    const answer = await plugin.call<Answer & { new_state: DynamicValue }>("ReadResource", { type_name: "toy_kitchen", current_state: { msgpack: state } });
    expect(answer.new_state!.msgpack.equals(state)).toBe(true);
  });

  it("rejects bytes that do not fit the schema, naming the attribute", async () => {
    const answer = await plugin.call<Answer>("ReadResource", { type_name: "toy_kitchen", current_state: { msgpack: kitchen({ id: "c3" }) } });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", detail: "id: received boolean true, expected a string", attribute: { steps: [{ attribute_name: "id" }] } }]);
  });
});

describe("resources", () => {
  const item = impliedType({
    attributes: Object.fromEntries(
      Object.entries({ id: types.string, name: types.string, value: types.string, tags: types.map(types.string), labels: types.set(types.string), size: types.number, revision: types.number, protected: types.bool, secret: types.string }).map(([name, type]) => [name, { type, optional: true }]),
    ),
    blocks: { rule: { nesting: "list", block: { attributes: { port: { type: types.number, required: true }, note: { type: types.string, computed: true } } } } },
  } satisfies Schema);
  const object = (values: Record<string, unknown>) => ({ id: null, name: null, value: null, tags: null, labels: null, size: null, revision: null, protected: null, secret: null, rule: [], ...values });
  const encoded = (values: Record<string, unknown> | null) => ({ msgpack: encodeMsgpack(values === null ? null : (object(values) as never), item) });

  it("plans a create with unknowns in config: computed attributes unknown, nested blocks' too, the config's unknown kept", async () => {
    const config = object({ name: "alpha", value: UNKNOWN, rule: [{ port: 80, note: null }] });
    const answer = await plugin.call<Answer & { planned_state: DynamicValue }>("PlanResourceChange", {
      type_name: "toy_item",
      prior_state: encoded(null),
      proposed_new_state: encoded(config),
      config: encoded(config),
    });
    expect(answer.diagnostics).toEqual([]);
    expect(decodeMsgpack(answer.planned_state!.msgpack, item)).toEqual(object({ id: UNKNOWN, name: "alpha", value: UNKNOWN, size: UNKNOWN, revision: UNKNOWN, rule: [{ port: 80, note: UNKNOWN }] }));
  });

  it("plans a replacement when a requiresReplace attribute changes", async () => {
    const prior = object({ id: "item-alpha", name: "alpha", value: "one", size: 1, revision: 1 });
    const proposed = object({ id: "item-alpha", name: "beta", value: "one", size: 1, revision: 1 });
    const answer = await plugin.call<Answer & { requires_replace: unknown[] }>("PlanResourceChange", {
      type_name: "toy_item",
      prior_state: encoded(prior),
      proposed_new_state: encoded(proposed),
      config: encoded(object({ name: "beta", value: "one" })),
    });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.requires_replace).toEqual([{ steps: [{ attribute_name: "name", selector: "attribute_name" }] }]);
  });

  it("refuses a planned destroy with an error pointing at the attribute", async () => {
    const prior = object({ id: "item-alpha", name: "alpha", protected: true, size: 1, revision: 1 });
    const answer = await plugin.call<Answer & { planned_state: DynamicValue }>("PlanResourceChange", {
      type_name: "toy_item",
      prior_state: encoded(prior),
      proposed_new_state: encoded(null),
      config: encoded(null),
    });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", summary: "item is protected", attribute: { steps: [{ attribute_name: "protected" }] } }]);
    expect(answer.planned_state).toBeNull();
  });

  it("validates configuration with diagnostics pointing at the attribute", async () => {
    const answer = await plugin.call<Answer>("ValidateResourceConfig", { type_name: "toy_item", config: encoded(object({ name: "Alpha", value: UNKNOWN })) });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", summary: "name must be lower case", detail: 'received "Alpha": expected lower-case letters', attribute: { steps: [{ attribute_name: "name" }] } }]);
  });

  it("refuses a null configuration with one error, for a resource and for the provider, before any validate sees it", async () => {
    const resource = await plugin.call<Answer>("ValidateResourceConfig", { type_name: "toy_item", config: encoded(null) });
    expect(resource.diagnostics).toMatchObject([{ severity: "ERROR", summary: "toy_item: no configuration", detail: expect.stringContaining("the request's configuration is null") }]);
    const provider = await plugin.call<Answer>("ValidateProviderConfig", { config: { msgpack: hex(NIL) } });
    expect(provider.diagnostics).toMatchObject([{ severity: "ERROR", summary: "provider: no configuration" }]);
  });

  it("applies a create, an update and a delete through the store", async () => {
    const planned = object({ id: UNKNOWN, name: "gamma", value: "one", size: UNKNOWN, revision: UNKNOWN, rule: [{ port: 443, note: UNKNOWN }] });
    const created = await plugin.call<Answer & { new_state: DynamicValue }>("ApplyResourceChange", { type_name: "toy_item", prior_state: encoded(null), planned_state: encoded(planned), config: encoded(object({ name: "gamma", value: "one", rule: [{ port: 443, note: null }] })) });
    expect(created.diagnostics).toEqual([]);
    const state = decodeMsgpack(created.new_state!.msgpack, item) as Record<string, unknown>;
    expect(state).toEqual(object({ id: "item-gamma", name: "gamma", value: "one", size: 1, revision: 1, rule: [{ port: 443, note: "port 443" }] }));

    const updated = await plugin.call<Answer & { new_state: DynamicValue }>("ApplyResourceChange", {
      type_name: "toy_item",
      prior_state: created.new_state,
      planned_state: encoded({ ...state, value: "two", revision: UNKNOWN }),
      config: encoded(object({ name: "gamma", value: "two", rule: [{ port: 443, note: null }] })),
    });
    expect(updated.diagnostics).toEqual([]);
    expect(decodeMsgpack(updated.new_state!.msgpack, item)).toMatchObject({ value: "two", revision: 2 });

    const deleted = await plugin.call<Answer & { new_state: DynamicValue }>("ApplyResourceChange", { type_name: "toy_item", prior_state: updated.new_state, planned_state: encoded(null), config: encoded(null) });
    expect(deleted.diagnostics).toEqual([]);
    expect(deleted.new_state!.msgpack.toString("hex")).toBe(NIL);
  });

  it("turns an error thrown by create into an error diagnostic, and keeps nothing", async () => {
    const answer = await plugin.call<Answer & { new_state: DynamicValue }>("ApplyResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: hex(NIL) },
      planned_state: { msgpack: kitchen({ id: UNKNOWN_BYTES, derived: UNKNOWN_BYTES, mode: str("throw") }) },
      config: { msgpack: kitchen({ mode: str("throw") }) },
    });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", summary: "toy_kitchen: create failed", detail: "kitchen create failed on purpose", attribute: null }]);
    expect(answer.new_state!.msgpack.toString("hex")).toBe(NIL);
    expect(plugin.child.exitCode).toBeNull();
  });

  it("answers a thrown DiagnosticsError with its diagnostics and their attribute paths", async () => {
    const answer = await plugin.call<Answer>("ApplyResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: hex(NIL) },
      planned_state: { msgpack: kitchen({ id: UNKNOWN_BYTES, derived: UNKNOWN_BYTES, mode: str("diagnose") }) },
      config: { msgpack: kitchen({ mode: str("diagnose") }) },
    });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", summary: "amount is too large", attribute: { steps: [{ attribute_name: "amount" }] } }]);
  });

  it("refuses an applied state that breaks the plan, naming the attribute", async () => {
    const answer = await plugin.call<Answer & { new_state: DynamicValue }>("ApplyResourceChange", {
      type_name: "toy_kitchen",
      prior_state: { msgpack: hex(NIL) },
      planned_state: { msgpack: kitchen({ id: UNKNOWN_BYTES, derived: UNKNOWN_BYTES, text: str("planned"), mode: str("break") }) },
      config: { msgpack: kitchen({ text: str("planned"), mode: str("break") }) },
    });
    expect(answer.diagnostics).toMatchObject([
      { severity: "ERROR", summary: "toy_kitchen: inconsistent result after create", detail: 'text was planned as string "planned" but apply returned string "not planned" (a bug in the provider)', attribute: { steps: [{ attribute_name: "text" }] } },
    ]);
  });

  it("imports a resource by id, and refuses an id that names nothing", async () => {
    const answer = await plugin.call<Answer & { imported_resources: Array<{ type_name: string; state: DynamicValue }> }>("ImportResourceState", { type_name: "toy_kitchen", id: "abc" });
    expect(answer.diagnostics).toEqual([]);
    expect(answer.imported_resources).toHaveLength(1);
    expect(answer.imported_resources[0]!.type_name).toBe("toy_kitchen");
    expect(answer.imported_resources[0]!.state!.msgpack.toString("hex")).toBe(kitchen({ id: str("abc"), text: str("imported abc"), derived: str("derived") }).toString("hex"));

    const missing = await plugin.call<Answer & { imported_resources: unknown[] }>("ImportResourceState", { type_name: "toy_kitchen", id: "missing" });
    expect(missing.imported_resources).toEqual([]);
    expect(missing.diagnostics).toMatchObject([{ severity: "ERROR", detail: 'no toy_kitchen has the import id "missing"' }]);
  });

  it("upgrades version 0 state from JSON through the resource's upgradeState, dropping attributes the schema no longer has", async () => {
    const json = JSON.stringify({ id: "item-old", name: "old", content: "kept", tags: { a: "b" }, size: 2, revision: 7, protected: null, rule: [{ port: 22, note: "ssh" }], obsolete: 5 });
    const answer = await plugin.call<Answer & { upgraded_state: DynamicValue }>("UpgradeResourceState", { type_name: "toy_item", version: 0, raw_state: { json: Buffer.from(json) } });
    expect(answer.diagnostics).toEqual([]);
    expect(decodeMsgpack(answer.upgraded_state!.msgpack, item)).toEqual(object({ id: "item-old", name: "old", value: "kept", tags: { a: "b" }, size: 2, revision: 7, rule: [{ port: 22, note: "ssh" }] }));
  });

  it("reads current-version state from JSON as it is", async () => {
    const json = JSON.stringify(object({ id: "item-now", name: "now", labels: ["p", "q"], size: 1.5, revision: 1 }));
    const answer = await plugin.call<Answer & { upgraded_state: DynamicValue }>("UpgradeResourceState", { type_name: "toy_item", version: 1, raw_state: { json: Buffer.from(json) } });
    expect(answer.diagnostics).toEqual([]);
    expect(decodeMsgpack(answer.upgraded_state!.msgpack, item)).toEqual(object({ id: "item-now", name: "now", labels: ["p", "q"], size: 1.5, revision: 1 }));
  });

  it("refuses state from a newer schema version", async () => {
    const answer = await plugin.call<Answer>("UpgradeResourceState", { type_name: "toy_item", version: 9, raw_state: { json: Buffer.from("{}") } });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", detail: "state version 9 is newer than the resource's schema version 1: expected a provider at least as new as the one that wrote the state" }]);
  });

  it("refuses an unknown resource type, naming the known ones", async () => {
    const answer = await plugin.call<Answer>("ValidateResourceConfig", { type_name: "toy_nothing", config: { msgpack: hex(NIL) } });
    expect(answer.diagnostics).toMatchObject([{ severity: "ERROR", summary: "unknown resource type toy_nothing", detail: 'this provider has no resource "toy_nothing": expected one of toy_item, toy_kitchen' }]);
  });

  it("reads a data source, and answers a thrown DiagnosticsError with its path", async () => {
    writeFileSync(store, JSON.stringify({ "item-zeta": { value: "found" } }));
    const type = impliedType({ attributes: { name: { type: types.string, required: true }, value: { type: types.string, computed: true } } });
    const found = await plugin.call<Answer & { state: DynamicValue }>("ReadDataSource", { type_name: "toy_lookup", config: { msgpack: encodeMsgpack({ name: "zeta", value: null }, type) } });
    expect(found.diagnostics).toEqual([]);
    expect(decodeMsgpack(found.state!.msgpack, type)).toEqual({ name: "zeta", value: "found" });
    const missing = await plugin.call<Answer>("ReadDataSource", { type_name: "toy_lookup", config: { msgpack: encodeMsgpack({ name: "nope", value: null }, type) } });
    expect(missing.diagnostics).toMatchObject([{ severity: "ERROR", summary: "no such item", attribute: { steps: [{ attribute_name: "name" }] } }]);
  });

  it("answers StopProvider and GetFunctions with their empty answers", async () => {
    await expect(plugin.call("GetFunctions", {})).resolves.toMatchObject({ functions: {}, diagnostics: [] });
    await expect(plugin.call("StopProvider", {})).resolves.toMatchObject({ Error: "" });
  });
});

describe("shutdown", () => {
  it("ends the process when terraform calls GRPCController/Shutdown, having written hclog JSON lines to stderr", async () => {
    const own = await startPlugin();
    await own.call("Shutdown", {}, "GRPCController");
    await expect(own.exited).resolves.toBe(0);
    const lines = own.stderr().trim().split("\n").map((line) => JSON.parse(line) as Record<string, string>);
    expect(lines.map((line) => line["@message"])).toContain("terraform asked the plugin to shut down");
    for (const line of lines) expect(line["@timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // its socket goes with it, and the directory made for it
    expect(existsSync(dirname((own.where as { path: string }).path))).toBe(false);
  });

  it("listens on 127.0.0.1 instead when its socket's path would not fit a socket address or the handshake line, or its directory cannot be made", async () => {
    const deep = mkdtempSync(join(tmpdir(), "converge-socket-dir-"));
    try {
      const long = join(deep, "d".repeat(100 - deep.length));
      mkdirSync(long);
      // a `|` would split the handshake line's fields
      const piped = join(deep, "a|b");
      mkdirSync(piped);
      for (const socketDirectory of [long, join(deep, "missing", "directory"), piped]) {
        const own = await startPlugin({ PLUGIN_UNIX_SOCKET_DIR: socketDirectory });
        try {
          expect(own.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|/);
          await expect(own.call("GetMetadata", {})).resolves.toBeDefined();
        } finally {
          own.kill();
          await own.exited;
        }
      }
      expect(readdirSync(long)).toEqual([]);
      expect(readdirSync(piped)).toEqual([]);
    } finally {
      rmSync(deep, { recursive: true, force: true });
    }
  });

  it("removes its socket's directory when it is terminated (SIGTERM), and makes it where PLUGIN_UNIX_SOCKET_DIR says", async () => {
    const socketDirectory = mkdtempSync(join(tmpdir(), "converge-socket-dir-"));
    try {
      const own = await startPlugin({ PLUGIN_UNIX_SOCKET_DIR: socketDirectory });
      const path = (own.where as { path: string }).path;
      expect(dirname(dirname(path))).toBe(socketDirectory);
      await expect(own.call("GetMetadata", {})).resolves.toBeDefined();
      own.child.kill("SIGTERM");
      await own.exited;
      expect(readdirSync(socketDirectory)).toEqual([]);
    } finally {
      rmSync(socketDirectory, { recursive: true, force: true });
    }
  });

  it("holds go-plugin's stdio stream open, silent, after the client's request, and ends it with status OK at Shutdown", async () => {
    const own = await startPlugin();
    const stream = own.client("GRPCStdio").makeServerStreamRequest("/plugin.GRPCStdio/StreamStdio", () => Buffer.alloc(0), (bytes: Buffer) => bytes, {});
    const events: string[] = [];
    stream.on("data", () => events.push("data"));
    const ended = new Promise<number>((resolveStatus) => stream.on("status", (status: { code: number }) => (events.push("status"), resolveStatus(status.code))));
    await new Promise((resolveWait) => setTimeout(resolveWait, 300));
    expect(events).toEqual([]);
    await own.call("Shutdown", {}, "GRPCController");
    await expect(ended).resolves.toBe(0);
    expect(events).toEqual(["status"]);
    await expect(own.exited).resolves.toBe(0);
  });

  it("exits when terraform goes away without calling Shutdown (its parent dies)", async () => {
    const certificate = selfSignedCertificate().certificatePem;
    // a shell stands in for terraform: it starts the plugin, prints the plugin's pid and is then killed
    const parent = spawn("/bin/sh", ["-c", `"${process.execPath}" "${TOY_PROVIDER}" > /dev/null & echo $!; wait`], {
      env: { PATH: process.env["PATH"] ?? "", ...MAGIC_COOKIE, PLUGIN_PROTOCOL_VERSIONS: "6", PLUGIN_CLIENT_CERT: certificate },
      stdio: ["ignore", "pipe", "ignore"],
    });
    const [chunk] = (await once(parent.stdout!, "data")) as [Buffer];
    const pid = Number(chunk.toString().trim());
    /** Running, not gone and not a zombie waiting to be reaped. */
    const alive = () => {
      try {
        return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw error;
      }
    };
    await new Promise((resolveWait) => setTimeout(resolveWait, 500));
    expect(alive()).toBe(true);
    parent.kill("SIGKILL");
    const deadline = Date.now() + 5_000;
    while (alive() && Date.now() < deadline) await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    expect(alive()).toBe(false);
  });
});
