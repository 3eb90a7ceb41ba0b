import { VERSION_FLAGS } from "./package-version.js";
import { bundleProvider, type ProviderBundle } from "./provider-bundle.js";

/**
 * The modules of the commands the single executable refuses (single-executable.ts: they need a
 * checkout), as src/cli/program.ts imports them: left out of the bundle, never loaded. The release
 * build's own modules go with them (esbuild, yazl, and the bundler's plugin, whose text the plugin
 * itself would rewrite).
 */
export const CHECKOUT_COMMAND_MODULES: ReadonlyArray<string> = ["./commands/provider-package-command.js", "./commands/provider-command.js", "./commands/demo-command.js"];

/**
 * Bundles the compiled CLI (`entry`, `dist/src/cli/main.js`) into one CommonJS script `outFile` for the
 * single executable `converge`, as the provider's bundle is made (bundleProvider: every module,
 * each at its path under the virtual root, the JSON files under the entry's directory inlined),
 * leaving out the commands that need a checkout (CHECKOUT_COMMAND_MODULES), with one more file inlined: a package.json of only converge's name and `version`, which
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
    leaveOut: CHECKOUT_COMMAND_MODULES,
    quickAnswers: VERSION_FLAGS.map((flag) => ({ args: [flag], line: options.version })),
  });
}
