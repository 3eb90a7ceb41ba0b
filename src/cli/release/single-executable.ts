import { CliError } from "../cli-error.js";

/**
 * The name bundleProvider defines as `true` in every bundle it makes for a single executable
 * (esbuild's `define`): the build says what the program is, whatever runtime runs it. Elsewhere (a
 * checkout, an installed package) the name is not defined at all.
 */
export const SINGLE_EXECUTABLE_MARK = "__CONVERGE_SINGLE_EXECUTABLE__";

declare const __CONVERGE_SINGLE_EXECUTABLE__: boolean | undefined;

/** Whether this program is a release's single executable (SINGLE_EXECUTABLE_MARK), not converge on Node.js from a checkout or a package. */
export function isSingleExecutable(): boolean {
  return typeof __CONVERGE_SINGLE_EXECUTABLE__ !== "undefined" && __CONVERGE_SINGLE_EXECUTABLE__;
}

/**
 * The commands that need a checkout of converge (its compiled files, its dependencies, Node.js),
 * which the single executable `converge` does not carry, with what to do instead.
 */
const CHECKOUT_COMMANDS: Readonly<Record<string, string>> = {
  "provider package": "it bundles the compiled provider with esbuild (a devDependency) and builds Bun single executables: run it in a clone of the repository after npm install and npm run build",
  "provider install": "it installs the provider of a checkout (its release directory, or a wrapper running converge on Node.js): unzip the release's terraform-provider-converge_VERSION_OS_ARCH.zip into ~/.terraform.d/plugins/registry.terraform.io/converge/converge/VERSION/OS_ARCH/ instead, or run it in a clone",
  demo: "it plans examples/desired-state of the repository: run it in a clone",
};

/**
 * Refuses, in the single executable `converge`, a command that needs a checkout of converge
 * (`commandPath` as typed: `provider package`), saying why and what to do instead; does nothing in
 * a checkout or an installed package (`singleExecutable` false).
 */
export function refuseWithoutCheckout(commandPath: string, singleExecutable: boolean = isSingleExecutable()): void {
  if (!singleExecutable) return;
  const reason = CHECKOUT_COMMANDS[commandPath];
  if (reason !== undefined) throw new CliError(`${commandPath} is not available in the single executable converge: ${reason}`);
}
