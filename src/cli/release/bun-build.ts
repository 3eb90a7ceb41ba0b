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
 * The Bun executable of `platform`'s npm package at BUN_VERSION, fetched once with `npm pack`
 * (which ignores the package's os and cpu, unlike `npm install`), its tarball checked against the
 * pinned integrity and its executable unpacked into the cache. Safe when several packagings run at
 * once: each fetches and unpacks in a directory of its own and renames it into place; the first
 * rename wins, the others use the winner's and remove their own.
 */
export function bunBinary(platform: ReleasePlatform, cacheDir: string): string {
  const name = `${platform.bunPackage.replace(/^@oven\//, "")}-${BUN_VERSION}`;
  const directory = join(cacheDir, name);
  const binary = join(directory, platform.bunBinary);
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(join(cacheDir, `.${name}-`));
  try {
    run("npm", ["pack", `${platform.bunPackage}@${BUN_VERSION}`, "--pack-destination", staging, "--silent"], `fetching ${platform.bunPackage}@${BUN_VERSION}`);
    const tarball = join(staging, `oven-${name}.tgz`);
    const integrity = integrityOf(tarball);
    if (integrity !== platform.bunIntegrity) throw new Error(`${platform.bunPackage}@${BUN_VERSION} has integrity ${integrity}: expected ${platform.bunIntegrity}`);
    const unpacked = join(staging, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["-xzf", tarball, "-C", unpacked, platform.bunBinary], `unpacking ${tarball}`);
    chmodSync(join(unpacked, platform.bunBinary), 0o755);
    try {
      renameSync(unpacked, directory);
    } catch (error) {
      // another packaging put its copy there first: the same pinned bytes
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
