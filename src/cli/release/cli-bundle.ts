import { VERSION_FLAGS } from "./package-version.js";
import { bundleProvider, type ProviderBundle } from "./provider-bundle.js";

/**
 * The modules of the commands the single executable refuses (single-executable.ts: they need a
 * checkout), as src/cli/program.ts imports them: left out of the bundle, never loaded. The release
 * build's own modules go with them (esbuild, yazl, and the bundler's plugin, whose text the plugin
 * itself would rewrite).
 */
const CHECKOUT_COMMAND_MODULES: ReadonlyArray<string> = ["./commands/provider-package-command.js", "./commands/provider-command.js", "./commands/demo-command.js"];

/**
 * What the single executable `converge` leaves out of its bundle, never loaded: the modules of the
 * commands that need a checkout (CHECKOUT_COMMAND_MODULES) and the program as the build bundles it
 * for Node.js (node-bundle.ts), which src/cli/main.ts loads on Node.js only: the executable's bundle
 * holds the program's own modules.
 */
export const LEFT_OUT_OF_THE_EXECUTABLE: ReadonlyArray<string> = [...CHECKOUT_COMMAND_MODULES, "./node-bundle/program.js"];

/**
 * Bundles the compiled CLI (`entry`, `dist/src/cli/main.js`) into one CommonJS script `outFile` for the
 * single executable `converge`, as the provider's bundle is made (bundleProvider: every module,
 * each at its path under the virtual root, the JSON files under the entry's directory inlined),
 * leaving out the commands that need a checkout and the program bundled for Node.js (LEFT_OUT_OF_THE_EXECUTABLE), with one more file inlined: a package.json of only converge's name and `version`, which
 * `converge --version` and the commands that name the version read above their module
 * (src/cli/release/package-version.ts); and `converge --version` alone answered before any module
 * of the bundle is defined (a QuickAnswer: the executable prints it as fast as Bun starts).
 */
export async function bundleCli(options: { readonly entry: string; readonly packageRoot: string; readonly outFile: string; readonly version: string }): Promise<ProviderBundle> {
  const packageJson = `${JSON.stringify({ name: "converge", version: options.version }, null, 2)}\n`;
  return await bundleProvider({
    entry: options.entry,
    packageRoot: options.packageRoot,
    outFile: options.outFile,
    extraDataFiles: { "package.json": packageJson },
    leaveOut: LEFT_OUT_OF_THE_EXECUTABLE,
    quickAnswers: VERSION_FLAGS.map((flag) => ({ args: [flag], line: options.version })),
  });
}
