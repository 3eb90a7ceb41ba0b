import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

import { writeMirrorLayouts, type MirrorLayouts } from "./mirror-layouts.js";
import { bundleProvider, type ProviderBundle } from "./provider-bundle.js";
import { packageHashV1, sha256Hex, zipHash } from "./provider-hashes.js";
import { executableName, manifestName, PROVIDER_TYPE, releaseZipName, sha256SumsName } from "./release-names.js";
import { RELEASE_PLATFORMS, SEA_NODE_VERSION, type ReleasePlatform } from "./release-platform.js";
import { writeReleaseZip } from "./release-zip.js";
import { buildSeaExecutable } from "./sea-executable.js";
import { seaNodeBinary, strippedNodeBinary } from "./sea-node.js";

/** What `converge provider package` is asked to build. */
export interface PackageProviderOptions {
  /** The compiled provider's entry (`dist/src/provider/main.js`). */
  readonly entry: string;
  /** The converge package's root (the directory of its package.json). */
  readonly packageRoot: string;
  readonly version: string;
  readonly outDir: string;
  readonly platforms: ReadonlyArray<ReleasePlatform>;
  /** Where fetched Node.js builds are kept. */
  readonly cacheDir: string;
  /** A gpg key (id, fingerprint or e-mail) to sign SHA256SUMS with; no signature without it. */
  readonly signWith?: string | undefined;
  /** Build the packaging machine's executable with a V8 startup snapshot (faster start, not byte-reproducible). */
  readonly codeCache: boolean;
  /** terraform's name of the machine packaging, whose executable is built with a code cache and run once to check it. */
  readonly hostPlatform: string;
}

/** One platform's part of a release. */
export interface PackagedPlatform {
  readonly platform: string;
  /** The single executable (kept under `OUT/executables/PLATFORM/`, what `converge provider install` installs). */
  readonly executable: string;
  readonly executableBytes: number;
  readonly codeCache: boolean;
  /** Whether it starts from a V8 startup snapshot (the packaging machine's own platform, unless `--no-code-cache`). */
  readonly snapshot: boolean;
  /** Whether its Node.js was stripped of symbols first (the packaging machine's own platform, when binutils' strip is installed). */
  readonly stripped: boolean;
  readonly zip: string;
  readonly zipBytes: number;
  /** `h1:` (the zip's contents) and `zh:` (the zip) hashes. */
  readonly hashes: ReadonlyArray<string>;
  /** Whether the executable was run here and answered go-plugin's handshake (only the packaging machine's own platform can be). */
  readonly verified: boolean;
}

/** A release as `packageProvider` wrote it. */
export interface ProviderRelease {
  readonly version: string;
  readonly outDir: string;
  readonly nodeVersion: string;
  readonly bundle: ProviderBundle;
  readonly platforms: ReadonlyArray<PackagedPlatform>;
  readonly sha256Sums: string;
  readonly manifest: string;
  /** The detached signature of SHA256SUMS, when a key was given. */
  readonly signature: string | undefined;
  readonly mirrors: MirrorLayouts;
}

/**
 * Builds the provider's release in `outDir`: one bundle of the compiled provider, per platform a
 * Node.js single executable of it and `terraform-provider-converge_VERSION_OS_ARCH.zip`, then
 * `…_manifest.json` (protocol 6.0), `…_SHA256SUMS` (with `--sign-with`, its detached `.sig` by gpg)
 * and the filesystem and network mirror layouts. The host's executable is run once to check that it
 * completes go-plugin's handshake.
 */
export async function packageProvider(options: PackageProviderOptions): Promise<ProviderRelease> {
  const builderPlatform = RELEASE_PLATFORMS.find((platform) => platform.name === options.hostPlatform);
  if (!builderPlatform) throw new Error(`provider package runs on ${RELEASE_PLATFORMS.map((platform) => platform.name).join(", ")}: this machine is ${options.hostPlatform}, for which the npm registry has no Node.js ${SEA_NODE_VERSION} to build with`);
  if (options.signWith !== undefined) assertSigningKey(options.signWith);

  const outDir = resolve(options.outDir);
  const buildDir = join(outDir, "build");
  // a release directory holds one release: an earlier one's archives, sums or signature would not match this one
  mkdirSync(outDir, { recursive: true });
  for (const entry of readdirSync(outDir)) {
    if (entry.startsWith(`terraform-provider-${PROVIDER_TYPE}_`)) rmSync(join(outDir, entry), { force: true });
  }
  for (const platform of RELEASE_PLATFORMS) rmSync(join(outDir, "executables", platform.name), { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });

  const bundle = await bundleProvider({ entry: options.entry, packageRoot: options.packageRoot, outFile: join(buildDir, "terraform-provider-converge.cjs") });
  const builder = seaNodeBinary(builderPlatform, options.cacheDir);

  const platforms: PackagedPlatform[] = [];
  for (const platform of options.platforms) {
    const native = platform.name === builderPlatform.name;
    const target = native ? strippedNodeBinary(builder) : { binary: seaNodeBinary(platform, options.cacheDir), stripped: false };
    const name = executableName(options.version, platform.executableSuffix);
    const executableDir = join(outDir, "executables", platform.name);
    mkdirSync(executableDir, { recursive: true });
    const executable = buildSeaExecutable({
      builder,
      target: target.binary,
      bundle: bundle.file,
      output: join(executableDir, name),
      configFile: join(buildDir, `sea-config-${platform.name}.json`),
      codeCache: options.codeCache && native,
      snapshot: options.codeCache && native,
    });
    const verified = platform.name === options.hostPlatform ? await assertHandshake(executable.file) : false;
    const zip = join(outDir, releaseZipName(options.version, platform.name));
    await writeReleaseZip({ executable: executable.file, name, output: zip });
    const archive = readFileSync(zip);
    const hashes = [packageHashV1([{ name, data: readFileSync(executable.file) }]), zipHash(archive)];
    platforms.push({ platform: platform.name, executable: executable.file, executableBytes: executable.bytes, codeCache: executable.codeCache, snapshot: executable.snapshot, stripped: target.stripped, zip, zipBytes: archive.length, hashes, verified });
  }

  const manifest = join(outDir, manifestName(options.version));
  writeFileSync(manifest, `${JSON.stringify({ version: 1, metadata: { protocol_versions: ["6.0"] } }, null, 2)}\n`);
  const sha256Sums = join(outDir, sha256SumsName(options.version));
  const summed = [...platforms.map((platform) => platform.zip), manifest].sort((a, b) => (basename(a) < basename(b) ? -1 : 1));
  writeFileSync(sha256Sums, summed.map((file) => `${sha256Hex(readFileSync(file))}  ${basename(file)}\n`).join(""));
  const signature = options.signWith === undefined ? undefined : signDetached(sha256Sums, options.signWith);
  const mirrors = writeMirrorLayouts({ outDir, version: options.version, archives: platforms.map((platform) => ({ platform: platform.platform, zip: platform.zip, hashes: platform.hashes })) });
  return { version: options.version, outDir, nodeVersion: SEA_NODE_VERSION, bundle, platforms, sha256Sums, manifest, signature, mirrors };
}

function assertSigningKey(key: string): void {
  const found = spawnSync("gpg", ["--batch", "--list-secret-keys", key], { encoding: "utf8" });
  if (found.error) throw new Error(`--sign-with "${key}" needs gpg: ${found.error.message}`);
  if (found.status !== 0) throw new Error(`--sign-with "${key}": gpg has no secret key of that name in ${process.env.GNUPGHOME ?? "~/.gnupg"} (gpg --list-secret-keys exited ${found.status})`);
}

function signDetached(file: string, key: string): string {
  const signature = `${file}.sig`;
  rmSync(signature, { force: true });
  const signed = spawnSync("gpg", ["--batch", "--yes", "--local-user", key, "--output", signature, "--detach-sign", file], { encoding: "utf8" });
  if (signed.error || signed.status !== 0) throw new Error(`gpg could not sign ${file} with "${key}": ${signed.error?.message ?? signed.stderr.trim()}`);
  return signature;
}

/**
 * Runs `executable` as terraform starts a provider and waits for go-plugin's handshake line
 * (`1|6|tcp|…|grpc|…`); throws with what it printed when it does not come within 20 s.
 */
async function assertHandshake(executable: string): Promise<true> {
  return await new Promise<true>((resolveCheck, reject) => {
    const child = spawn(executable, [], {
      env: { PATH: process.env.PATH ?? "", TF_PLUGIN_MAGIC_COOKIE: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2", PLUGIN_PROTOCOL_VERSIONS: "6" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${executable} printed no handshake within 20 s: stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr.slice(0, 2000))}`));
    }, 20_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes("\n")) return;
      clearTimeout(timer);
      child.kill("SIGKILL");
      if (/^1\|6\|(tcp|unix)\|[^|]+\|grpc\|/.test(stdout)) resolveCheck(true);
      else reject(new Error(`${executable} answered ${JSON.stringify(stdout.split("\n")[0])}: expected go-plugin's handshake line 1|6|tcp|ADDRESS|grpc|…`));
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`${executable} could not be started: ${error.message}`));
    });
    child.once("exit", (code) => {
      if (stdout.includes("\n")) return;
      clearTimeout(timer);
      reject(new Error(`${executable} exited ${code} before its handshake: ${stderr.slice(0, 2000)}`));
    });
  });
}
