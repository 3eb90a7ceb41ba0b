import { fileURLToPath } from "node:url";

import { convergePackageRoot, DEFAULT_RELEASE_DIR, PROVIDER_MAIN, terraformPlatform } from "../provider-install.js";
import { packageVersion } from "../release/package-version.js";
import { CliError } from "../cli-error.js";
import { packageProvider, type PackagedExecutable, type ProviderRelease } from "../release/package-provider.js";
import { releasePlatforms } from "../release/release-platform.js";
import { releaseCacheDir } from "../release/bun-build.js";
import { sourceDateEpoch } from "../release/source-date-epoch.js";

/** The compiled CLI's entry, beside this command's directory: what the CLI's single executable bundles. */
const CLI_MAIN = fileURLToPath(new URL("../main.js", import.meta.url));

export interface ProviderPackageFlags {
  readonly out?: string;
  readonly signWith?: string;
  readonly platforms: string;
  /** --source-date-epoch: seconds since 1970 UTC, as typed. */
  readonly sourceDateEpoch?: string;
}

/** `converge provider package`: the release: each platform's provider and CLI executables and archives, SHA256SUMS, the mirror layouts. */
export async function providerPackageCommand(flags: ProviderPackageFlags): Promise<number> {
  let release: ProviderRelease;
  try {
    const platforms = releasePlatforms(flags.platforms);
    const epoch = sourceDateEpoch(flags.sourceDateEpoch);
    release = await packageProvider({
      entry: PROVIDER_MAIN,
      cliEntry: CLI_MAIN,
      packageRoot: convergePackageRoot(),
      version: packageVersion(),
      outDir: flags.out ?? DEFAULT_RELEASE_DIR,
      platforms,
      cacheDir: releaseCacheDir(),
      signWith: flags.signWith,
      hostPlatform: terraformPlatform(),
      sourceDateEpoch: epoch,
    });
  } catch (error) {
    throw new CliError(`provider package: ${(error as Error).message}`);
  }
  process.stdout.write(`${describeRelease(release)}\n`);
  return 0;
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const verification = (packaged: PackagedExecutable, check: string) => (packaged.verified ? `verified here (${check})` : "built, not run here");

function describeRelease(release: ProviderRelease): string {
  return [
    `packaged converge ${release.version} in ${release.outDir}: Bun ${release.bunVersion} single executables of the provider (a ${mb(release.bundle.bytes)} bundle of ${release.bundle.inputs} files) and of the CLI (${mb(release.cliBundle.bytes)}, ${release.cliBundle.inputs} files); archive times ${new Date(release.sourceDateEpoch * 1000).toISOString()} (UTC)`,
    ...release.platforms.map((platform) => [
      `  ${platform.platform}:`,
      `    provider: executable ${mb(platform.executableBytes)}, zip ${mb(platform.zipBytes)}, ${verification(platform, "handshake")}`,
      `      ${platform.zip}`,
      `      ${platform.hashes.join(" ")}`,
      `    cli: executable ${mb(platform.cli.executableBytes)}, zip ${mb(platform.cli.zipBytes)}, ${verification(platform.cli, "--version")}`,
      `      ${platform.cli.zip}`,
    ].join("\n")),
    `  ${release.sha256Sums}`,
    ...(release.signature ? [`  ${release.signature}`] : []),
    `  ${release.manifest}`,
    `  filesystem mirror: ${release.mirrors.filesystem}`,
    `  network mirror (serve over HTTPS): ${release.mirrors.network}`,
  ].join("\n");
}
