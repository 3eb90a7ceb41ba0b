import { readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { BuildOptions, Metafile, Plugin } from "esbuild";

import { SINGLE_EXECUTABLE_MARK } from "./single-executable.js";

/**
 * Where the bundle's modules believe they are: `import.meta.url` of a module bundled from
 * `dist/src/provider/runtime/protocol.js` is `file:///converge-sea/dist/src/provider/runtime/protocol.js`.
 * No such directory exists; the bundle answers reads of its files itself (BUNDLE_PRELUDE).
 */
const VIRTUAL_ROOT_URL = "file:///converge-sea/";

/** What `bundleProvider` wrote. */
export interface ProviderBundle {
  /** The CommonJS bundle: the provider and everything it imports, its data files inlined. */
  readonly file: string;
  readonly bytes: number;
  /** How many source files went into it. */
  readonly inputs: number;
  /** The data files inlined (relative to the package root: `dist/src/provider/provider-schemas.json`). */
  readonly dataFiles: ReadonlyArray<string>;
  /** The inputs that put the most bytes into the bundle, largest first (esbuild's metafile): what the executable carries. */
  readonly largestInputs: ReadonlyArray<{ readonly path: string; readonly bytes: number }>;
}

/** What to bundle, and where to (`bundleProvider`). */
export interface SeaBundleOptions {
  /** The compiled entry: `dist/src/provider/main.js`, `dist/src/cli/main.js`. */
  readonly entry: string;
  readonly packageRoot: string;
  readonly outFile: string;
  /** Where the JSON files to inline are found (every one under it). @default the entry's directory */
  readonly dataDirectory?: string;
  /** Files to inline beside those found under `dataDirectory`, by path relative to the package root, with their text. */
  readonly extraDataFiles?: Readonly<Record<string, string>>;
  /** Imports left out of the bundle, as written in the importing module (esbuild's `external`): modules the bundle never loads. */
  readonly leaveOut?: ReadonlyArray<string>;
  /** Lines the bundle prints for exactly these arguments before anything of its body runs (QuickAnswer). */
  readonly quickAnswers?: ReadonlyArray<QuickAnswer>;
}

/**
 * A line the bundle prints, for exactly `args` (the arguments after the program's name), before any
 * of its modules is defined or loaded: `converge --version`. The rest of the bundle then never
 * runs. What it saves in Bun's single executable (docs/manual/benchmarks.md, "converge --version"):
 * defining the bundle's modules at its top level, ~5 ms, and `process.stdout`, ~4 ms, against a
 * whole start of ~5 ms; so the line goes through `console.log`.
 */
export interface QuickAnswer {
  readonly args: ReadonlyArray<string>;
  readonly line: string;
}

/**
 * Bundles the compiled provider (`entry`, `dist/src/provider/main.js`) with esbuild into one
 * CommonJS script `outFile` that needs nothing beside it (Bun compiles it with its bytecode, which
 * takes CommonJS: bun-executable.ts). In it every module of the package and of its dependencies,
 * and the JSON files the build wrote under `dataDirectory`, the entry's directory by default (the
 * provider's schemas, its constant answers), which the modules read with `readFileSync` at paths
 * from their `import.meta.url`. Each module's `import.meta.url` becomes its path under a virtual root,
 * and the bundle's prelude answers `readFileSync` of the inlined files there (and only there).
 * `createRequire(import.meta.url)(X)` becomes `require(X)`, so that esbuild bundles X too.
 */
export async function bundleProvider(options: SeaBundleOptions): Promise<ProviderBundle> {
  const esbuild = await import("esbuild").catch((error: unknown) => {
    throw new Error(`provider package needs esbuild, a devDependency of converge: run it from a checkout after npm install (${(error as Error).message})`);
  });
  const inlined = inlinedFiles(options);
  const leftOut = options.leaveOut ?? [];
  const result = await esbuild.build(esbuildOptions(options, inlined, leftOut)).catch((error: unknown) => {
    throw new Error(`esbuild could not bundle ${options.entry}: ${describeBuildFailure(error)}`);
  });
  assertSelfContained(options.entry, result.metafile, leftOut);
  return bundleSummary(options.outFile, result.metafile, inlined);
}

/** The files the bundle answers reads of, by path relative to the package root, with their text: the JSON files under `dataDirectory`, and `extraDataFiles`. */
function inlinedFiles(options: SeaBundleOptions): Record<string, string> {
  const { packageRoot } = options;
  const dataFiles = jsonFilesUnder(options.dataDirectory ?? dirname(options.entry)).map((file) => relative(packageRoot, file).split(sep).join("/"));
  return { ...Object.fromEntries(dataFiles.map((file) => [file, readFileSync(join(packageRoot, file), "utf8")])), ...options.extraDataFiles };
}

/** esbuild's options for the bundle: one self-contained, minified CommonJS script for Node.js 20, with its prelude and its metafile. */
function esbuildOptions(options: SeaBundleOptions, inlined: Readonly<Record<string, string>>, leftOut: ReadonlyArray<string>): BuildOptions & { readonly metafile: true } {
  return {
    entryPoints: [options.entry],
    outfile: options.outFile,
    // the paths of messages and of the metafile, relative to the package, wherever the build runs
    absWorkingDir: resolve(options.packageRoot),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: true,
    legalComments: "none",
    // esbuild is the release build's own tool, never bundled: a module of the bundle that loads it is
    // reported by assertSelfContained
    external: ["esbuild", ...leftOut],
    // a package's ES module build before its `main`: its imports are static, and the bundler
    // follows them; a UMD `main` (jsonc-parser's) requires its own files through its factory's
    // parameter, which no bundler sees, and the executable would ask the runtime for them
    mainFields: ["module", "main"],
    // a require the bundler cannot follow is an error, not a warning: the single executable holds
    // no file beside the bundle, so it would fail there, at a user's, on the first call that needs it
    logOverride: Object.fromEntries(UNFOLLOWED_LOADS.map((id) => [id, "error"])),
    metafile: true,
    logLevel: "silent",
    ...bundleFrame(bundlePrelude(inlined), options.quickAnswers ?? []),
    // what the bundle is made for: the program a single executable runs (isSingleExecutable)
    define: { [SINGLE_EXECUTABLE_MARK]: "true" },
    plugins: [virtualFilesPlugin(options.packageRoot)],
  };
}

/**
 * The plugin that gives each module that asks its `import.meta.url` (and `dirname`, `filename`) its
 * path under the virtual root (a module outside the package under `external/`), and turns
 * `createRequire(import.meta.url)(X)` into `require(X)`.
 */
function virtualFilesPlugin(packageRoot: string): Plugin {
  const virtualUrl = (file: string) => {
    const path = relative(packageRoot, file).split(sep).join("/");
    return new URL(path.startsWith("..") ? `external/${path.replace(/^(\.\.\/)+/, "")}` : path, VIRTUAL_ROOT_URL).href;
  };
  return {
    name: "converge-virtual-files",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        if (!text.includes("import.meta")) return undefined;
        const url = virtualUrl(args.path);
        return {
          loader: "js",
          contents: text
            .replace(/createRequire\(import\.meta\.url\)\(/g, "require(")
            .replaceAll("import.meta.url", JSON.stringify(url))
            .replaceAll("import.meta.dirname", `__convergeDirname(${JSON.stringify(url)})`)
            .replaceAll("import.meta.filename", `__convergeFilename(${JSON.stringify(url)})`),
        };
      });
    },
  };
}

/** What the bundle holds, from esbuild's metafile: its size, how many inputs, the files inlined and the 15 largest inputs. */
function bundleSummary(file: string, metafile: Metafile, inlined: Readonly<Record<string, string>>): ProviderBundle {
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  const output = Object.values(metafile.outputs)[0];
  const largestInputs = Object.entries(output?.inputs ?? {})
    .map(([path, input]) => ({ path, bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1))
    .slice(0, 15);
  return { file, bytes, inputs: Object.keys(metafile.inputs).length, dataFiles: Object.keys(inlined).sort(), largestInputs };
}

/**
 * esbuild's messages for a load it leaves to the runtime: `require` passed around as a value (a UMD
 * factory's parameter), `require(expression)`, `import(expression)`.
 */
const UNFOLLOWED_LOADS = ["indirect-require", "unsupported-require-call", "unsupported-dynamic-import"];

/** esbuild's failure as one line per problem: `file:line:column: text`. */
function describeBuildFailure(error: unknown): string {
  const problems = (error as { errors?: ReadonlyArray<import("esbuild").Message> }).errors;
  if (!Array.isArray(problems) || problems.length === 0) return error instanceof Error ? error.message : String(error);
  return problems.map((problem) => (problem.location ? `${problem.location.file}:${problem.location.line}:${problem.location.column}: ${problem.text}` : problem.text)).join("; ");
}

/**
 * Throws unless every module the bundle of `entry` still loads at run time is one of the runtime's
 * own (`node:fs`, `path`: isRuntimeModule) or one left out on purpose (`leftOut`): a `require` of a relative path or
 * of a package the bundle does not hold would fail in the single executable, where no file is
 * beside it.
 */
export function assertSelfContained(entry: string, metafile: import("esbuild").Metafile, leftOut: ReadonlyArray<string>): void {
  const strays = new Set<string>();
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    for (const load of imports) {
      // "<runtime>" is esbuild's own helpers (with keepNames, say), which it writes into the bundle
      if (load.external && load.path !== "<runtime>" && !isRuntimeModule(load.path) && !leftOut.includes(load.path)) strays.add(`${input} loads "${load.path}" (${load.kind})`);
    }
  }
  if (strays.size > 0) throw new Error(`the bundle of ${entry} would load at run time what it does not hold: ${[...strays].sort().join("; ")}`);
}

/**
 * Whether `specifier` names a module of the runtime itself: any `node:` one (the scheme is the
 * runtime's; a newer runtime than the builder's has modules the builder does not know, such as
 * `node:sqlite`, which undici asks for), or a bare name the builder's Node.js knows (`fs`).
 */
function isRuntimeModule(specifier: string): boolean {
  return specifier.startsWith("node:") || isBuiltin(specifier);
}

function jsonFilesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".json"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The text before and after the bundle's modules: the prelude, and with quick answers, the test of
 * the arguments in front of everything and the rest in a function it calls when none is asked.
 */
function bundleFrame(prelude: string, answers: ReadonlyArray<QuickAnswer>): Pick<BuildOptions, "banner" | "footer"> {
  if (answers.length === 0) return { banner: { js: prelude } };
  const quick = `const __convergeArgs = process.argv.slice(2);
const __convergeAnswer = ${JSON.stringify(answers)}.find((answer) => answer.args.length === __convergeArgs.length && answer.args.every((arg, index) => arg === __convergeArgs[index]));
if (__convergeAnswer !== undefined) console.log(__convergeAnswer.line);
else (() => {`;
  return { banner: { js: `${quick}\n${prelude}` }, footer: { js: "})();" } };
}

/**
 * The code before the bundle's modules: `readFileSync` and `existsSync` answering the inlined files
 * at their virtual paths (every other path goes to the real one).
 */
function bundlePrelude(files: Readonly<Record<string, string>>): string {
  return `const __convergeDirname = (url) => require("node:path").dirname(require("node:url").fileURLToPath(url));
const __convergeFilename = (url) => require("node:url").fileURLToPath(url);
{
  const fs = require("node:fs");
  const { fileURLToPath } = require("node:url");
  const inlined = new Map(Object.entries(${JSON.stringify(files)}).map(([path, text]) => [fileURLToPath(new URL(path, ${JSON.stringify(VIRTUAL_ROOT_URL)})), text]));
  const inlinedText = (path) => inlined.get(path instanceof URL ? (path.protocol === "file:" ? fileURLToPath(path) : "") : String(path));
  const readFileSync = fs.readFileSync;
  fs.readFileSync = function (path, options) {
    const text = inlinedText(path);
    if (text === undefined) return readFileSync.apply(this, arguments);
    return (typeof options === "string" ? options : options?.encoding) ? text : Buffer.from(text);
  };
  const existsSync = fs.existsSync;
  fs.existsSync = function (path) {
    return inlinedText(path) !== undefined || existsSync.apply(this, arguments);
  };
}
`;
}
