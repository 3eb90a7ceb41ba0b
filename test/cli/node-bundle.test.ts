import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../support/converge-command.js";
import { runProcess } from "../support/run-process.js";

/**
 * converge on Node.js runs its program as the build bundled it (src/cli/release/node-bundle.ts,
 * dist/src/cli/node-bundle/), and its compiled modules when the bundle is missing or older than the
 * last compilation (`tsc --watch` while developing): src/cli/main.ts. Each case runs a copy of the
 * build's dist/src (the package's node_modules linked beside it), so that nothing here touches the
 * build the other suites run; a loader hook of Node.js writes every module the process loads.
 */

const EXAMPLES = join(PACKAGE_ROOT, "examples", "desired-state");
let root: string;
let hook: string;

/** `node [hook] dist/src/cli/main.js validate -f examples/desired-state` in the copy: its output and the modules it loaded (file URLs). */
async function validate(): Promise<{ readonly code: number | null; readonly stdout: string; readonly loaded: ReadonlyArray<string> }> {
  const log = join(root, `loaded-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const run = await runProcess(process.execPath, ["--import", pathToFileURL(hook).href, join(root, "dist", "src", "cli", "main.js"), "validate", "-f", EXAMPLES], {
    env: { PATH: process.env.PATH ?? "", HOME: root, NO_COLOR: "1", LOADED_MODULES_LOG: log },
    timeoutMs: 60_000,
  });
  expect(run.stderr).toBe("");
  return { code: run.code, stdout: run.stdout, loaded: readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

const fromTheBundle = (url: string) => url.includes("/dist/src/cli/node-bundle/");
const compiledDesiredState = (url: string) => url.includes("/dist/src/desired/");

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "converge-node-bundle-"));
  cpSync(join(PACKAGE_ROOT, "dist", "src"), join(root, "dist", "src"), { recursive: true });
  copyFileSync(join(PACKAGE_ROOT, "package.json"), join(root, "package.json"));
  symlinkSync(join(PACKAGE_ROOT, "node_modules"), join(root, "node_modules"));
  hook = join(root, "record-loads.mjs");
  // the hooks run on a thread of their own: each load is written at once, so none is lost at the process's exit
  const hooks = `import { appendFileSync } from "node:fs";
export async function load(url, context, nextLoad) { appendFileSync(process.env.LOADED_MODULES_LOG, url + "\\n"); return nextLoad(url, context); }`;
  writeFileSync(hook, `import { register } from "node:module";\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});\n`);
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("converge on Node.js", () => {
  it("loads its program from the build's bundle, none of the compiled modules, in a package (no dist/.tsbuildinfo)", async () => {
    expect(existsSync(join(root, "dist", "src", "cli", "node-bundle", "program.js")), "the build wrote dist/src/cli/node-bundle: run npm run build").toBe(true);
    rmSync(join(root, "dist", ".tsbuildinfo"), { force: true });
    const run = await validate();
    expect(run.stdout).toBe("23 documents in 4 files valid.\n");
    expect(run.code).toBe(0);
    expect(run.loaded.filter(fromTheBundle).length).toBeGreaterThan(1);
    expect(run.loaded.filter(compiledDesiredState)).toEqual([]);
  });

  it("loads the bundle when the last compilation came before it, as `npm run build` leaves them", async () => {
    const buildInfo = join(root, "dist", ".tsbuildinfo");
    writeFileSync(buildInfo, "{}");
    const past = new Date(Date.now() - 60_000);
    utimesSync(buildInfo, past, past);
    const run = await validate();
    expect(run.loaded.filter(fromTheBundle).length).toBeGreaterThan(1);
    expect(run.loaded.filter(compiledDesiredState)).toEqual([]);
  });

  it("loads the compiled modules when a compilation came after the bundle (tsc --watch), with the same answer", async () => {
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, "dist", ".tsbuildinfo"), future, future);
    const run = await validate();
    expect(run.stdout).toBe("23 documents in 4 files valid.\n");
    expect(run.code).toBe(0);
    expect(run.loaded.filter(fromTheBundle)).toEqual([]);
    expect(run.loaded.filter(compiledDesiredState).length).toBeGreaterThan(10);
  });

  it("loads the compiled modules when there is no bundle (a build by tsc alone)", async () => {
    rmSync(join(root, "dist", ".tsbuildinfo"));
    rmSync(join(root, "dist", "src", "cli", "node-bundle"), { recursive: true });
    const run = await validate();
    expect(run.stdout).toBe("23 documents in 4 files valid.\n");
    expect(run.loaded.filter(compiledDesiredState).length).toBeGreaterThan(10);
  });
});
