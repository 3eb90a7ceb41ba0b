import { PROVIDER_NAME } from "../../desired/terraform-attributes.js";

/** The provider's type, namespace and origin registry host, as its source address `converge/converge` means them. */
export const PROVIDER_TYPE = PROVIDER_NAME;
export const PROVIDER_NAMESPACE = PROVIDER_NAME;
export const PROVIDER_HOST = "registry.terraform.io";

/** `terraform-provider-converge_VERSION_OS_ARCH.zip`: a release archive. */
export const releaseZipName = (version: string, platform: string): string => `terraform-provider-${PROVIDER_TYPE}_${version}_${platform}.zip`;
/** `terraform-provider-converge_VERSION_SHA256SUMS`: the archives' and the manifest's checksums. */
export const sha256SumsName = (version: string): string => `terraform-provider-${PROVIDER_TYPE}_${version}_SHA256SUMS`;
/** `terraform-provider-converge_VERSION_manifest.json`: the protocol versions the provider speaks. */
export const manifestName = (version: string): string => `terraform-provider-${PROVIDER_TYPE}_${version}_manifest.json`;
/** `terraform-provider-converge_vVERSION`: the executable inside an archive, as terraform's providers name theirs. */
export const executableName = (version: string, suffix = ""): string => `terraform-provider-${PROVIDER_TYPE}_v${version}${suffix}`;
/** The CLI's command name: its executable's and its archives' (not a terraform type name, though it reads like one). */
const CLI_NAME = "converge";
/** What every archive of the CLI's executable is named from: `converge_`. */
export const CLI_ZIP_PREFIX = `${CLI_NAME}_`;
/** `converge_VERSION_OS_ARCH.zip`: the archive of the CLI's single executable for one platform, in the same release. */
export const cliZipName = (version: string, platform: string): string => `${CLI_ZIP_PREFIX}${version}_${platform}.zip`;
/** `converge` (`converge.exe` on Windows): the CLI's single executable inside its archive. */
export const cliExecutableName = (suffix = ""): string => `${CLI_NAME}${suffix}`;
