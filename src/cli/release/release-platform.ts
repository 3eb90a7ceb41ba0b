/**
 * A platform a release is built for, by terraform's name (`linux_amd64`), with the Bun build of the
 * npm registry that its single executables are made of.
 */
export interface ReleasePlatform {
  /** terraform's name: `linux_amd64`. */
  readonly name: string;
  /** The npm package of Bun's build for it (`@oven/bun-linux-x64`). */
  readonly bunPackage: string;
  /** The package's `dist.integrity` at BUN_VERSION: what `npm pack` must have fetched. */
  readonly bunIntegrity: string;
  /** The Bun executable inside the package. */
  readonly bunBinary: string;
  /** Bun's name of the platform, its `--target` (`bun-linux-x64`). */
  readonly bunTarget: string;
  /** The executable's suffix on this platform (`.exe` on Windows). */
  readonly executableSuffix: string;
}

/**
 * The Bun the release's single executables are built with and run on (docs/manual/provider-release.md):
 * `bun build --compile --bytecode` of the bundle starts in a third of the time Node.js 26's single
 * executables took, and the npm registry has its build for every platform terraform users run,
 * darwin_arm64 included.
 */
export const BUN_VERSION = "1.4.4";

/**
 * Every platform `converge provider package --platforms` knows, by terraform's name, with the npm
 * registry's Bun BUN_VERSION for it. x86-64 takes Bun's baseline build (SSE4.2, no AVX2 needed), as a
 * Go provider runs on any x86-64 machine: a CI runner or virtual machine whose CPU model hides AVX2
 * must not die of an illegal instruction (its cost, measured: docs/manual/benchmarks.md).
 */
export const RELEASE_PLATFORMS: ReadonlyArray<ReleasePlatform> = [
  {
    name: "linux_amd64",
    bunPackage: "@oven/bun-linux-x64-baseline",
    bunIntegrity: "sha512-FBU6T21NT+i+rESbi0Z8A8G5xN51c+WZ0v6pIjI6szSzOlqVNv64nf7FPnwNIyxKD1M7Wg5cEobLC/QbzCeLtA==",
    bunBinary: "package/bin/bun",
    bunTarget: "bun-linux-x64-baseline",
    executableSuffix: "",
  },
  {
    name: "linux_arm64",
    bunPackage: "@oven/bun-linux-aarch64",
    bunIntegrity: "sha512-ZTVtpf9zmHSBVPX1sBwe5agGb/rN34yPGg/Hby8e2Ax2uCUA2URZKlZH7qLntK7qaFJCMXh9v0GWNYN2zINz1w==",
    bunBinary: "package/bin/bun",
    bunTarget: "bun-linux-arm64",
    executableSuffix: "",
  },
  {
    // Bun signs the executable it writes ad hoc; a Developer ID signature and notarization are the publisher's
    name: "darwin_amd64",
    bunPackage: "@oven/bun-darwin-x64-baseline",
    bunIntegrity: "sha512-uzSXckTnNNS7Un1ihiM31R7P5iKndZ65t6Zj3iI72SrfoV2uI97MKM8z1qer2oRHyqXHLUIJTIhj+qT5UeEjrw==",
    bunBinary: "package/bin/bun",
    bunTarget: "bun-darwin-x64-baseline",
    executableSuffix: "",
  },
  {
    name: "darwin_arm64",
    bunPackage: "@oven/bun-darwin-aarch64",
    bunIntegrity: "sha512-zW/hxwc8sJAILGwB5eTC4i48ouGXf0V4lrxmEOk3JIE6JkYVW1TZh1E2pIempqsezgW1sckTIIDudFON8bJ2Mw==",
    bunBinary: "package/bin/bun",
    bunTarget: "bun-darwin-arm64",
    executableSuffix: "",
  },
  {
    name: "windows_amd64",
    bunPackage: "@oven/bun-windows-x64-baseline",
    bunIntegrity: "sha512-c+169V+ole29sk5GpFuh6Q4uNwRDqu9tXZAVUYIsdfGZeiJeduQ030BkxHi3PmNpj7w/ec2+oO2okRFVFC9i1g==",
    bunBinary: "package/bin/bun.exe",
    bunTarget: "bun-windows-x64-baseline",
    executableSuffix: ".exe",
  },
];

/** The platforms of a `--platforms` list (comma separated), each known; throws naming an unknown one. */
export function releasePlatforms(list: string): ReleasePlatform[] {
  const names = list.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (names.length === 0) throw new Error(`--platforms "${list}" names no platform: expected a comma-separated list of ${RELEASE_PLATFORMS.map((platform) => platform.name).join(", ")}`);
  return [...new Set(names)].map((name) => {
    const platform = RELEASE_PLATFORMS.find((candidate) => candidate.name === name);
    if (!platform) throw new Error(`--platforms names "${name}": expected one of ${RELEASE_PLATFORMS.map((candidate) => candidate.name).join(", ")}`);
    return platform;
  });
}
