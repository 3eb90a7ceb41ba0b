import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where one terraform command spends its time with converge's provider, from terraform's own trace
 * log: each provider process terraform starts (start to go-plugin's handshake line, to exit; the
 * RPCs it was sent), and each RPC's answer time as the provider logs it at trace level
 * (`rpc answered`, arrival of the request to its answer encoded).
 *
 *     node dist/test/bench/provider-breakdown.js WORKDIR [plan|apply] [RUNS]
 *
 * WORKDIR is an initialized root module (the go-floor's `work/ts-100`, say); the environment passes
 * through (HOME, TF_CLI_CONFIG_FILE, CONVERGE_ENDPOINT, CONVERGE_TOKEN). `apply` first removes the
 * state, so it applies from empty; `plan` is a no-change plan of what is applied. RUNS runs (3 by
 * default) give medians.
 */
const [workdirArgument, commandArgument = "plan", runsArgument = "3"] = process.argv.slice(2);
if (workdirArgument === undefined) throw new Error("provider-breakdown needs WORKDIR: node dist/test/bench/provider-breakdown.js WORKDIR [plan|apply] [RUNS]");
if (commandArgument !== "plan" && commandArgument !== "apply") throw new Error(`provider-breakdown's command is "${commandArgument}": expected plan or apply`);
const workdir = resolve(workdirArgument);
const runs = Number(runsArgument);

interface ProviderProcess {
  readonly started: number;
  handshake?: number;
  exited?: number;
  readonly rpcs: Map<string, number>;
}

interface Breakdown {
  readonly wallMs: number;
  readonly processes: ReadonlyArray<ProviderProcess>;
  /** Answer times (ms) by RPC, as the provider logged them. */
  readonly answers: ReadonlyMap<string, ReadonlyArray<number>>;
}

function runOnce(): Breakdown {
  const scratch = mkdtempSync(join(tmpdir(), "converge-breakdown-"));
  const logPath = join(scratch, "trace.log");
  try {
    const args = commandArgument === "apply" ? ["apply", "-auto-approve", "-input=false", "-no-color"] : ["plan", "-detailed-exitcode", "-input=false", "-no-color"];
    if (commandArgument === "apply") {
      rmSync(join(workdir, "terraform.tfstate"), { force: true });
      rmSync(join(workdir, "terraform.tfstate.backup"), { force: true });
    }
    const started = performance.now();
    const result = spawnSync("terraform", args, { cwd: workdir, env: { ...process.env, CHECKPOINT_DISABLE: "1", TF_LOG: "trace", TF_LOG_PATH: logPath }, encoding: "utf8" });
    const wallMs = performance.now() - started;
    if (result.status !== 0) throw new Error(`terraform ${args.join(" ")} exited ${result.status}: ${(result.stdout + result.stderr).slice(-800)}`);
    return { wallMs, ...parseTrace(readFileSync(logPath, "utf8")) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The provider processes and answers of one trace log. */
function parseTrace(text: string): Omit<Breakdown, "wallMs"> {
  const processes: ProviderProcess[] = [];
  const answers = new Map<string, number[]>();
  for (const line of text.split("\n")) {
    const at = Date.parse(line.slice(0, 24));
    if (Number.isNaN(at)) continue;
    const current = processes.at(-1);
    if (line.includes("provider: starting plugin:")) processes.push({ started: at, rpcs: new Map() });
    else if (line.includes("provider: using plugin:") && current) current.handshake ??= at;
    else if (line.includes("provider: plugin process exited:") && current) current.exited = at;
    const call = /GRPCProvider\.v6: (\w+)\s*$/.exec(line);
    if (call && current) current.rpcs.set(call[1]!, (current.rpcs.get(call[1]!) ?? 0) + 1);
    if (line.includes("rpc answered:")) {
      const fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
      if (fields["rpc"] !== undefined && fields["ms"] !== undefined) answers.set(fields["rpc"], [...(answers.get(fields["rpc"]) ?? []), Number(fields["ms"])]);
    }
  }
  return { processes, answers };
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};

const breakdowns = Array.from({ length: runs }, runOnce);
console.log(`terraform ${commandArgument} in ${workdir}, ${runs} runs: wall median ${median(breakdowns.map((run) => run.wallMs)).toFixed(0)} ms`);
const processCount = Math.max(...breakdowns.map((run) => run.processes.length));
console.log("| process | start to handshake | handshake to exit | lifetime | RPCs |");
console.log("| --- | --- | --- | --- | --- |");
for (let index = 0; index < processCount; index++) {
  const of = breakdowns.map((run) => run.processes[index]).filter((process): process is ProviderProcess => process !== undefined);
  const span = (from: (p: ProviderProcess) => number | undefined, to: (p: ProviderProcess) => number | undefined) =>
    median(of.flatMap((p) => (from(p) === undefined || to(p) === undefined ? [] : [to(p)! - from(p)!])));
  const rpcs = [...(of[0]?.rpcs ?? new Map<string, number>())].map(([name, count]) => `${name} ×${count}`).join(", ");
  console.log(`| P${index + 1} | ${span((p) => p.started, (p) => p.handshake).toFixed(0)} ms | ${span((p) => p.handshake, (p) => p.exited).toFixed(0)} ms | ${span((p) => p.started, (p) => p.exited).toFixed(0)} ms | ${rpcs} |`);
}
const answers = new Map<string, number[]>();
for (const run of breakdowns) for (const [rpc, values] of run.answers) answers.set(rpc, [...(answers.get(rpc) ?? []), ...values]);
if (answers.size > 0) {
  console.log("\n| RPC | answered | median | p90 | total per run |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const [rpc, values] of [...answers].sort()) {
    const sorted = [...values].sort((a, b) => a - b);
    const total = values.reduce((sum, value) => sum + value, 0) / runs;
    console.log(`| ${rpc} | ${values.length / runs} per run | ${median(values).toFixed(2)} ms | ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(2)} ms | ${total.toFixed(0)} ms |`);
  }
}
