import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { resolve } from "node:path";
import { selfSignedCertificate } from "../../src/provider/runtime/self-signed-certificate.js";

/**
 * Time from starting a provider's executable as terraform does to its handshake line on stdout, for
 * each executable of `EXECUTABLES`: RUNS rounds, each executable once per round in turn (so a noisy
 * moment slows all alike), then each one's median and spread.
 * `node dist/test/bench/provider-startup.js [RUNS]` after `npm run build`.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const node = process.execPath;

/** What is timed, one line each: a label and the command (add a packaged provider's executable here). */
export const EXECUTABLES: ReadonlyArray<{ readonly label: string; readonly command: ReadonlyArray<string> }> = [
  { label: "node printing a line (the floor)", command: [node, "-e", "console.log(1)"] },
  { label: "the runtime's toy provider (test/provider/runtime/fixtures/toy-provider.mjs)", command: [node, resolve(ROOT, "test/provider/runtime/fixtures/toy-provider.mjs")] },
  { label: "the runtime doing nothing (test/bench/floor-provider.ts)", command: [node, resolve(ROOT, "dist/test/bench/floor-provider.js")] },
  { label: "converge's provider, development build (dist/src/provider/main.js)", command: [node, resolve(ROOT, "dist/src/provider/main.js")] },
];

const runs = Number(process.argv[2] ?? 21);
generateKeyPairSync("ec", { namedCurve: "P-256" });
const clientCertificate = selfSignedCertificate().certificatePem;

/** The time to the first line on stdout of the command. */
function once([command, ...args]: ReadonlyArray<string>): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(command!, args, {
      env: { PATH: process.env["PATH"] ?? "", TF_PLUGIN_MAGIC_COOKIE: "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2", PLUGIN_PROTOCOL_VERSIONS: "5,6", PLUGIN_CLIENT_CERT: clientCertificate },
      stdio: ["ignore", "pipe", "ignore"],
    });
    child.stdout.once("data", () => {
      const elapsed = performance.now() - started;
      child.kill("SIGKILL");
      child.once("exit", () => resolveRun(elapsed));
    });
    child.once("error", reject);
  });
}

const times = EXECUTABLES.map((): number[] => []);
for (let run = 0; run < runs; run++) {
  for (const [index, executable] of EXECUTABLES.entries()) times[index]!.push(await once(executable.command));
}
for (const [index, executable] of EXECUTABLES.entries()) {
  const sorted = times[index]!.sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  console.log(`${executable.label}, ${runs} runs: median ${at(0.5).toFixed(1)} ms (min ${sorted[0]!.toFixed(1)}, p90 ${at(0.9).toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)})`);
}
