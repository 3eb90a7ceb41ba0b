import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LoadCache } from "../../src/desired/load-cache.js";
import { loadDesiredState } from "../../src/desired/load.js";

const ROUTE = (key: string) => `kind: Route\napi: a1b2c3d4e5\nspec: {routeKey: "${key}"}\n`;

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "converge-load-cache-"));
  await writeFile(join(directory, "a.yaml"), ROUTE("GET /a"));
  await writeFile(join(directory, "b.yaml"), ROUTE("GET /${var.path}"));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

const variables = (path: string) => ({ given: [{ name: "path", text: path }], env: {} });

describe("a load with a cache", () => {
  it("parses only the files whose text changed, and reuses the others' documents as they were", async () => {
    const cache = new LoadCache();
    const first = await loadDesiredState([directory], { cache, variables: variables("b") });
    expect(cache).toMatchObject({ parsed: 2, reused: 0 });
    const second = await loadDesiredState([directory], { cache, variables: variables("b") });
    expect(cache).toMatchObject({ parsed: 0, reused: 2 });
    expect(second.documents[0]).toBe(first.documents[0]);
    expect(second.fingerprint).toBe(first.fingerprint);

    await writeFile(join(directory, "a.yaml"), ROUTE("GET /changed"));
    const third = await loadDesiredState([directory], { cache, variables: variables("b") });
    expect(cache).toMatchObject({ parsed: 1, reused: 1 });
    expect(third.documents.map((loaded) => (loaded.document.spec as { routeKey: string }).routeKey)).toEqual(["GET /changed", "GET /b"]);
    expect(third.fingerprint).not.toBe(first.fingerprint);
  });

  it("parses a file again when the values of the variables change", async () => {
    const cache = new LoadCache();
    await loadDesiredState([directory], { cache, variables: variables("b") });
    const changed = await loadDesiredState([directory], { cache, variables: variables("c") });
    expect(cache).toMatchObject({ parsed: 2, reused: 0 });
    expect((changed.documents[1]!.document.spec as { routeKey: string }).routeKey).toBe("GET /c");
  });

  it("keeps a file's problems with it: a broken file still fails the load when reused", async () => {
    const cache = new LoadCache();
    await writeFile(join(directory, "a.yaml"), "kind: Route\napi: a1b2c3d4e5\nspec: {routeKey: 7}\n");
    await expect(loadDesiredState([directory], { cache, variables: variables("b") })).rejects.toThrow("desired state is not valid");
    await expect(loadDesiredState([directory], { cache, variables: variables("b") })).rejects.toThrow("desired state is not valid");
    expect(cache.reused).toBe(2);
  });
});
