/**
 * The version of this converge (`converge --version`) and the flags that ask for it. The lookup lives
 * below the CLI and the services (src/contract/package-version.ts), since the services' health names
 * the version too.
 */
export { convergePackageJson, packageVersion } from "../../contract/package-version.js";

/** The flags that ask for converge's version (commander's `-V, --version`). */
export const VERSION_FLAGS: ReadonlyArray<string> = ["--version", "-V"];

/** Whether `args` (the arguments after the program's name) ask for converge's version and nothing else: one of VERSION_FLAGS alone. */
export function asksOnlyForVersion(args: ReadonlyArray<string>): boolean {
  return args.length === 1 && VERSION_FLAGS.includes(args[0]!);
}
