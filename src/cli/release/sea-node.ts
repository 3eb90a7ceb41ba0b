import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

import { SEA_NODE_VERSION, type ReleasePlatform } from "./release-platform.js";

/**
 * Where fetched Node.js builds are kept between packagings: $CONVERGE_CACHE_DIR, else
 * $XDG_CACHE_HOME/converge, else ~/.cache/converge.
 */
export function releaseCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CONVERGE_CACHE_DIR) return env.CONVERGE_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "converge");
}

/**
 * The Node.js executable of `platform`'s npm package at SEA_NODE_VERSION, fetched once with
 * `npm pack` (which ignores the package's os and cpu, unlike `npm install`), its tarball checked
 * against the pinned integrity and its executable unpacked into the cache. Safe when several
 * packagings run at once: each fetches and unpacks in a directory of its own and renames it into
 * place; the first rename wins, the others use the winner's and remove their own.
 */
export function seaNodeBinary(platform: ReleasePlatform, cacheDir: string): string {
  const directory = join(cacheDir, `${platform.nodePackage}-${SEA_NODE_VERSION}`);
  const binary = join(directory, platform.nodeBinary);
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(join(cacheDir, `.${platform.nodePackage}-${SEA_NODE_VERSION}-`));
  try {
    run("npm", ["pack", `${platform.nodePackage}@${SEA_NODE_VERSION}`, "--pack-destination", staging, "--silent"], `fetching ${platform.nodePackage}@${SEA_NODE_VERSION}`);
    const tarball = join(staging, `${platform.nodePackage}-${SEA_NODE_VERSION}.tgz`);
    const integrity = integrityOf(tarball);
    if (integrity !== platform.nodeIntegrity) throw new Error(`${platform.nodePackage}@${SEA_NODE_VERSION} has integrity ${integrity}: expected ${platform.nodeIntegrity}`);
    const unpacked = join(staging, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["-xzf", tarball, "-C", unpacked, platform.nodeBinary], `unpacking ${tarball}`);
    chmodSync(join(unpacked, platform.nodeBinary), 0o755);
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

/**
 * A copy of `binary` (a Node.js build's ELF executable) without its symbols and debug information,
 * kept beside it in the cache: a quarter smaller, and it runs the same. Made by the first of
 * `stripTools` (binutils' strip commands, e.g. `aarch64-linux-gnu-strip` for an arm64 build on an
 * amd64 machine) that is installed and recognises the file; the original when none does (then
 * `stripped` is false, and `missing` names the commands tried). binutils' strip writes the same
 * bytes from the same input, so the copy is as reproducible as the build it comes from.
 */
export function strippedNodeBinary(binary: string, stripTools: ReadonlyArray<string> = ["strip"]): { readonly binary: string; readonly stripped: boolean; readonly missing?: string } {
  const stripped = `${binary}-stripped`;
  if (existsSync(stripped)) return { binary: stripped, stripped: true };
  const partial = `${stripped}.${process.pid}.partial`;
  for (const tool of stripTools) {
    const result = spawnSync(tool, ["--strip-all", "-o", partial, binary], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") continue;
    // another machine's strip: binutils built for one architecture does not know another's ELF files
    if (result.status !== 0 && /Unable to recognise the format|file format not recognized/.test(result.stderr)) {
      rmSync(partial, { force: true });
      continue;
    }
    if (result.error || result.status !== 0) throw new Error(`${tool} --strip-all ${binary} exited ${result.status ?? result.error?.message}: ${result.stderr.trim()}`);
    chmodSync(partial, 0o755);
    renameSync(partial, stripped);
    return { binary: stripped, stripped: true };
  }
  return { binary, stripped: false, missing: stripTools.join(" or ") };
}
