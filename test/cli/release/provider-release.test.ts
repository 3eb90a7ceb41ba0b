import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageHashV1, sha256Hex, zipHash } from "../../../src/cli/release/provider-hashes.js";
import { RELEASE_PLATFORMS } from "../../../src/cli/release/release-platform.js";
import { writeReleaseZip } from "../../../src/cli/release/release-zip.js";
import { bunBinary, releaseCacheDir } from "../../../src/cli/release/bun-build.js";
import { buildBunExecutable } from "../../../src/cli/release/bun-executable.js";
import { runProcess } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";
import { useWorld } from "../../support/world.js";
import { describeTerraform, ORDERS_API, providerBlock, providerService, TERRAFORM_TEST_TIMEOUT_MS, TOKEN, zipEntries } from "../../provider/terraform-fixture.js";
import { NodelessTerraformDir, PACKAGE_TIMEOUT_MS, runWithoutNode, testRelease, writeHideNodeScript, type TestRelease } from "./release-fixture.js";

/**
 * The provider as a release: `converge provider package` (once per build, shared with the other
 * test files through release-fixture.ts), then every way terraform installs a provider, each with
 * only the release's files copied into an empty directory and run by real terraform 1.11 in a mount
 * namespace where Node.js and this checkout are hidden: init, apply, a no-change plan, destroy
 * against the embedded service this test file starts on port 0.
 */

const PROVIDER_DIR = "registry.terraform.io/converge/converge";
let release: TestRelease;
const { service } = useWorld(providerService());
let root: string;
let hideScript: string;
/** The release's archive: the bytes every installation way starts from. */
let zip: Buffer;
let entryName: string;

beforeAll(async () => {
  release = await testRelease();
  root = mkdtempSync(join(tmpdir(), "converge-release-"));
  hideScript = writeHideNodeScript(root);
  zip = readFileSync(release.zip);
  entryName = `terraform-provider-converge_v${release.version}`;
}, PACKAGE_TIMEOUT_MS);

afterAll(async () => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A directory under this file's temporary root with its own HOME and CLI configuration (`cliConfig`, empty unless given). */
function workspace(name: string, cliConfig = ""): { readonly root: string; readonly home: string; readonly cliConfig: string } {
  const dir = join(root, name);
  mkdirSync(join(dir, "home"), { recursive: true });
  writeFileSync(join(dir, "cli.tfrc"), cliConfig);
  return { root: dir, home: join(dir, "home"), cliConfig: join(dir, "cli.tfrc") };
}

/** A working directory of `space` whose provider talks to the service, and a configuration of one route of its own. */
function workingDir(space: ReturnType<typeof workspace>, routeKey: string, env: Readonly<Record<string, string>> = {}): NodelessTerraformDir {
  const work = new NodelessTerraformDir(space, "work", { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: TOKEN, ...env }, hideScript);
  work.write(`${providerBlock()}\nresource "converge_route" "release" {\n  api_id    = "${ORDERS_API}"\n  route_key = "${routeKey}"\n}\n`);
  return work;
}

/** init, apply, a plan that finds nothing to change (exit 0 with -detailed-exitcode), destroy: each must succeed. */
async function lifecycle(work: NodelessTerraformDir, routeKey: string): Promise<void> {
  const init = await work.init();
  expect(init.code, describeTerraform(init)).toBe(0);
  const apply = await work.apply();
  expect(apply.code, describeTerraform(apply)).toBe(0);
  expect(apply.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
  expect(work.attributes("converge_route.release")).toMatchObject({ api_id: ORDERS_API, route_key: routeKey });
  const plan = await work.plan();
  expect(plan.code, describeTerraform(plan)).toBe(0);
  expect(plan.stdout).toContain("No changes.");
  const destroy = await work.destroy();
  expect(destroy.code, describeTerraform(destroy)).toBe(0);
  expect(destroy.stdout).toContain("Destroy complete! Resources: 1 destroyed.");
}

const filesystemMirrorConfig = (path: string) => `provider_installation {\n  filesystem_mirror {\n    path    = "${path}"\n    include = ["converge/converge"]\n  }\n}\n`;

/** A packed filesystem mirror under `dir` holding `archive` as the release's zip. */
function packedMirror(dir: string, archive: Buffer): string {
  mkdirSync(join(dir, PROVIDER_DIR), { recursive: true });
  writeFileSync(join(dir, PROVIDER_DIR, basename(release.zip)), archive);
  return dir;
}

/** The hashes a lock file records for converge's provider. */
function lockedHashes(lockFile: string): string[] {
  const block = /provider "registry\.terraform\.io\/converge\/converge" \{[\s\S]*?\n\}/.exec(readFileSync(lockFile, "utf8"))?.[0] ?? "";
  return [...block.matchAll(/"((?:h1|zh):[^"]+)"/g)].map((match) => match[1]!).sort();
}

describe("converge provider package", () => {
  it("writes one zip of the single executable (mode 0755), SHA256SUMS of the provider's and the CLI's zips and the manifest, signed, and the manifest of protocol 6.0", async () => {
    const entries = zipEntries(zip);
    expect(entries.map((entry) => entry.name)).toEqual([entryName]);
    expect(entries[0]!.data.equals(readFileSync(release.executable))).toBe(true);
    expect(entries[0]!.data.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    expect(execFileSync("zipinfo", [release.zip, entryName], { encoding: "utf8" })).toMatch(/^-rwxr-xr-x /);

    const manifest = join(release.outDir, `terraform-provider-converge_${release.version}_manifest.json`);
    expect(JSON.parse(readFileSync(manifest, "utf8"))).toEqual({ version: 1, metadata: { protocol_versions: ["6.0"] } });
    const sums = join(release.outDir, `terraform-provider-converge_${release.version}_SHA256SUMS`);
    const cliZip = join(release.outDir, `converge_${release.version}_linux_amd64.zip`);
    expect(readFileSync(sums, "utf8")).toBe(`${sha256Hex(readFileSync(cliZip))}  ${basename(cliZip)}\n${sha256Hex(zip)}  ${basename(release.zip)}\n${sha256Hex(readFileSync(manifest))}  ${basename(manifest)}\n`);

    const gnupgHome = mkdtempSync(join(tmpdir(), "converge-gpg-verify-"));
    try {
      const env = { ...process.env, GNUPGHOME: gnupgHome };
      execFileSync("gpg", ["--batch", "--import", release.publicKey], { env, stdio: "ignore" });
      const verified = (file: string) => runProcess("gpg", ["--batch", "--verify", `${sums}.sig`, file], { env: { PATH: process.env.PATH ?? "", GNUPGHOME: gnupgHome } });
      const [good, wrong] = await Promise.all([verified(sums), verified(manifest)]);
      expect(good.code, good.stderr).toBe(0);
      expect(good.stderr).toContain("Good signature");
      expect(wrong.code).not.toBe(0);
    } finally {
      execFileSync("gpgconf", ["--kill", "gpg-agent"], { env: { ...process.env, GNUPGHOME: gnupgHome } });
      rmSync(gnupgHome, { recursive: true, force: true });
    }
  });

  it("writes the mirror layouts: the packed zip, index.json and VERSION.json with the archive's h1: and zh: hashes", () => {
    const network = join(release.outDir, "network-mirror", PROVIDER_DIR);
    expect(readFileSync(join(release.outDir, "filesystem-mirror", PROVIDER_DIR, basename(release.zip))).equals(zip)).toBe(true);
    expect(readFileSync(join(network, basename(release.zip))).equals(zip)).toBe(true);
    expect(JSON.parse(readFileSync(join(network, "index.json"), "utf8"))).toEqual({ versions: { [release.version]: {} } });
    const h1 = packageHashV1(zipEntries(zip));
    expect(JSON.parse(readFileSync(join(network, `${release.version}.json`), "utf8"))).toEqual({
      archives: { linux_amd64: { url: basename(release.zip), hashes: [h1, zipHash(zip)] } },
    });
  });

  it("zips the same executable to the same bytes (fixed times)", async () => {
    const again = join(root, "again.zip");
    await writeReleaseZip({ executable: release.executable, name: entryName, output: again });
    expect(readFileSync(again).equals(zip)).toBe(true);
  }, PACKAGE_TIMEOUT_MS);

  it("builds the same executable from the same bundle and bytecode order, byte for byte, in two directories, as the release's own, leaving nothing of the build beside it", async () => {
    const platform = RELEASE_PLATFORMS[0]!;
    const bun = bunBinary(platform, releaseCacheDir());
    const bundle = join(release.outDir, "build", "terraform-provider-converge.cjs");
    const bytecodeOrder = join(release.outDir, "build", "terraform-provider-converge.order");
    const build = (directory: string) => buildBunExecutable({ builder: bun, target: bun, platform, bundle, bytecodeOrder, output: join(root, directory, basename(release.executable)) });
    mkdirSync(join(root, "one"));
    mkdirSync(join(root, "two", "deeper"), { recursive: true });
    const [first, second] = [build("one"), build("two/deeper")];
    expect(sha256Hex(readFileSync(first.file))).toBe(sha256Hex(readFileSync(second.file)));
    expect(sha256Hex(readFileSync(first.file))).toBe(sha256Hex(readFileSync(release.executable)));
    expect(readdirSync(join(root, "one"))).toEqual([basename(release.executable)]);
    const started = await runProcess(first.file, [], { env: { PATH: process.env.PATH ?? "" } });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain("is a terraform provider plugin");
  }, PACKAGE_TIMEOUT_MS);

  it("rejects an unknown platform and a signing key gpg does not have, naming them, before building anything", async () => {
    const out = join(root, "rejected");
    const cli = (args: string[]) => runProcess(process.execPath, [builtCliPath(), "provider", "package", "--out", out, ...args], { env: { PATH: process.env.PATH ?? "", HOME: root, GNUPGHOME: join(root, "no-gnupg") } });
    const platform = await cli(["--platforms", "linux_amd64,plan9_mips"]);
    expect(platform.code).toBe(1);
    expect(platform.stderr).toContain('--platforms names "plan9_mips": expected one of linux_amd64, linux_arm64, darwin_amd64, darwin_arm64, windows_amd64');
    const key = await cli(["--sign-with", "nobody@example.invalid"]);
    expect(key.code).toBe(1);
    expect(key.stderr).toContain('--sign-with "nobody@example.invalid": gpg has no secret key of that name');
    expect(existsSync(join(out, basename(release.zip)))).toBe(false);
  });
});

describe("the release installed every way terraform installs a provider, with Node.js hidden", () => {
  it("hides Node.js and the checkout from what runs in the namespace", async () => {
    const probe = await runWithoutNode(hideScript, "sh", ["-c", `node -e 'process.exit(0)'; echo "node: $?"; ls -A '${release.outDir}' | wc -l`], { env: { PATH: process.env.PATH ?? "" } });
    expect(probe.code, probe.stderr).toBe(0);
    expect(probe.stdout).toMatch(/^node: 12[67]\n0\n$/);
  });

  it("runs committed in the working directory under terraform.d/plugins, with no CLI configuration (HCP Terraform's way)", async () => {
    const space = workspace("committed");
    const work = workingDir(space, "GET /release-committed");
    const platformDir = work.path(`terraform.d/plugins/${PROVIDER_DIR}/${release.version}/linux_amd64`);
    mkdirSync(platformDir, { recursive: true });
    for (const entry of zipEntries(zip)) writeFileSync(join(platformDir, entry.name), entry.data, { mode: 0o755 });
    await lifecycle(work, "GET /release-committed");
  }, TERRAFORM_TEST_TIMEOUT_MS);

  it("installs from a filesystem_mirror of the packed layout", async () => {
    const mirror = packedMirror(join(root, "fs-mirror"), zip);
    const space = workspace("filesystem-mirror", filesystemMirrorConfig(mirror));
    const work = workingDir(space, "GET /release-fs-mirror");
    await lifecycle(work, "GET /release-fs-mirror");
    expect(lockedHashes(work.path(".terraform.lock.hcl"))).toEqual([packageHashV1(zipEntries(zip))]);
  }, TERRAFORM_TEST_TIMEOUT_MS);

  it("installs from a network_mirror over HTTPS (a throwaway CA through SSL_CERT_FILE), accepting VERSION.json's hashes and refusing the zip when they are others", async () => {
    const tls = throwawayTls(join(root, "tls"));
    const served = join(root, "network-mirror");
    cpSync(join(release.outDir, "network-mirror"), served, { recursive: true });
    const requested: string[] = [];
    const server = await serveFiles(served, tls, requested);
    try {
      const port = (server.address() as AddressInfo).port;
      const space = workspace("network-mirror", `provider_installation {\n  network_mirror {\n    url = "https://localhost:${port}/"\n  }\n}\n`);
      const work = workingDir(space, "GET /release-network-mirror", { SSL_CERT_FILE: tls.caFile });
      await lifecycle(work, "GET /release-network-mirror");
      expect(requested).toEqual(expect.arrayContaining([`/${PROVIDER_DIR}/index.json`, `/${PROVIDER_DIR}/${release.version}.json`, `/${PROVIDER_DIR}/${basename(release.zip)}`]));
      const versionFile = join(served, PROVIDER_DIR, `${release.version}.json`);
      const listed = (JSON.parse(readFileSync(versionFile, "utf8")) as { archives: Record<string, { hashes: string[] }> }).archives.linux_amd64!.hashes;
      // terraform records the h1: hash it computed of what it installed, which must be one VERSION.json lists
      expect(lockedHashes(work.path(".terraform.lock.hcl"))).toEqual([listed.find((hash) => hash.startsWith("h1:"))]);

      // and it checks the zip against them: listing other hashes makes the same zip refused
      const other = { archives: { linux_amd64: { url: basename(release.zip), hashes: [packageHashV1([{ name: entryName, data: Buffer.from("another executable") }]), zipHash(Buffer.from("another zip"))] } } };
      writeFileSync(versionFile, JSON.stringify(other));
      const refused = workingDir(workspace("network-mirror-refused", readFileSync(space.cliConfig, "utf8")), "GET /release-network-refused", { SSL_CERT_FILE: tls.caFile });
      const init = await refused.init();
      expect(init.code, describeTerraform(init)).toBe(1);
      expect(`${init.stdout}${init.stderr}`.replace(/\s+/g, " ")).toContain("provider package doesn't match the any of the expected checksums");
    } finally {
      await new Promise((resolveClose) => server.close(resolveClose));
    }
  }, TERRAFORM_TEST_TIMEOUT_MS);

  it("records the hashes with providers lock -fs-mirror -platform, verifies them at init, and refuses a zip changed by one byte", async () => {
    const mirror = packedMirror(join(root, "lock-mirror"), zip);
    const space = workspace("lock", filesystemMirrorConfig(mirror));
    const work = workingDir(space, "GET /release-lock");
    const lock = await work.run(["providers", "lock", "-no-color", `-fs-mirror=${mirror}`, "-platform=linux_amd64", "converge/converge"]);
    expect(lock.code, describeTerraform(lock)).toBe(0);
    const recorded = lockedHashes(work.path(".terraform.lock.hcl"));
    expect(recorded).toContain(packageHashV1(zipEntries(zip)));
    await lifecycle(work, "GET /release-lock");
    expect(lockedHashes(work.path(".terraform.lock.hcl"))).toEqual(recorded);

    const changed = join(root, "changed-executable");
    copyFileSync(release.executable, changed);
    const bytes = readFileSync(changed);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
    writeFileSync(changed, bytes);
    const tamperedZip = join(root, "tampered.zip");
    await writeReleaseZip({ executable: changed, name: entryName, output: tamperedZip });
    const tamperedMirror = packedMirror(join(root, "tampered-mirror"), readFileSync(tamperedZip));
    const tamperedSpace = workspace("tampered", filesystemMirrorConfig(tamperedMirror));
    const tampered = workingDir(tamperedSpace, "GET /release-tampered");
    copyFileSync(work.path(".terraform.lock.hcl"), tampered.path(".terraform.lock.hcl"));
    const init = await tampered.init();
    expect(init.code, describeTerraform(init)).toBe(1);
    expect(`${init.stdout}${init.stderr}`.replace(/\s+/g, " ")).toMatch(/doesn't match any of the checksums previously recorded in the dependency lock file/);
    expect(existsSync(tampered.path(`.terraform/providers/${PROVIDER_DIR}`))).toBe(false);
  }, TERRAFORM_TEST_TIMEOUT_MS * 2);

  it("is what converge provider install --from installs into terraform's implied local mirror, with no CLI configuration", async () => {
    const space = workspace("provider-install");
    const install = await runProcess(process.execPath, [builtCliPath(), "provider", "install", "--from", release.outDir], { env: { PATH: process.env.PATH ?? "", HOME: space.home }, timeoutMs: 60_000 });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain(`the single executable ${release.executable}: no Node.js needed where it runs`);
    const installed = join(space.home, ".terraform.d/plugins", PROVIDER_DIR, release.version, "linux_amd64", entryName);
    expect(statSync(installed).mode & 0o777).toBe(0o755);
    expect(readFileSync(installed).equals(readFileSync(release.executable))).toBe(true);
    await lifecycle(workingDir(space, "GET /release-install"), "GET /release-install");
  }, TERRAFORM_TEST_TIMEOUT_MS);

  it("refuses provider install --from a directory with no executable for this platform, naming it", async () => {
    const empty = join(root, "no-release");
    mkdirSync(empty, { recursive: true });
    const install = await runProcess(process.execPath, [builtCliPath(), "provider", "install", "--from", empty], { env: { PATH: process.env.PATH ?? "", HOME: join(root, "no-release-home") } });
    expect(install.code).toBe(1);
    expect(install.stderr).toContain(`--from ${empty} has no executable for linux_amd64 at version ${release.version}`);
  });
});

/** A throwaway CA and a certificate it signed for localhost and 127.0.0.1, made with openssl under `dir`. */
function throwawayTls(dir: string): { readonly caFile: string; readonly key: string; readonly cert: string } {
  mkdirSync(dir, { recursive: true });
  const openssl = (args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=converge test CA", "-days", "1", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
  writeFileSync(join(dir, "server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "1", "-extfile", "server.ext"]);
  return { caFile: join(dir, "ca.pem"), key: readFileSync(join(dir, "server.key"), "utf8"), cert: readFileSync(join(dir, "server.pem"), "utf8") };
}

/** An HTTPS server on 127.0.0.1 port 0 answering GETs of the files under `dir`, each request path recorded in `requested`. */
function serveFiles(dir: string, tls: { readonly key: string; readonly cert: string }, requested: string[]): Promise<Server> {
  const server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "https://localhost").pathname);
    requested.push(path);
    const file = join(dir, normalize(path));
    if (request.method !== "GET" || !file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": file.endsWith(".json") ? "application/json" : "application/zip" }).end(readFileSync(file));
  });
  return new Promise((resolveListen) => server.listen(0, "127.0.0.1", () => resolveListen(server)));
}
