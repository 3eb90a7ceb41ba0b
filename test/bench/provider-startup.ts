import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { resolve } from "node:path";
import { selfSignedCertificate } from "../../src/provider/runtime/self-signed-certificate.js";

/**
 * Time from starting the toy provider (test/provider/runtime/fixtures/toy-provider.mjs) as terraform
 * does to its handshake line on stdout: RUNS runs one after the other, the median and the spread.
 * `node dist/test/bench/provider-startup.js [RUNS]` after `npm run build`.
 */
const ROOT = resolve(import.meta.dirname, "../../..");
const PROVIDER = resolve(ROOT, "test/provider/runtime/fixtures/toy-provider.mjs");
const runs = Number(process.argv[2] ?? 21);
generateKeyPairSync("ec", { namedCurve: "P-256" });
const clientCertificate = selfSignedCertificate().certificatePem;

/** The time to the first line on stdout of `node ARGS`. */
function once(args: ReadonlyArray<string> = [PROVIDER]): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...args], {
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

async function measure(what: string, args?: ReadonlyArray<string>): Promise<void> {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(await once(args));
  times.sort((a, b) => a - b);
  const at = (fraction: number) => times[Math.min(times.length - 1, Math.floor(fraction * times.length))]!;
  console.log(`${what}, ${runs} runs: median ${at(0.5).toFixed(1)} ms (min ${times[0]!.toFixed(1)}, p90 ${at(0.9).toFixed(1)}, max ${times.at(-1)!.toFixed(1)})`);
}

await measure("node printing a line (the floor)", ["-e", "console.log(1)"]);
await measure("provider start to handshake line");
