import { copyFileSync, linkSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

import { PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE } from "./release-names.js";

/** One archive of a release as a mirror lists it. */
export interface MirroredArchive {
  /** terraform's platform name: `linux_amd64`. */
  readonly platform: string;
  /** The zip's path. */
  readonly zip: string;
  /** Its hashes in the lock file's forms: `h1:…` (its contents) and `zh:…` (the zip's SHA-256). */
  readonly hashes: ReadonlyArray<string>;
}

/** The two mirror layouts `writeMirrorLayouts` wrote, each a directory for terraform's CLI configuration. */
export interface MirrorLayouts {
  /** `filesystem_mirror { path = … }`: `HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip` (the packed layout). */
  readonly filesystem: string;
  /** `network_mirror { url = … }` when served over HTTPS: `HOST/NAMESPACE/TYPE/index.json`, `VERSION.json` and the zips beside them. */
  readonly network: string;
}

/**
 * Writes the release's archives in both mirror layouts under `outDir` (`filesystem-mirror/`,
 * `network-mirror/`, replaced whole): the network mirror's `index.json` lists `version` and
 * `VERSION.json` each archive's URL (relative, beside it) and hashes. The zips are hard links of
 * the release's (copies where the file system cannot link).
 */
export function writeMirrorLayouts(options: { readonly outDir: string; readonly version: string; readonly archives: ReadonlyArray<MirroredArchive> }): MirrorLayouts {
  const filesystem = join(options.outDir, "filesystem-mirror");
  const network = join(options.outDir, "network-mirror");
  const providerPath = join(PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE);
  for (const root of [filesystem, network]) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(join(root, providerPath), { recursive: true });
    for (const archive of options.archives) linkOrCopy(archive.zip, join(root, providerPath, basename(archive.zip)));
  }
  writeFileSync(join(network, providerPath, "index.json"), `${JSON.stringify({ versions: { [options.version]: {} } }, null, 2)}\n`);
  const archives = Object.fromEntries(options.archives.map((archive) => [archive.platform, { url: basename(archive.zip), hashes: archive.hashes }]));
  writeFileSync(join(network, providerPath, `${options.version}.json`), `${JSON.stringify({ archives }, null, 2)}\n`);
  return { filesystem, network };
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    // another file system, or one without hard links: a copy serves the same
    copyFileSync(from, to);
  }
}
