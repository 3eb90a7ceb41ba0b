import { describe, expect, it } from "vitest";
import { convergeValidation } from "../../dist/src/provider/converge-validation.js";
import { readProviderSchemas } from "../../dist/src/provider/provider-schemas.js";
import { schemasFirstProvider } from "../../dist/src/provider/runtime/schemas-first-provider.js";
import { warmUp } from "../../dist/src/provider/runtime/warm-up.js";
import { WARM_ANSWERS, WARM_CALLS, warmUpAnswers, warmUpValidation } from "../../dist/src/provider/snapshot-warm-up.js";

/**
 * The release's startup snapshot is taken after validation ran once per type (src/provider/main.ts):
 * the calls must be valid configuration of every type, answered by the provider's own validation,
 * or the snapshot would hold the paths of errors, or none for a type added later. (The built modules:
 * the protocol's codecs and the schemas' file are the build's.)
 */
const schemas = readProviderSchemas();
const validationOnly = () => schemasFirstProvider(schemas, () => Promise.reject(new Error("the definition must not load")), () => Promise.resolve(convergeValidation));

describe("the startup snapshot's warm-up", () => {
  it("answers each of its calls without a diagnostic, loading no more than validation", async () => {
    await expect(warmUpValidation()).resolves.toBeUndefined();
  });

  it("validates the provider and every resource and data source type", () => {
    const warmed = (rpc: string) => new Set(WARM_CALLS.filter((call) => call.rpc === rpc).map((call) => call.typeName));
    expect(warmed("ValidateProviderConfig")).toEqual(new Set([schemas.name]));
    expect(warmed("ValidateResourceConfig")).toEqual(new Set(Object.keys(schemas.resources)));
    expect(warmed("ValidateDataResourceConfig")).toEqual(new Set(Object.keys(schemas.dataSources)));
  });

  it("fails, naming the call and the diagnostic, on configuration that is not valid", async () => {
    await expect(warmUp(validationOnly(), [{ rpc: "ValidateResourceConfig", typeName: "converge_region_opt_in", config: { region_name: "", enabled: true } }])).rejects.toThrow(
      /^warm-up ValidateResourceConfig of converge_region_opt_in was answered with diagnostics \(its configuration must be valid\): .+/,
    );
  });

  it("fails on a type the provider does not have", async () => {
    await expect(warmUp(validationOnly(), [{ rpc: "ValidateDataResourceConfig", typeName: "converge_nothing", config: {} }])).rejects.toThrow(
      "warm-up ValidateDataResourceConfig: the provider has no converge_nothing",
    );
  });

  it("parses an answer of each read a configured provider makes with the clients' schema of its operation", () => {
    expect(WARM_ANSWERS.map((answer) => answer.operation).sort()).toEqual(["GetAlternateContact", "GetApis", "GetIntegrations", "GetRegionOptStatus", "GetRoutes", "ListRegions"]);
    expect(() => warmUpAnswers()).not.toThrow();
  });

  it("fails, naming the operation, on an answer its schema refuses", () => {
    const routes = WARM_ANSWERS.find((answer) => answer.operation === "GetRoutes")!;
    expect(() => warmUpAnswers([{ ...routes, answer: { items: [{ routeKey: "GET /x" }] } }])).toThrow(
      "warm-up answer of GetRoutes does not parse as the clients parse its answers: expected a valid answer",
    );
  });
});
