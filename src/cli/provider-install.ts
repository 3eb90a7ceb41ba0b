import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { PROVIDER_SOURCE } from "../desired/terraform-attributes.js";
import { convergePackageJson, packageVersion } from "./release/package-version.js";
import { executableName } from "./release/release-names.js";

/**
 * Where the mirror holds the provider: under the host the short source address stands for, which is
 * terraform's registry for terraform and OpenTofu's for OpenTofu (both read the same mirror).
 */
const PROVIDER_HOST_PATHS = ["registry.terraform.io", "registry.opentofu.org"].map((host) => `${host}/${PROVIDER_SOURCE}`);

/**
 * The provider's executable entry, beside the CLI in this package: a file the installed script
 * runs, not a module the CLI imports (the CLI and the provider are both top layers, docs/manual/layout.md).
 */
export const PROVIDER_MAIN = fileURLToPath(new URL("../provider/main.js", import.meta.url));

/** Where `converge provider package` writes a release unless told otherwise, and `provider install` looks for one: `dist/release`. */
export const DEFAULT_RELEASE_DIR = fileURLToPath(new URL("../../release", import.meta.url));

/** What `installProvider` did. */
export interface InstalledProvider {
  /** The executable terraform starts (OpenTofu's is beside it, under its own registry's host). */
  readonly executable: string;
  readonly version: string;
  /** terraform's platform name of this machine (`linux_amd64`). */
  readonly platform: string;
  /** The filesystem mirror it is in. */
  readonly mirror: string;
  /** The packaged single executable it is a copy of; none when it is the development wrapper. */
  readonly packaged: string | undefined;
}

/** The directory of this converge's package.json. */
export function convergePackageRoot(): string {
  return convergePackageJson().root;
}

/** terraform's name of a platform: `linux_amd64`, `darwin_arm64`. */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const os = { linux: "linux", darwin: "darwin", freebsd: "freebsd", openbsd: "openbsd" }[platform as string];
  const cpu = { x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386" }[arch];
  if (!os || !cpu) throw new Error(`converge provider install supports Linux, macOS and the BSDs on amd64, arm64, arm and 386; this machine is ${platform} ${arch}`);
  return `${os}_${cpu}`;
}

/**
 * Puts `terraform-provider-converge` where terraform finds it without any CLI configuration:
 * terraform's implied local mirror `$HOME/.terraform.d/plugins` (or `mirror`, another filesystem
 * mirror), in its unpacked layout `registry.terraform.io/converge/converge/VERSION/PLATFORM/` (and
 * `registry.opentofu.org/…` for OpenTofu). The executable is the single executable `converge
 * provider package` built for this platform and version in `from` (default DEFAULT_RELEASE_DIR)
 * when there is one (and `wrapper` is not set); else, or with `wrapper`, a shell script that runs
 * this converge's compiled provider on this Node.js (the development wrapper). Either is written
 * whole and renamed into place, so a terraform that starts it meanwhile never sees half of it.
 */
export function installProvider(options: { readonly mirror?: string | undefined; readonly env?: NodeJS.ProcessEnv; readonly from?: string | undefined; readonly wrapper?: boolean | undefined } = {}): InstalledProvider {
  const env = options.env ?? process.env;
  const mirror = options.mirror ?? join(env.HOME || homedir(), ".terraform.d", "plugins");
  const version = packageVersion();
  const platform = terraformPlatform();
  const packaged = options.wrapper ? undefined : packagedExecutable(options.from, platform, version);
  const [executable, ...others] = PROVIDER_HOST_PATHS.map((hostPath) => join(mirror, hostPath, version, platform, executableName(version)));
  for (const path of [executable!, ...others]) {
    mkdirSync(dirname(path), { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    if (packaged === undefined) writeFileSync(partial, wrapperScript(version), { mode: 0o755 });
    else copyFileSync(packaged, partial);
    chmodSync(partial, 0o755);
    renameSync(partial, path);
  }
  return { executable: executable!, version, platform, mirror: resolve(mirror), packaged };
}

/** The executable `converge provider package` built in `from` for this platform and version; none (the wrapper, then) when `from` is not given and nothing is built in the default directory. */
function packagedExecutable(from: string | undefined, platform: string, version: string): string | undefined {
  const file = join(from ?? DEFAULT_RELEASE_DIR, "executables", platform, executableName(version));
  if (existsSync(file)) return file;
  if (from === undefined) return undefined;
  throw new Error(`--from ${from} has no executable for ${platform} at version ${version} (expected ${file}): run converge provider package --out ${from} first`);
}

function wrapperScript(version: string): string {
  return `#!/bin/sh\n# converge ${version}: the terraform provider, on the Node.js that installed it\nexec ${shellQuote(process.execPath)} ${shellQuote(PROVIDER_MAIN)} "$@"\n`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}
