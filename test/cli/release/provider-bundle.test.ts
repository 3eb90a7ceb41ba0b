import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleProvider } from "../../../src/cli/release/provider-bundle.js";
import { PACKAGE_ROOT } from "./release-fixture.js";

/**
 * The bundle a single executable is made of holds every module it loads: a load the bundler cannot
 * follow (a UMD factory's `require` parameter, `require(expression)`) or of a package it did not
 * take in fails the build, naming the file, instead of failing in the executable at a user's.
 */

let root: string;

/** Writes `files` (path relative to the package root → text) under a new package root and returns it. */
function plantPackage(name: string, files: Readonly<Record<string, string>>): string {
  const packageRoot = join(root, name);
  for (const [path, text] of Object.entries({ "package.json": `{"name": "${name}", "type": "module"}`, ...files })) {
    mkdirSync(dirname(join(packageRoot, path)), { recursive: true });
    writeFileSync(join(packageRoot, path), text);
  }
  return packageRoot;
}

async function bundle(packageRoot: string) {
  return bundleProvider({ entry: join(packageRoot, "main.js"), packageRoot, outFile: join(packageRoot, "out", "bundle.cjs"), dataDirectory: join(packageRoot, "data") });
}

/** A package in node_modules whose `main` is a UMD module that requires its own files through its factory's parameter, as jsonc-parser's does. */
const UMD_PACKAGE = {
  "node_modules/umd-lib/package.json": '{"name": "umd-lib", "main": "./lib/umd/main.js"}',
  "node_modules/umd-lib/lib/umd/main.js": `(function (factory) {
  if (typeof module === "object" && typeof module.exports === "object") { var v = factory(require, exports); if (v !== undefined) module.exports = v; }
})(function (require, exports) { "use strict"; var impl = require("./impl/answer"); exports.answer = impl.answer; });
`,
  "node_modules/umd-lib/lib/umd/impl/answer.js": "exports.answer = 42;\n",
  "data/.keep.json": "{}",
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "converge-bundle-"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("bundleProvider refuses a bundle that would load at run time what it does not hold", () => {
  it("refuses a UMD module whose factory requires its own files (jsonc-parser's shape), naming the file", async () => {
    const packageRoot = plantPackage("planted-umd", { ...UMD_PACKAGE, "main.js": 'import { createRequire } from "node:module";\nconsole.log(createRequire(import.meta.url)("umd-lib").answer);\n' });
    await expect(bundle(packageRoot)).rejects.toThrow(/node_modules\/umd-lib\/lib\/umd\/main\.js:\d+:\d+: Indirect calls to "require" will not be bundled/);
  });

  it("refuses require of an expression, naming the file", async () => {
    const packageRoot = plantPackage("planted-expression", { "main.js": 'import { createRequire } from "node:module";\nconst which = process.argv[2] ?? "./a.js";\nconsole.log(createRequire(import.meta.url)(which));\n', "a.js": "export const a = 1;\n", "data/.keep.json": "{}" });
    await expect(bundle(packageRoot)).rejects.toThrow(/main\.js:3:\d+: .*require/);
  });

  it("refuses a load of a package the bundle leaves to the runtime without being told to (esbuild, the build's own tool)", async () => {
    const packageRoot = plantPackage("planted-external", { "main.js": 'void import("esbuild").then((esbuild) => console.log(esbuild.version));\n', "data/.keep.json": "{}" });
    await expect(bundle(packageRoot)).rejects.toThrow(/would load at run time what it does not hold: main\.js loads "esbuild" \(dynamic-import\)/);
  });

  it("bundles the same package once its entry is the ES module build the bundler follows (module before main)", async () => {
    const packageRoot = plantPackage("esm-first", {
      ...UMD_PACKAGE,
      "node_modules/umd-lib/package.json": '{"name": "umd-lib", "main": "./lib/umd/main.js", "module": "./lib/esm/main.js"}',
      "node_modules/umd-lib/lib/esm/main.js": 'export { answer } from "./impl/answer.js";\n',
      "node_modules/umd-lib/lib/esm/impl/answer.js": "export const answer = 42;\n",
      "main.js": 'import { createRequire } from "node:module";\nconsole.log(createRequire(import.meta.url)("umd-lib").answer);\n',
    });
    const made = await bundle(packageRoot);
    const text = readFileSync(made.file, "utf8");
    expect(text).not.toContain("./impl/answer");
    expect(text).toContain("42");
  });

  it("takes jsonc-parser's ES module build into the CLI's bundle: no require of ./impl/… is left", async () => {
    const packageRoot = plantPackage("uses-jsonc", { "main.js": 'import { createRequire } from "node:module";\nconst { parseTree } = createRequire(import.meta.url)("jsonc-parser");\nconsole.log(parseTree("[1]").children.length);\n', "data/.keep.json": "{}" });
    // the checkout's jsonc-parser, as the CLI's bundle takes it
    mkdirSync(join(packageRoot, "node_modules"));
    symlinkSync(join(PACKAGE_ROOT, "node_modules", "jsonc-parser"), join(packageRoot, "node_modules", "jsonc-parser"));
    const made = await bundle(packageRoot);
    expect(readFileSync(made.file, "utf8")).not.toMatch(/\.\/impl\/(format|edit|scanner|parser)/);
  });
});

describe("a bundle's quick answers (converge --version)", () => {
  /** Runs the bundle on Node.js with `args`: its stdout and exit code. */
  const run = (file: string, args: ReadonlyArray<string>) => {
    const result = spawnSync(process.execPath, [file, ...args], { encoding: "utf8" });
    return { stdout: result.stdout, stderr: result.stderr, status: result.status };
  };

  it("prints the line for exactly the arguments it names, and nothing of the bundle runs then", async () => {
    // the entry says it ran, and so does a module it imports at its top level
    const packageRoot = plantPackage("quick", {
      "main.js": 'import "./loaded.js";\nconsole.log("body ran with", JSON.stringify(process.argv.slice(2)));\n',
      "loaded.js": 'console.log("module defined");\n',
      "data/.keep.json": "{}",
    });
    const made = await bundleProvider({
      entry: join(packageRoot, "main.js"),
      packageRoot,
      outFile: join(packageRoot, "out", "bundle.cjs"),
      dataDirectory: join(packageRoot, "data"),
      quickAnswers: [{ args: ["--version"], line: "1.2.3" }, { args: ["-V"], line: "1.2.3" }],
    });
    expect(run(made.file, ["--version"])).toEqual({ stdout: "1.2.3\n", stderr: "", status: 0 });
    expect(run(made.file, ["-V"])).toEqual({ stdout: "1.2.3\n", stderr: "", status: 0 });
    // any other arguments, the flag among them included, are the program's
    expect(run(made.file, ["--version", "plan"]).stdout).toBe('module defined\nbody ran with ["--version","plan"]\n');
    expect(run(made.file, []).stdout).toBe("module defined\nbody ran with []\n");
    expect(run(made.file, ["--Version"]).stdout).toBe('module defined\nbody ran with ["--Version"]\n');
  });

  it("leaves a bundle without quick answers as it was: no test of the arguments in front of it", async () => {
    const packageRoot = plantPackage("no-quick", { "main.js": 'console.log("body ran");\n', "data/.keep.json": "{}" });
    const made = await bundle(packageRoot);
    expect(readFileSync(made.file, "utf8")).not.toContain("__convergeAnswer");
    expect(run(made.file, ["--version"]).stdout).toBe("body ran\n");
  });
});
