import { describe, expect, it } from "vitest";
import { schemasFirstProvider, schemasOf } from "../../../src/provider/runtime/schemas-first-provider.js";
import type { ServedProvider } from "../../../src/provider/runtime/index.js";
import { types } from "../../../src/provider/runtime/index.js";

/** A provider answered from its schemas until a call needs its code, which then loads once. */
const calls: string[] = [];
const schema = { attributes: { name: { type: types.string, required: true } } };
const real: ServedProvider<string> = {
  name: "toy",
  schema: { attributes: { endpoint: { type: types.string, optional: true } } },
  configure: () => "configured",
  resources: {
    toy_thing: {
      schema,
      validate: () => void calls.push("validate"),
      read: async () => (calls.push("read"), { name: "read" }),
      create: async () => (calls.push("create"), { name: "created" }),
      update: async () => ({ name: "updated" }),
      delete: async () => void calls.push("delete"),
    },
  },
  dataSources: { toy_data: { schema, read: async () => ({ name: "data" }) } },
};

describe("a deferred provider", () => {
  it("answers with the schemas and loads nothing until a call needs more, then loads once and passes every call on", async () => {
    let loads = 0;
    const deferred = schemasFirstProvider(JSON.parse(JSON.stringify(schemasOf(real))), async () => {
      loads += 1;
      return real;
    });
    expect(schemasOf(deferred)).toEqual(schemasOf(real));
    expect(loads).toBe(0);
    await deferred.resources.toy_thing!.validate!({} as never);
    expect(await deferred.resources.toy_thing!.create({} as never)).toEqual({ name: "created" });
    expect(await deferred.dataSources.toy_data!.read({} as never)).toEqual({ name: "data" });
    expect(await deferred.configure({} as never)).toBe("configured");
    expect(loads).toBe(1);
    expect(calls).toEqual(["validate", "create"]);
  });

  it("validates with what its validation loads, and never loads the definition for it", async () => {
    const validated: string[] = [];
    let loads = 0;
    const deferred = schemasFirstProvider(
      schemasOf(real),
      async () => {
        loads += 1;
        return real;
      },
      async () => ({
        validate: () => void validated.push("provider"),
        resources: { toy_thing: { validate: () => [{ severity: "error" as const, summary: "from the validation" }] } },
        dataSources: { toy_data: { validate: () => void validated.push("toy_data") } },
      }),
    );
    expect(await deferred.resources.toy_thing!.validate!({} as never)).toEqual([{ severity: "error", summary: "from the validation" }]);
    await deferred.dataSources.toy_data!.validate!({} as never);
    await deferred.validate!({} as never);
    expect(validated).toEqual(["toy_data", "provider"]);
    expect(loads).toBe(0);
    expect(await deferred.resources.toy_thing!.read({} as never)).toEqual({ name: "read" });
    expect(loads).toBe(1);
  });

  it("refuses an import of a resource whose definition has none, naming it", async () => {
    const deferred = schemasFirstProvider(schemasOf(real), async () => real);
    await expect(deferred.resources.toy_thing!.importState!({} as never)).rejects.toThrow("toy_thing cannot be imported");
  });
});
