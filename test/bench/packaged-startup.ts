import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { bunBinary, releaseCacheDir } from "../../src/cli/release/bun-build.js";
import { buildBunExecutable } from "../../src/cli/release/bun-executable.js";
import { RELEASE_PLATFORMS, type ReleasePlatform } from "../../src/cli/release/release-platform.js";
import { handshakeMs } from "./handshake.js";

/**
 * The handshake (start to go-plugin's line on stdout, as terraform starts a provider) of converge's
 * provider in each form, in rounds of one start of each (RUNS rounds): the development wrapper's
 * Node.js on the compiled provider, Bun on the release's bundle, and single executables of that
 * bundle built here: the release's flags without `--bytecode`, without `--bytecode-order`, and with
 * Bun's x64 build that needs AVX2 instead of the baseline build the release takes; then the
 * release's own executable. Each flag the release chose is measured here against its absence
 * (docs/manual/benchmarks.md).
 * `node dist/test/bench/packaged-startup.js RELEASE_DIR [RUNS]` after `converge provider package --out RELEASE_DIR`.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const releaseDir = resolve(process.argv[2] ?? join(ROOT, "dist/release"));
const runs = Number(process.argv[3] ?? 20);
const executable = join(releaseDir, "executables/linux_amd64/terraform-provider-converge_v0.1.0");
const bundle = join(releaseDir, "build/terraform-provider-converge.cjs");
const order = join(releaseDir, "build/terraform-provider-converge.order");
if (!existsSync(executable) || !existsSync(bundle)) throw new Error(`no release in ${releaseDir}: expected ${executable} and ${bundle} (converge provider package --out ${releaseDir})`);

/** Bun's x64 build that needs AVX2 (the release takes the baseline build: release-platform.ts). */
const AVX2_LINUX: ReleasePlatform = {
  ...RELEASE_PLATFORMS[0]!,
  bunPackage: "@oven/bun-linux-x64",
  bunIntegrity: "sha512-CHbbkmHVM28T1GFq+6GL4Ao4ujwwYwj1CxFFwEFzLanPfNsId9AhbIP0Q4reWuWBkGimUkoQygrK7Rgjtj3vog==",
  bunTarget: "bun-linux-x64",
};

/** Each form once per round, RUNS rounds (so that a change of the machine's load falls on all alike), then each one's median and spread. */
async function measureInterleaved(forms: ReadonlyArray<{ readonly what: string; readonly command: string; readonly args?: ReadonlyArray<string> }>): Promise<void> {
  const times = forms.map(() => [] as number[]);
  for (const form of forms) await handshakeMs([form.command, ...(form.args ?? [])]);
  for (let run = 0; run < runs; run++) {
    for (const [index, form] of forms.entries()) times[index]!.push(await handshakeMs([form.command, ...(form.args ?? [])]));
  }
  for (const [index, form] of forms.entries()) {
    const sorted = times[index]!.sort((a, b) => a - b);
    const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
    console.log(`${form.what}, ${runs} runs: median ${at(0.5).toFixed(1)} ms (min ${sorted[0]!.toFixed(1)}, p90 ${at(0.9).toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)})`);
  }
}

const platform = RELEASE_PLATFORMS[0]!;
const bun = bunBinary(platform, releaseCacheDir());
const scratch = mkdtempSync(join(tmpdir(), "converge-startup-"));
try {
  // the release's flags but --bytecode: the same bundle, compiled by hand
  const withoutBytecode = join(scratch, "no-bytecode");
  const plain = spawnSync(bun, ["build", "--compile", "--format=cjs", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", `--outfile=${withoutBytecode}`, bundle], { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: scratch } });
  if (plain.status !== 0) throw new Error(`bun build without --bytecode exited ${plain.status}: ${plain.stderr}`);
  const avx2Bun = bunBinary(AVX2_LINUX, releaseCacheDir());
  const avx2 = buildBunExecutable({ builder: bun, target: avx2Bun, platform: AVX2_LINUX, bundle, output: join(scratch, "avx2"), bytecodeOrder: order });
  const unordered = buildBunExecutable({ builder: bun, target: bun, platform, bundle, output: join(scratch, "unordered") });
  await measureInterleaved([
    { what: "Bun printing a line (the runtime's floor)", command: bun, args: ["-e", "console.log(1)"] },
    { what: "development wrapper: this Node.js on dist/src/provider/main.js", command: process.execPath, args: [join(ROOT, "dist/src/provider/main.js")] },
    { what: "Bun on the release's bundle", command: bun, args: [bundle] },
    { what: "single executable without --bytecode", command: withoutBytecode },
    { what: "single executable without --bytecode-order", command: unordered.file },
    { what: "single executable of Bun's AVX2 build (x64, not baseline)", command: avx2.file },
    { what: "the release's single executable (baseline, --bytecode, --bytecode-order)", command: executable },
  ]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
