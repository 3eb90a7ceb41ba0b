import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { RELEASE_PLATFORMS } from "../../src/cli/release/release-platform.js";
import { buildSeaExecutable } from "../../src/cli/release/sea-executable.js";
import { releaseCacheDir, seaNodeBinary, strippedNodeBinary } from "../../src/cli/release/sea-node.js";
import { handshakeMs } from "./handshake.js";

/**
 * The handshake (start to go-plugin's line on stdout, as terraform starts a provider) of converge's
 * provider in each form, in rounds of one start of each (RUNS rounds): the development wrapper's
 * Node.js on the compiled provider, Node.js 26 on the release's bundle, and the single executable
 * without anything, with V8's code cache (these two built here from the same bundle, as
 * `--no-code-cache --no-snapshot` and `--no-snapshot` build it) and with a V8 startup snapshot (the release's).
 * `node dist/test/bench/packaged-startup.js RELEASE_DIR [RUNS]` after `converge provider package --out RELEASE_DIR`.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const releaseDir = resolve(process.argv[2] ?? join(ROOT, "dist/release"));
const runs = Number(process.argv[3] ?? 20);
const executable = join(releaseDir, "executables/linux_amd64/terraform-provider-converge_v0.1.0");
const bundle = join(releaseDir, "build/terraform-provider-converge.cjs");
if (!existsSync(executable) || !existsSync(bundle)) throw new Error(`no release in ${releaseDir}: expected ${executable} and ${bundle} (converge provider package --out ${releaseDir})`);


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

const node26 = seaNodeBinary(RELEASE_PLATFORMS[0]!, releaseCacheDir());
const scratch = mkdtempSync(join(tmpdir(), "converge-startup-"));
try {
  const build = (name: string, codeCache: boolean) => buildSeaExecutable({ builder: node26, target: strippedNodeBinary(node26).binary, bundle, output: join(scratch, name), configName: `${name}.json`, codeCache });
  const [withoutCache, withCache] = [build("no-code-cache", false), build("code-cache", true)];
  await measureInterleaved([
    { what: "node 26 printing a line (the floor)", command: node26, args: ["-e", "console.log(1)"] },
    { what: "development wrapper: this Node.js on dist/src/provider/main.js", command: process.execPath, args: [join(ROOT, "dist/src/provider/main.js")] },
    { what: "node 26 on the release's bundle", command: node26, args: [bundle] },
    { what: "single executable without code cache", command: withoutCache.file },
    { what: "single executable with code cache (--no-snapshot)", command: withCache.file },
    { what: "single executable with a startup snapshot (the release's)", command: executable },
  ]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
