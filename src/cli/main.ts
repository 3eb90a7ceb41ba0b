#!/usr/bin/env node
import { statSync } from "node:fs";

import { asksOnlyForVersion, packageVersion } from "./release/package-version.js";
import { isSingleExecutable } from "./release/single-executable.js";

/**
 * converge's entry. `converge --version` alone (a CI job's first line, a wrapper's check) is
 * answered before the program loads: on Node.js, loading the program's modules and building its
 * commands is most of what the answer would cost; the single executable's bundle answers it before
 * even this module (cli-bundle.ts; docs/manual/benchmarks.md, "converge --version"). Anything else,
 * `--version` among other arguments included, is the program's (program.ts), which prints the same
 * line for it.
 */
if (asksOnlyForVersion(process.argv.slice(2))) {
  // console.log, not process.stdout, which Bun's single executable takes ~4 ms to set up
  console.log(packageVersion());
} else {
  // no top-level await: the single executable's bundle is a CommonJS script (src/cli/release/cli-bundle.ts)
  const program: Promise<typeof import("./program.js")> = loadsTheBundle() ? import("./node-bundle/program.js" as string) : import("./program.js");
  program.then(({ runProgram }) => runProgram(process.argv)).catch((error: unknown) => {
    process.stderr.write(`converge: internal error: the program did not load: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}

/**
 * Whether to load the program as the build bundled it (release/node-bundle.ts: some 65 files in
 * dist/src/cli/node-bundle/ where the program's modules are ~160 to resolve, read and compile: a
 * quarter to a third of a command's start on Node.js 20, which caches no compiled module) rather
 * than its compiled modules: on Node.js, when the bundle is there and no compilation came after it
 * (`tsc --watch` while developing rewrites dist/.tsbuildinfo, which a package does not carry). The
 * single executable's own bundle holds the program's modules.
 */
function loadsTheBundle(): boolean {
  if (isSingleExecutable()) return false;
  const bundle = statSync(new URL("./node-bundle/program.js", import.meta.url), { throwIfNoEntry: false });
  const compiled = statSync(new URL("../../.tsbuildinfo", import.meta.url), { throwIfNoEntry: false });
  return bundle !== undefined && (compiled === undefined || bundle.mtimeMs >= compiled.mtimeMs);
}
