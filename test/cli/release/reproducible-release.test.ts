import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseCacheDir } from "../../../src/cli/release/bun-build.js";
import { BUN_VERSION, RELEASE_PLATFORMS } from "../../../src/cli/release/release-platform.js";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";
import { PACKAGE_TIMEOUT_MS } from "./release-fixture.js";

/**
 * Two `converge provider package` runs from the same build give the same release, byte for byte:
 * every file of the two release directories (archives, executables, SHA256SUMS, manifest, mirror
 * layouts, bundles). The runs differ in what must not matter: the output directory's path, the
 * time zone, and how the archive time is given (--source-date-epoch against SOURCE_DATE_EPOCH).
 * Every platform the release knows: the machine's own and those it cross-compiles for from the npm
 * registry's Bun builds.
 */

/** An odd second, so that the 2-second steps of the zip's DOS time show: 2023-11-14T22:13:21Z. */
const EPOCH = 1_700_000_001;
const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, "../../../package.json"), "utf8")) as { version: string }).version;
const PLATFORMS = RELEASE_PLATFORMS.map((platform) => platform.name);

let root: string;
let first: string;
let second: string;
let runs: ProcessResult[];

/** `converge provider package --platforms PLATFORMS --out OUT` with `env` (and the cache of Bun builds). */
function packageRelease(out: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Promise<ProcessResult> {
  return runProcess(process.execPath, [builtCliPath(), "provider", "package", "--platforms", PLATFORMS.join(","), "--out", out, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", CONVERGE_CACHE_DIR: releaseCacheDir(), ...env },
    timeoutMs: PACKAGE_TIMEOUT_MS,
  });
}

/** Every file under `directory`, relative to it, sorted. */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .sort();
}

/** The central directory's entries of a zip: name, DOS time and date fields, extra field length. */
function centralEntries(archive: Buffer): Array<{ readonly name: string; readonly dosTime: number; readonly dosDate: number; readonly extraLength: number }> {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries = [];
  for (let index = 0; index < count; index += 1) {
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    entries.push({ name: archive.toString("utf8", offset + 46, offset + 46 + nameLength), dosTime: archive.readUInt16LE(offset + 12), dosDate: archive.readUInt16LE(offset + 14), extraLength });
    offset += 46 + nameLength + extraLength + archive.readUInt16LE(offset + 32);
  }
  return entries;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "converge-reproducible-"));
  first = join(root, "first");
  second = join(root, "a", "longer", "path", "second");
  mkdirSync(second, { recursive: true });
  // the two at once: on a machine with cores to spare, the test takes the time of one
  runs = await Promise.all([
    packageRelease(first, ["--source-date-epoch", String(EPOCH)], { TZ: "UTC" }),
    packageRelease(second, [], { SOURCE_DATE_EPOCH: String(EPOCH), TZ: "Pacific/Chatham" }),
  ]);
}, PACKAGE_TIMEOUT_MS * 2);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("a release packaged twice", () => {
  it(`gives the same files, byte for byte (${PLATFORMS.join(", ")}: provider and CLI executables and archives, SHA256SUMS, manifest, mirrors)`, () => {
    for (const run of runs) expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
    for (const run of runs) expect(run.stdout).toContain(`: Bun ${BUN_VERSION} single executables of the provider`);
    const files = filesUnder(first);
    expect(filesUnder(second)).toEqual(files);
    for (const platform of PLATFORMS) {
      expect(files).toEqual(expect.arrayContaining([`terraform-provider-converge_${VERSION}_${platform}.zip`, `converge_${VERSION}_${platform}.zip`, `executables/${platform}/converge${platform.startsWith("windows") ? ".exe" : ""}`]));
    }
    const differing = files.filter((file) => !readFileSync(join(first, file)).equals(readFileSync(join(second, file))));
    expect(differing).toEqual([]);
    const sums = readFileSync(join(first, `terraform-provider-converge_${VERSION}_SHA256SUMS`), "utf8");
    expect(sums.trim().split("\n").map((line) => line.split("  ")[1]).sort()).toEqual([
      ...PLATFORMS.flatMap((platform) => [`converge_${VERSION}_${platform}.zip`, `terraform-provider-converge_${VERSION}_${platform}.zip`]),
      `terraform-provider-converge_${VERSION}_manifest.json`,
    ].sort());
  }, PACKAGE_TIMEOUT_MS); // 2 × 10 executables of about 110 MB and their zips, read and compared

  it("carries the epoch in every archive entry's DOS date and time fields, as UTC, the odd second rounded down, with no extended timestamp", () => {
    // 2023-11-14T22:13:21Z: date (2023 - 1980) << 9 | 11 << 5 | 14, time 22 << 11 | 13 << 5 | 20 / 2
    const expected = { dosDate: (43 << 9) | (11 << 5) | 14, dosTime: (22 << 11) | (13 << 5) | 10, extraLength: 0 };
    const archives = filesUnder(first).filter((file) => !file.includes("/") && file.endsWith(".zip"));
    expect(archives).toHaveLength(PLATFORMS.length * 2);
    for (const archive of archives) {
      const entries = centralEntries(readFileSync(join(first, archive)));
      expect(entries, archive).toHaveLength(1);
      expect(entries[0], archive).toMatchObject(expected);
    }
    expect(runs[0]!.stdout).toContain("archive times 2023-11-14T22:13:21.000Z (UTC)");
  });
});

/** Archive times `provider package` refuses: from the flag or the environment. */
const REFUSED_EPOCHS: ReadonlyArray<{ readonly what: string; readonly args: ReadonlyArray<string>; readonly env: Readonly<Record<string, string>>; readonly message: string }> = [
  { what: "a flag that is not a number", args: ["--source-date-epoch", "yesterday"], env: {}, message: '--source-date-epoch "yesterday" is not a number of seconds: expected whole seconds since 1970-01-01T00:00:00Z' },
  { what: "a fraction", args: ["--source-date-epoch", "1700000000.5"], env: {}, message: '--source-date-epoch "1700000000.5" is not a number of seconds' },
  { what: "a time before 1980, which a zip entry cannot carry", args: ["--source-date-epoch", "0"], env: {}, message: "--source-date-epoch 0 is outside what a zip entry's time can hold: expected whole seconds since 1970-01-01T00:00:00Z from 315532800 (1980-01-01" },
  { what: "a negative SOURCE_DATE_EPOCH", args: [], env: { SOURCE_DATE_EPOCH: "-5" }, message: 'SOURCE_DATE_EPOCH "-5" is not a number of seconds' },
  { what: "a SOURCE_DATE_EPOCH after 2107", args: [], env: { SOURCE_DATE_EPOCH: "4354819200" }, message: "SOURCE_DATE_EPOCH 4354819200 is outside what a zip entry's time can hold" },
];

describe("converge provider package --source-date-epoch", () => {
  it.each(REFUSED_EPOCHS)("refuses $what, naming where it came from and the value, before building anything", async ({ args, env, message }) => {
    const out = join(root, "refused");
    const run = await packageRelease(out, args, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`converge: provider package: ${message}`);
    expect(existsSync(join(out, "build"))).toBe(false);
  });
});
