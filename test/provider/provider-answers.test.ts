import { describe, expect, it } from "vitest";
import { readProviderAnswers } from "../../dist/src/provider/provider-answers.js";
import { readProviderSchemas } from "../../dist/src/provider/provider-schemas.js";
import { constantAnswers } from "../../dist/src/provider/runtime/constant-answers.js";
import { schemasFirstProvider } from "../../dist/src/provider/runtime/schemas-first-provider.js";
import { convergeProvider } from "../../src/provider/converge-provider.js";
import { reflectedProtocol } from "./runtime/reflected-protocol.js";

/**
 * The provider answers GetProviderSchema, GetMetadata and the empty RPCs with the bytes the build
 * wrote (src/provider/main.ts): they must be what the runtime would encode from the definition as it
 * is, and what the definition main.ts serves would answer.
 */
const reflected = reflectedProtocol();
const decoded = (typeName: string, bytes: Uint8Array) => {
  const type = reflected.lookupType(typeName);
  return type.toObject(type.decode(bytes), { longs: Number, enums: String, defaults: true }) as Record<string, unknown>;
};

describe("the provider's constant answers file", () => {
  const stored = readProviderAnswers();

  it("holds exactly what the runtime encodes from the provider's definition, as the build wrote them into dist", async () => {
    const encoded = await constantAnswers(convergeProvider);
    expect(Object.keys(stored).sort()).toEqual(["GetFunctions", "GetMetadata", "GetProviderSchema", "GetResourceIdentitySchemas"]);
    for (const [name, bytes] of Object.entries(encoded)) expect(Buffer.from(stored[name as keyof typeof encoded]!).toString("hex"), name).toBe(Buffer.from(bytes).toString("hex"));
  });

  it("answers as the definition main.ts serves would, loaded from the schemas file", async () => {
    const served = await constantAnswers(schemasFirstProvider(readProviderSchemas(), () => Promise.reject(new Error("a constant answer needs no provider code"))));
    for (const [name, bytes] of Object.entries(served)) expect(Buffer.from(stored[name as keyof typeof served]!).toString("hex"), name).toBe(Buffer.from(bytes).toString("hex"));
  });

  it("decodes, read with the .proto text, to the provider's schemas and type names", () => {
    const schema = decoded("tfplugin6.GetProviderSchema.Response", stored.GetProviderSchema!);
    expect(Object.keys(schema["resource_schemas"] as object)).toEqual(["converge_alternate_contact", "converge_region_opt_in", "converge_integration", "converge_route"]);
    expect(Object.keys(schema["data_source_schemas"] as object)).toEqual(["converge_api", "converge_regions"]);
    expect(schema["diagnostics"]).toEqual([]);
    const attributes = (schema["provider"] as { block: { attributes: Array<{ name: string; sensitive: boolean; type: Buffer }> } }).block.attributes;
    expect(attributes.find((attribute) => attribute.name === "token")).toMatchObject({ sensitive: true, type: Buffer.from('"string"') });
    const metadata = decoded("tfplugin6.GetMetadata.Response", stored.GetMetadata!);
    expect(metadata["server_capabilities"]).toEqual({ plan_destroy: true, get_provider_schema_optional: true, move_resource_state: true, generate_resource_config: false });
    expect(metadata["resources"]).toEqual(["converge_alternate_contact", "converge_region_opt_in", "converge_integration", "converge_route"].map((type_name) => ({ type_name })));
  });
});
