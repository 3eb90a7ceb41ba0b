import { convergePackageRoot, convergeVersion, DEFAULT_RELEASE_DIR, PROVIDER_MAIN, terraformPlatform } from "../provider-install.js";
import { CliError } from "../cli-error.js";
import { packageProvider, type ProviderRelease } from "../release/package-provider.js";
import { releasePlatforms } from "../release/release-platform.js";
import { releaseCacheDir } from "../release/sea-node.js";

export interface ProviderPackageFlags {
  readonly out?: string;
  readonly signWith?: string;
  readonly platforms: string;
  /** false with --no-code-cache. */
  readonly codeCache: boolean;
}

/** `converge provider package`: the provider's release files, each platform's executable, the mirror layouts. */
export async function providerPackageCommand(flags: ProviderPackageFlags): Promise<number> {
  let release: ProviderRelease;
  try {
    const platforms = releasePlatforms(flags.platforms);
    release = await packageProvider({
      entry: PROVIDER_MAIN,
      packageRoot: convergePackageRoot(),
      version: convergeVersion(),
      outDir: flags.out ?? DEFAULT_RELEASE_DIR,
      platforms,
      cacheDir: releaseCacheDir(),
      signWith: flags.signWith,
      hostPlatform: terraformPlatform(),
      codeCache: flags.codeCache,
    });
  } catch (error) {
    throw new CliError(`provider package: ${(error as Error).message}`);
  }
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
  process.stdout.write([
    `packaged terraform-provider-converge ${release.version} in ${release.outDir} (Node.js ${release.nodeVersion} single executables over one ${mb(release.bundle.bytes)} bundle of ${release.bundle.inputs} files)`,
    ...release.platforms.map((platform) =>
      `  ${platform.platform}: executable ${mb(platform.executableBytes)}${platform.stripped ? " (Node.js stripped)" : ""}${platform.snapshot ? " with V8 startup snapshot" : platform.codeCache ? " with code cache" : ""}, zip ${mb(platform.zipBytes)}, ${platform.verified ? "verified here (handshake)" : "built, not run here"}\n    ${platform.zip}\n    ${platform.hashes.join(" ")}`,
    ),
    `  ${release.sha256Sums}`,
    ...(release.signature ? [`  ${release.signature}`] : []),
    `  ${release.manifest}`,
    `  filesystem mirror: ${release.mirrors.filesystem}`,
    `  network mirror (serve over HTTPS): ${release.mirrors.network}`,
    "",
  ].join("\n"));
  return 0;
}
