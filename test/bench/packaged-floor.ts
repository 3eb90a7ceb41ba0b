import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, truncateSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { terraformPlatform } from "../../src/cli/provider-install.js";
import { convergePackageJson } from "../../src/cli/release/package-version.js";
import { bundleProvider } from "../../src/cli/release/provider-bundle.js";
import { RELEASE_PLATFORMS } from "../../src/cli/release/release-platform.js";
import { bunBinary, releaseCacheDir } from "../../src/cli/release/bun-build.js";
import { buildBunExecutable } from "../../src/cli/release/bun-executable.js";

/**
 * The protocol floor (test/bench/floor-provider.ts) packaged as `converge provider package` packages
 * the provider: bundled with the same esbuild options, a single executable of the same Bun with the
 * same flags, then padded with zero bytes to the size of the
 * release's executable, because terraform hashes an installed provider's whole executable on every
 * command. It is what any provider of converge's schemas costs on this runtime in this packaging,
 * doing nothing: the floor of the release's executable, as the Go floor is the floor of a Go
 * provider. Time it as the Go floor bench's `tsfloor` way (docs/manual/benchmarks.md, "issue 32's
 * sixth pass", says how).
 *
 * `node dist/test/bench/packaged-floor.js OUT [PAD_TO]` after `npm run build`: PAD_TO is the
 * executable whose size OUT takes (default: the release's in dist/release, when there is one).
 */
const { root: ROOT, version: VERSION } = convergePackageJson();
const [outArgument, padArgument] = process.argv.slice(2);
if (outArgument === undefined) throw new Error("usage: node dist/test/bench/packaged-floor.js OUT [PAD_TO]: OUT is the executable to write");
const out = resolve(outArgument);
const platform = RELEASE_PLATFORMS.find((candidate) => candidate.name === terraformPlatform());
if (platform === undefined) throw new Error(`the floor is packaged for this machine's platform, ${terraformPlatform()}: the release knows ${RELEASE_PLATFORMS.map((known) => known.name).join(", ")}`);
const padTo = resolve(padArgument ?? join(ROOT, `dist/release/executables/${platform.name}/terraform-provider-converge_v${VERSION}`));

mkdirSync(dirname(out), { recursive: true });
// a directory of this run's own: two runs at once (the test and the experiment, say) share nothing but OUT's directory
const buildDir = mkdtempSync(join(dirname(out), ".floor-build-"));
try {
  const bundle = await bundleProvider({
    entry: join(ROOT, "dist/test/bench/floor-provider.js"),
    packageRoot: ROOT,
    outFile: join(buildDir, "floor-provider.cjs"),
    // the files the build wrote beside the provider (its schemas, constant answers, the protocol's tables), which the floor reads
    dataDirectory: join(ROOT, "dist/src/provider"),
  });
  const bun = bunBinary(platform, releaseCacheDir());
  const executable = buildBunExecutable({ builder: bun, target: bun, platform, bundle: bundle.file, output: out });
  const own = executable.bytes;
  if (existsSync(padTo) && statSync(padTo).size > own) {
    // zero bytes past the end of the executable: what the program reads stays the same
    truncateSync(out, statSync(padTo).size);
    console.log(`${out}: ${own} bytes (bundle ${bundle.bytes} bytes of ${bundle.inputs} files), padded to ${statSync(out).size} bytes, the size of ${padTo}`);
  } else {
    console.log(`${out}: ${own} bytes (bundle ${bundle.bytes} bytes of ${bundle.inputs} files), not padded (${existsSync(padTo) ? `${padTo} is not larger` : `no ${padTo}: run converge provider package first to pad to the release's size`})`);
  }
} finally {
  rmSync(buildDir, { recursive: true, force: true });
}
