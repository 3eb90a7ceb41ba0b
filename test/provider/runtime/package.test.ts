import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startPlugin } from "./plugin-process.js";

/**
 * The runtime from an `npm pack`ed copy of the package: the protocol files the build writes next to
 * the compiled runtime must be in the package and found from there.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const directory = mkdtempSync(join(tmpdir(), "provider-runtime-pack-"));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("the packed package", { timeout: 60_000 }, () => {
  it("serves a provider whose runtime and protocol files come from the package", async () => {
    const [packed] = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", directory], { cwd: ROOT, encoding: "utf8" })) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed!.files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(["dist/src/provider/runtime/proto/protocol.json", "dist/src/provider/runtime/proto/services.json", "dist/src/provider/runtime/proto/tfplugin6.proto", "dist/src/provider/runtime/proto/grpc_controller.proto", "dist/src/provider/runtime/serve.js"]));
    execFileSync("tar", ["-xzf", join(directory, packed!.filename), "-C", directory]);
    symlinkSync(join(ROOT, "node_modules"), join(directory, "package/node_modules"));
    const executable = join(directory, "packed-provider.mjs");
    writeFileSync(
      executable,
      `import { serveProvider } from "./package/dist/src/provider/runtime/serve.js";
await serveProvider(async () => {
  const { defineSchema, types } = await import("./package/dist/src/provider/runtime/index.js");
  const schema = defineSchema({ attributes: { id: { type: types.string, computed: true } } });
  return { name: "packed", schema: defineSchema({ attributes: {} }), configure: () => ({}), resources: { packed_thing: { schema, read: async ({ state }) => state, create: async () => ({ id: "1" }), update: async ({ planned }) => planned, delete: async () => {} } }, dataSources: {} };
});
`,
    );
    expect(readdirSync(join(directory, "package/dist/src/provider/runtime/proto")).sort()).toEqual(["README.md", "grpc_broker.proto", "grpc_controller.proto", "grpc_stdio.proto", "protocol.json", "services.json", "tfplugin6.proto"]);

    const plugin = await startPlugin({}, executable);
    try {
      const schema = await plugin.call<{ resource_schemas: Record<string, { block: { attributes: Array<{ name: string; type: Buffer }> } }> }>("GetProviderSchema", {});
      expect(schema.resource_schemas["packed_thing"]!.block.attributes.map((attribute) => [attribute.name, attribute.type.toString()])).toEqual([["id", '"string"']]);
      await plugin.call("Shutdown", {}, "GRPCController");
      await expect(plugin.exited).resolves.toBe(0);
    } finally {
      plugin.kill();
    }
  });
});
