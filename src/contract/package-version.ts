import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of this converge (`converge --version`, and what the services' health answers): the one
 * in the first package.json named converge above this module, compiled or not; in the single
 * executable, the package.json its bundle carries (src/cli/release/cli-bundle.ts). Here, below both the
 * CLI and the services, because both name it; imports nothing else of converge, so that `--version`
 * starts as fast as the CLI can.
 */
export function packageVersion(): string {
  return convergePackageJson().version;
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
