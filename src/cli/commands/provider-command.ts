import { renderHcl } from "../../desired/hcl-writer.js";
import { requiredProvidersBlock } from "../../desired/terraform-attributes.js";
import { installProvider } from "../provider-install.js";
import { CliError } from "../cli-error.js";

export interface ProviderInstallFlags {
  readonly dir?: string;
  readonly from?: string;
  readonly wrapper?: boolean;
}

/** `converge provider install`: the provider where terraform finds it with no network and no CLI configuration. */
export function providerInstallCommand(flags: ProviderInstallFlags): number {
  let installed;
  try {
    installed = installProvider({ mirror: flags.dir, from: flags.from, wrapper: flags.wrapper });
  } catch (error) {
    throw new CliError(`provider install: ${(error as Error).message}`);
  }
  process.stdout.write([
    `installed terraform-provider-converge ${installed.version} (${installed.platform}) in ${installed.mirror}`,
    `  ${installed.executable}`,
    installed.packaged === undefined
      ? "  the development wrapper: it runs this converge's compiled provider on this Node.js (converge provider package builds a single executable)"
      : `  the single executable ${installed.packaged}: no Node.js needed where it runs`,
    "",
    "use it with:",
    ...renderHcl([requiredProvidersBlock(installed.version)]).trimEnd().split("\n").map((line) => `  ${line}`),
    "",
    flags.dir === undefined
      ? "terraform init finds it in its implied local mirror (~/.terraform.d/plugins): no network, no CLI configuration"
      : `terraform finds it with a filesystem_mirror of ${installed.mirror} in the CLI configuration (provider_installation)`,
    "",
  ].join("\n"));
  return 0;
}
