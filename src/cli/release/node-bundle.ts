import { readFileSync, rmSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import type { Plugin } from "esbuild";

/**
 * The program of `converge` on Node.js as the build bundles it: `dist/src/cli/program.js` and every
 * module it loads, converge's and its dependencies', in a few ES module files under `outDir`
 * (esbuild, code splitting: a command's modules load with it, as they do unbundled). Node.js 20 has
 * no cache of compiled modules, and resolving, reading and compiling the ~160 modules a command
 * such as `validate` loads (94 of them zod's) was a third of its start (docs/manual/benchmarks.md,
 * "converge on Node.js: the program bundled"). The modules keep their own place: each one's
 * `import.meta.url` is its compiled file's (beside which its data files are), whatever chunk holds it.
 * Returns how many files it wrote.
 */
export async function bundleForNode(options: { readonly entry: string; readonly packageRoot: string; readonly outDir: string }): Promise<number> {
  const esbuild = await import("esbuild").catch((error: unknown) => {
    throw new Error(`the build bundles converge's program with esbuild, a devDependency of converge: run it from a checkout after npm install (${(error as Error).message})`);
  });
  const outDir = resolve(options.outDir);
  // an earlier build's chunks have other names: they would stay beside the new ones, loaded by nothing
  rmSync(outDir, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: [options.entry],
    outdir: outDir,
    absWorkingDir: resolve(options.packageRoot),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // a package's ES module build before its `main`, as the release's bundles (provider-bundle.ts)
    mainFields: ["module", "main"],
    // the CommonJS modules of the dependencies ask for Node.js's modules with `require`, which an ES module has not
    banner: { js: 'import { createRequire as __convergeCreateRequire } from "node:module";\nconst require = __convergeCreateRequire(import.meta.url);' },
    // the release build's own tool, which `provider package` loads when it runs, from node_modules
    external: ["esbuild"],
    logLevel: "silent",
    metafile: true,
    plugins: [ownPlacePlugin(outDir)],
  }).catch((error: unknown) => {
    throw new Error(`esbuild could not bundle ${options.entry}: ${(error as Error).message}`);
  });
  return Object.keys(result.metafile.outputs).length;
}

/**
 * The plugin that keeps each module's `import.meta.url` its compiled file's: the chunk that holds
 * it is in `outDir`, and the module's file is found from there. `createRequire(import.meta.url)(X)`
 * becomes `require(X)`, so that X is bundled too. Only the code's own `import.meta.url` is
 * replaced, not the words inside a string (the release's bundler writes them).
 */
function ownPlacePlugin(outDir: string): Plugin {
  return {
    name: "converge-own-place",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        if (!text.includes("import.meta")) return undefined;
        const path = relative(outDir, args.path).split(sep).join("/");
        const url = `new URL(${JSON.stringify(path)}, import.meta.url).href`;
        return {
          loader: "js",
          contents: text
            .replace(/createRequire\(import\.meta\.url\)\(/g, "require(")
            .replace(/(?<!["'`])\bimport\.meta\.url\b(?!["'`])/g, url),
        };
      });
    },
  };
}
