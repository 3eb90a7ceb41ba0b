import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of this converge (`converge --version`): the one in the first package.json named
 * converge above this module, compiled or not; in the single executable, the package.json its
 * bundle carries (src/cli/release/cli-bundle.ts). Imports nothing else of converge, so that
 * `--version` starts as fast as the CLI can.
 */
export function packageVersion(): string {
  return convergePackageJson().version;
}

/** The flags that ask for converge's version (commander's `-V, --version`). */
export const VERSION_FLAGS: ReadonlyArray<string> = ["--version", "-V"];

/** Whether `args` (the arguments after the program's name) ask for converge's version and nothing else: one of VERSION_FLAGS alone. */
export function asksOnlyForVersion(args: ReadonlyArray<string>): boolean {
  return args.length === 1 && VERSION_FLAGS.includes(args[0]!);
}

/** The first package.json named converge above this module: its directory and version. */
export function convergePackageJson(): { readonly root: string; readonly version: string } {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let directory = start; ; directory = dirname(directory)) {
    const file = join(directory, "package.json");
    if (existsSync(file)) {
      const packageJson = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
      if (packageJson.name === "converge" && typeof packageJson.version === "string") return { root: directory, version: packageJson.version };
    }
    if (dirname(directory) === directory) throw new Error(`no package.json of converge above ${start}`);
  }
}
