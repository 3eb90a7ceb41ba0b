import { generateKeyPairSync } from "node:crypto";
import { resolve } from "node:path";
import { handshakeMs } from "./handshake.js";

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


const times = EXECUTABLES.map((): number[] => []);
for (let run = 0; run < runs; run++) {
  for (const [index, executable] of EXECUTABLES.entries()) times[index]!.push(await handshakeMs(executable.command));
}
for (const [index, executable] of EXECUTABLES.entries()) {
  const sorted = times[index]!.sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  console.log(`${executable.label}, ${runs} runs: median ${at(0.5).toFixed(1)} ms (min ${sorted[0]!.toFixed(1)}, p90 ${at(0.9).toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)})`);
}
