import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_TIMEOUT_MS, testRelease } from "./release-fixture.js";

/**
 * The release lays each executable's bytecode out by an order recorded from runs of its own
 * (src/cli/release/bytecode-order.ts): the orders are in the release's build directory, sorted,
 * and cover the code that runs at start (the reproducible-release test checks they are the same
 * from build to build).
 */
describe("the release's bytecode orders", () => {
  it.each([["terraform-provider-converge.order"], ["converge.order"]])("records %s: Bun's header, then entries sorted and unique", async (file) => {
    const release = await testRelease();
    const [header, ...entries] = readFileSync(join(release.outDir, "build", file), "utf8").trimEnd().split("\n");
    expect(header).toMatch(/^v\d+$/);
    expect(entries.length).toBeGreaterThan(1_000);
    expect(entries).toEqual([...new Set(entries)].sort());
    for (const entry of entries) expect(entry).toMatch(/^[A-Z] [0-9a-f]{16}$/);
  }, PACKAGE_TIMEOUT_MS);
});
