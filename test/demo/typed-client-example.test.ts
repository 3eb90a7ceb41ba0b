import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runProcess } from "../support/run-process.js";

/**
 * examples/typed-client runs as written: it imports `converge/service` and `converge/clients` by
 * the package's own name (the export map of package.json, over the compiled dist/), starts the
 * embedded services in its process and uses both typed clients.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("examples/typed-client", () => {
  it("runs against the embedded services through the package's exports and prints what each call answered", async () => {
    const result = await runProcess(process.execPath, ["examples/typed-client/main.mjs"], { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, timeoutMs: 30_000 });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^created GET \/items -> integrations\/[a-z0-9]+ \(authorizationType NONE, a server default\)$/);
    expect(lines.slice(1, 3)).toEqual(["routes of inventory: GET /items", "a deleted route reads as: undefined"]);
    expect(lines[3]).toMatch(/^refused \(CONVERGE_API_ERROR, BadRequestException\): .*routeKey "get \/items" is not valid for an HTTP API/);
    expect(lines[4]).toBe("security contact: sec@example.com");
    expect(lines[5]).toMatch(/^enabled Regions: \d+$/);
    expect(lines).toHaveLength(6);
  });
});
