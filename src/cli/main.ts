#!/usr/bin/env node
import { asksOnlyForVersion, packageVersion } from "./release/package-version.js";

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
  import("./program.js").then(({ runProgram }) => runProgram(process.argv)).catch((error: unknown) => {
    process.stderr.write(`converge: internal error: the program did not load: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
