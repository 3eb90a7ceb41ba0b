import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PROTOCOL_VERSION } from "../../contract/plugin-handshake.js";
import { bundleCli, LEFT_OUT_OF_THE_EXECUTABLE } from "./cli-bundle.js";
import { writeMirrorLayouts, type MirrorLayouts } from "./mirror-layouts.js";
import { bundleProvider, type ProviderBundle } from "./provider-bundle.js";
import { packageHashV1, sha256Hex, zipHash } from "./provider-hashes.js";
import { CLI_ZIP_PREFIX, cliExecutableName, cliZipName, executableName, manifestName, PROVIDER_TYPE, releaseZipName, sha256SumsName } from "./release-names.js";
import { bunBinary } from "./bun-build.js";
import { buildBunExecutable } from "./bun-executable.js";
import { trainBytecodeOrder } from "./bytecode-order.js";
import { BUN_VERSION, RELEASE_PLATFORMS, type ReleasePlatform } from "./release-platform.js";
import { writeReleaseZip } from "./release-zip.js";

/** What `converge provider package` is asked to build. */
export interface PackageProviderOptions {
  /** The compiled provider's entry (`dist/src/provider/main.js`). */
  readonly entry: string;
  /** The compiled CLI's entry (`dist/src/cli/main.js`): its single executable `converge` is released beside the provider's. */
  readonly cliEntry: string;
  /** The converge package's root (the directory of its package.json). */
  readonly packageRoot: string;
  readonly version: string;
  readonly outDir: string;
  readonly platforms: ReadonlyArray<ReleasePlatform>;
  /** Where fetched Bun builds are kept. */
  readonly cacheDir: string;
  /** A gpg key (id, fingerprint or e-mail) to sign SHA256SUMS with; no signature without it. */
  readonly signWith?: string | undefined;
  /** terraform's name of the machine packaging, whose Bun builds and whose executables are run once to check them. */
  readonly hostPlatform: string;
  /** The time of every archive entry, in seconds since 1970 UTC (SOURCE_DATE_EPOCH; source-date-epoch.ts). */
  readonly sourceDateEpoch: number;
}

/** One single executable of a release and its archive. */
export interface PackagedExecutable {
  /** The executable (kept under `OUT/executables/PLATFORM/`; the provider's is what `converge provider install` installs). */
  readonly executable: string;
  readonly executableBytes: number;
  readonly zip: string;
  readonly zipBytes: number;
  /** Whether it was run here and answered (the provider: go-plugin's handshake; the CLI: `--version`); only the packaging machine's own platform can be. */
  readonly verified: boolean;
}

/** One platform's part of a release: the provider's executable and archive, and the CLI's. */
export interface PackagedPlatform extends PackagedExecutable {
  readonly platform: string;
  /** `h1:` (the zip's contents) and `zh:` (the zip) hashes of the provider's archive. */
  readonly hashes: ReadonlyArray<string>;
  /** The CLI's single executable `converge` and its archive `converge_VERSION_OS_ARCH.zip`. */
  readonly cli: PackagedExecutable;
}

/** A release as `packageProvider` wrote it. */
export interface ProviderRelease {
  readonly version: string;
  readonly outDir: string;
  /** The Bun the executables are built with and run on (BUN_VERSION). */
  readonly bunVersion: string;
  readonly bundle: ProviderBundle;
  readonly cliBundle: ProviderBundle;
  readonly sourceDateEpoch: number;
  readonly platforms: ReadonlyArray<PackagedPlatform>;
  readonly sha256Sums: string;
  readonly manifest: string;
  /** The detached signature of SHA256SUMS, when a key was given. */
  readonly signature: string | undefined;
  readonly mirrors: MirrorLayouts;
}

/**
 * Builds the release in `outDir`: one bundle of the compiled provider and one of the CLI, per
 * platform a Bun single executable of each and their archives
 * `terraform-provider-converge_VERSION_OS_ARCH.zip` and `converge_VERSION_OS_ARCH.zip`, then
 * `…_manifest.json` (protocol 6.0), `…_SHA256SUMS` of every archive and the manifest (with
 * `--sign-with`, its detached `.sig` by gpg) and the provider's filesystem and network mirror
 * layouts. The host's executables are run once each to check them. Two runs from the same commit,
 * Bun builds give the same files, byte for byte (buildBunExecutable, writeReleaseZip).
 */
export async function packageProvider(options: PackageProviderOptions): Promise<ProviderRelease> {
  const builderPlatform = RELEASE_PLATFORMS.find((platform) => platform.name === options.hostPlatform);
  if (!builderPlatform) throw new Error(`provider package runs on ${RELEASE_PLATFORMS.map((platform) => platform.name).join(", ")}: this machine is ${options.hostPlatform}, for which the npm registry has no Bun ${BUN_VERSION} to build with`);
  if (options.signWith !== undefined) assertSigningKey(options.signWith);

  const outDir = resolve(options.outDir);
  const buildDir = join(outDir, "build");
  // a release directory holds one release: an earlier one's archives, sums or signature would not match this one
  mkdirSync(outDir, { recursive: true });
  for (const entry of readdirSync(outDir)) {
    if (entry.startsWith(`terraform-provider-${PROVIDER_TYPE}_`) || entry.startsWith(CLI_ZIP_PREFIX)) rmSync(join(outDir, entry), { force: true });
  }
  for (const platform of RELEASE_PLATFORMS) rmSync(join(outDir, "executables", platform.name), { recursive: true, force: true });
  mkdirSync(buildDir, { recursive: true });

  const bundle = await bundleProvider({ entry: options.entry, packageRoot: options.packageRoot, outFile: join(buildDir, "terraform-provider-converge.cjs") });
  const cliBundle = await bundleCli({ entry: options.cliEntry, packageRoot: options.packageRoot, outFile: join(buildDir, "converge.cjs"), version: options.version });
  const builder = bunBinary(builderPlatform, options.cacheDir);
  const orders = await bytecodeOrders({ builder, platform: builderPlatform, buildDir, bundle: bundle.file, cliBundle: cliBundle.file, version: options.version, packageRoot: options.packageRoot });

  const platforms: PackagedPlatform[] = [];
  for (const platform of options.platforms) {
    const target = bunBinary(platform, options.cacheDir);
    const executableDir = join(outDir, "executables", platform.name);
    mkdirSync(executableDir, { recursive: true });
    const build = (bundleFile: string, name: string, bytecodeOrder: string, leftOut?: ReadonlyArray<string>) =>
      buildBunExecutable({ builder, target, platform, bundle: bundleFile, output: join(executableDir, name), leftOut, bytecodeOrder });

    const name = executableName(options.version, platform.executableSuffix);
    const executable = build(bundle.file, name, orders.provider);
    const verified = platform.name === options.hostPlatform ? await assertHandshake(executable.file) : false;
    const zip = join(outDir, releaseZipName(options.version, platform.name));
    await writeReleaseZip({ executable: executable.file, name, output: zip, epoch: options.sourceDateEpoch });
    const archive = readFileSync(zip);
    const hashes = [packageHashV1([{ name, data: readFileSync(executable.file) }]), zipHash(archive)];

    const cliName = cliExecutableName(platform.executableSuffix);
    const cliExecutable = build(cliBundle.file, cliName, orders.cli, LEFT_OUT_OF_THE_EXECUTABLE);
    const cliVerified = platform.name === options.hostPlatform ? assertCliVersion(cliExecutable.file, options.version) : false;
    const cliZip = join(outDir, cliZipName(options.version, platform.name));
    await writeReleaseZip({ executable: cliExecutable.file, name: cliName, output: cliZip, epoch: options.sourceDateEpoch });
    const cli = { executable: cliExecutable.file, executableBytes: cliExecutable.bytes, zip: cliZip, zipBytes: statSync(cliZip).size, verified: cliVerified };

    platforms.push({ platform: platform.name, executable: executable.file, executableBytes: executable.bytes, zip, zipBytes: archive.length, hashes, verified, cli });
  }

  const manifest = join(outDir, manifestName(options.version));
  writeFileSync(manifest, `${JSON.stringify({ version: 1, metadata: { protocol_versions: ["6.0"] } }, null, 2)}\n`);
  const sha256Sums = join(outDir, sha256SumsName(options.version));
  const summed = [...platforms.flatMap((platform) => [platform.zip, platform.cli.zip]), manifest].sort((a, b) => (basename(a) < basename(b) ? -1 : 1));
  writeFileSync(sha256Sums, summed.map((file) => `${sha256Hex(readFileSync(file))}  ${basename(file)}\n`).join(""));
  const signature = options.signWith === undefined ? undefined : signDetached(sha256Sums, options.signWith);
  const mirrors = writeMirrorLayouts({ outDir, version: options.version, archives: platforms.map((platform) => ({ platform: platform.platform, zip: platform.zip, hashes: platform.hashes })) });
  return { version: options.version, outDir, bunVersion: BUN_VERSION, bundle, cliBundle, sourceDateEpoch: options.sourceDateEpoch, platforms, sha256Sums, manifest, signature, mirrors };
}

/**
 * How long the provider runs after its handshake line while its bytecode order is recorded: three
 * periods of its check that terraform is still there (a timer of 500 ms, runtime/parent-watch.ts),
 * so that the check has run by the time it is told to stop, however loaded the machine.
 */
const PARENT_WATCH_SETTLE_MS = 1_500;

/** What terraform sets for a provider it starts: go-plugin's magic cookie and the protocol it speaks (the runtime's handshake.ts). */
const AS_TERRAFORM_STARTS_IT = { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: String(PROTOCOL_VERSION) };

/**
 * A certificate for terraform's side of the handshake while the provider's bytecode order is
 * recorded: the provider then runs the path it runs under terraform (its mutual TLS made ready).
 * Its key was not kept; nothing connects with it.
 */
const TRAINING_CLIENT_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBxzCCAW2gAwIBAgIUdGIzV7SwW+d8zUR91hor9N3jfj0wCgYIKoZIzj0EAwIw
ODEiMCAGA1UECgwZY29udmVyZ2UtcmVsZWFzZS10cmFpbmluZzESMBAGA1UEAwwJ
bG9jYWxob3N0MCAXDTI2MTEyODEwMzAwNVoYDzIxMjYxMTA0MTAzMDA1WjA4MSIw
IAYDVQQKDBljb252ZXJnZS1yZWxlYXNlLXRyYWluaW5nMRIwEAYDVQQDDAlsb2Nh
bGhvc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARrSkUyRhglHObododCsI/T
q5/zeENrz0uA9O1tw3mlWgYB6Rg8BSmrwBzf9G//J0ZOUjii7hUQIsPMyNQh0Y0X
o1MwUTAdBgNVHQ4EFgQUwYIHVhK/SJ/mlar877wTJlcQ7mcwHwYDVR0jBBgwFoAU
wYIHVhK/SJ/mlar877wTJlcQ7mcwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
AgNIADBFAiEA/B0gYgZGt4quuCUsrthmc+LgiaQpHayrjkg/rEafpQQCICUOzaP1
6pQioyc31YJIB01AHhvPA3ray+oUKCDh2RSl
-----END CERTIFICATE-----
`;

/**
 * The bytecode orders of the provider and of the CLI (bytecode-order.ts), recorded by executables of
 * this machine's platform built without one, written beside the bundles
 * (`build/terraform-provider-converge.order`, `build/converge.order`): the provider as terraform
 * starts it, up to its handshake line (what every process terraform starts runs); the CLI's
 * `--version`, `--help` and `validate` of the repository's examples (its start and the loading of
 * documents). Those runs are deterministic, so the orders are the same from build to build. Every
 * platform's executables are laid out by them (the same bundle: the same functions).
 */
async function bytecodeOrders(options: { readonly builder: string; readonly platform: ReleasePlatform; readonly buildDir: string; readonly bundle: string; readonly cliBundle: string; readonly version: string; readonly packageRoot: string }): Promise<{ readonly provider: string; readonly cli: string }> {
  const trainees = mkdtempSync(join(options.buildDir, ".trainees-"));
  try {
    const trainee = (bundle: string, name: string, leftOut?: ReadonlyArray<string>) =>
      buildBunExecutable({ builder: options.builder, target: options.builder, platform: options.platform, bundle, output: join(trainees, name), leftOut }).file;
    const provider = join(options.buildDir, "terraform-provider-converge.order");
    await trainBytecodeOrder(trainee(options.bundle, executableName(options.version, options.platform.executableSuffix)), [
      { args: [], env: { ...AS_TERRAFORM_STARTS_IT, PLUGIN_CLIENT_CERT: TRAINING_CLIENT_CERTIFICATE }, stopAfterFirstLineMs: PARENT_WATCH_SETTLE_MS },
    ], provider);
    const cli = join(options.buildDir, "converge.order");
    const examples = join(options.packageRoot, "examples", "desired-state");
    await trainBytecodeOrder(trainee(options.cliBundle, cliExecutableName(options.platform.executableSuffix), LEFT_OUT_OF_THE_EXECUTABLE), [
      { args: ["--version"] },
      { args: ["--help"] },
      { args: ["validate", "-f", examples], env: { NO_COLOR: "1" } },
    ], cli);
    return { provider, cli };
  } finally {
    rmSync(trainees, { recursive: true, force: true });
  }
}

/** Runs the CLI's executable with `--version` and throws with what it printed unless it printed `version`. */
function assertCliVersion(executable: string, version: string): true {
  const result = spawnSync(executable, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" }, timeout: 20_000 });
  if (result.error || result.status !== 0 || result.stdout.trim() !== version) {
    throw new Error(`${executable} --version exited ${result.status ?? result.error?.message} printing ${JSON.stringify(result.stdout.trim())}: expected ${version} (stderr ${JSON.stringify(result.stderr.slice(0, 2000))})`);
  }
  return true;
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
 * (`1|6|unix|…|grpc|…`); throws with what it printed when it does not come within 20 s.
 */
async function assertHandshake(executable: string): Promise<true> {
  return await new Promise<true>((resolveCheck, reject) => {
    const child = spawn(executable, [], {
      env: { PATH: process.env.PATH ?? "", ...AS_TERRAFORM_STARTS_IT },
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
      // SIGTERM: the provider removes its socket's directory as it exits
      child.kill("SIGTERM");
      if (/^1\|6\|(tcp|unix)\|[^|]+\|grpc\|/.test(stdout)) resolveCheck(true);
      else reject(new Error(`${executable} answered ${JSON.stringify(stdout.split("\n")[0])}: expected go-plugin's handshake line 1|6|unix|PATH|grpc|… or 1|6|tcp|ADDRESS|grpc|…`));
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
