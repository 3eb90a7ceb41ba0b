import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { demoCommand } from "../../src/cli/commands/demo-command.js";
import { DEMO_WORLD } from "../../src/service/index.js";
import { describeCliResult, runCli } from "../support/cli.js";
import { TempDirs, writeFiles } from "../e2e/e2e-fixture.js";

/**
 * `npm start` is a newcomer's first run: `converge demo` boots the embedded services in its own
 * process with the demo world, converges examples/desired-state, changes two things behind
 * converge's back, detects the drift, repairs it and ends clean, in well under 30 seconds.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The functional requirement, measured from process start to exit (it takes about 2 s). */
const FIRST_RUN_BUDGET_MS = 30_000;

const dirs = new TempDirs();
afterAll(async () => {
  await dirs.cleanup();
});

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = "";
  stream.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  return { stream, text: () => text };
}

describe("npm start", () => {
  it("runs converge demo", async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts.start).toBe("node dist/src/cli/main.js demo");
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    expect(readme.split("```")[1]).toBe("sh\nnpm ci && npm start\nnpm test\n");
  });
});

describe.concurrent("converge demo", { timeout: 60_000 }, () => {
  it("boots its own service, converges, detects the drift made behind its back, repairs it and ends clean, in under 30 s", async () => {
    const started = performance.now();
    // two at once: each boots its own service on a free port, so neither needs 4566
    const [result, twin] = await Promise.all([runCli(["demo"], { cwd: ROOT }), runCli(["demo"], { cwd: ROOT })]);
    const elapsedMs = performance.now() - started;
    expect(result.code, describeCliResult(result)).toBe(0);
    expect(twin.code, describeCliResult(twin)).toBe(0);
    expect(result.stderr).toBe("");
    expect(elapsedMs, `two demos side by side took ${Math.round(elapsedMs)} ms`).toBeLessThan(FIRST_RUN_BUDGET_MS);

    const out = result.stdout;
    const steps = out.split("\n").filter((line) => /^\[\d\/7\]/.test(line)).map((line) => line.slice(0, 5));
    expect(steps).toEqual(["[1/7]", "[2/7]", "[3/7]", "[4/7]", "[5/7]", "[6/7]", "[7/7]"]);
    const url = /with the demo world on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
    expect(url, out).not.toBeNull();
    expect(Number(url![2])).not.toBe(4566);
    expect(twin.stdout).not.toContain(url![1]);

    expect(out).toContain("Planned examples/desired-state (23 documents) against it:");
    expect(out).toContain("Plan: 15 to create, 3 to update, 0 to delete, 0 refused, 3 unchanged.");
    expect(out).toContain('the SECURITY contact of account 222222222222: phoneNumber "+1 555 0110" -> "+1 555 0199"');
    expect(out).toContain("Drift detected (converge drift would exit 2): 2 resources no longer match examples/desired-state:");
    expect(out).toContain('~ AlternateContact/222222222222/SECURITY: phoneNumber is "+1 555 0199", desired "+1 555 0110"');
    expect(out).toContain('~ Route/a1b2c3d4e5/GET /orders: authorizationScopes is ["orders.read","orders.admin"], desired ["orders.read"]');
    expect(out).toContain("Repaired the drift by applying again: 2 updates");
    expect(out).toContain("Drift check: no drift, live state matches examples/desired-state");
    const done = /Done in (\d+\.\d) s\./.exec(out);
    expect(Number(done?.[1])).toBeLessThan(FIRST_RUN_BUDGET_MS / 1000);
  });

  it("narrates the same steps in process, with the drift check reading exactly the two changed resources", async () => {
    const { stream, text } = collect();
    expect(await demoCommand({ out: stream, world: { ...DEMO_WORLD, regionTransitionMs: 50 } })).toBe(0);
    const drifted = text().split("\n").filter((line) => line.startsWith("      ~ "));
    expect(drifted).toHaveLength(2);
    expect(text()).toMatch(/\[7\/7\] Drift check: no drift, live state matches .*examples\/desired-state \(23 resources in sync\)\./);
  });

  it("refuses to go on when the desired state lacks what it changes behind converge's back", async () => {
    const dir = await dirs.make("demo");
    await writeFiles(dir, { "regions.yaml": "kind: RegionOptIn\nspec: {region: eu-south-1, enabled: true}\n" });
    const { stream, text } = collect();
    await expect(demoCommand({ out: stream, desiredState: dir, world: { ...DEMO_WORLD, regionTransitionMs: 50 } }))
      .rejects.toThrow("the SECURITY contact of 222222222222 is missing after apply");
    expect(text()).toContain("[3/7] Applied it");
    expect(text()).not.toContain("[4/7]");
  });
});
