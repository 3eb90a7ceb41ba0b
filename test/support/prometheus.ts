import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstExecutable } from "./executables.js";
import { runProcess } from "./run-process.js";

/**
 * Debian's Prometheus (`apt-get install prometheus`: the server and `promtool`), run as a child
 * process with its configuration and storage in a temp directory. `.ci/run` installs the package
 * when it is missing; locally a test without it is skipped with the reason printed, and under CI
 * (CI=true) it fails instead.
 */

const CANDIDATES = { prometheus: ["/usr/bin/prometheus"], promtool: ["/usr/bin/promtool"] } as const;
const OVERRIDES = { prometheus: "PROMETHEUS_PATH", promtool: "PROMTOOL_PATH" } as const;
type Tool = keyof typeof CANDIDATES;

/** The executable of `tool`: its variable (PROMETHEUS_PATH, PROMTOOL_PATH) when set, else Debian's; `undefined` when there is none. */
export function findPrometheusTool(tool: Tool, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const override = env[OVERRIDES[tool]];
  return firstExecutable(override ? [override] : CANDIDATES[tool]);
}

/** Why a Prometheus test cannot run here, or `undefined` when it can. Throws under CI, where it must run. */
export function prometheusMissingReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const missing = (Object.keys(CANDIDATES) as Tool[]).filter((tool) => !findPrometheusTool(tool, env));
  if (missing.length === 0) return undefined;
  const where = missing.map((tool) => (env[OVERRIDES[tool]] ? `${OVERRIDES[tool]}=${env[OVERRIDES[tool]]}` : CANDIDATES[tool].join(", "))).join("; ");
  const reason = `${missing.join(" and ")} not found (${where}): install Debian's package with \`apt-get install prometheus\` (.ci/run does)`;
  if (env.CI === "true") throw new Error(`${reason}; CI must run the Prometheus tests`);
  return reason;
}

/** One sample of an instant query's answer. */
export interface PromSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface RunningPrometheus {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** An instant query through the HTTP API (`/api/v1/query`), evaluated now: the vector's samples. Throws when Prometheus answers an error. */
  query(promql: string): Promise<PromSample[]>;
  /** What the server logged so far. */
  log(): string;
  /** Stops the server (SIGTERM, SIGKILL after 5 s) and removes its directory. */
  close(): Promise<void>;
}

/** A free TCP port of 127.0.0.1 (the server binds it right after; Prometheus has no `:0` that it reports). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts Prometheus scraping `targets` (`host:port`, path /metrics) every second as the job `job`,
 * and resolves once it answers `/-/ready`.
 */
export async function startPrometheus(job: string, targets: ReadonlyArray<string>): Promise<RunningPrometheus> {
  const executable = findPrometheusTool("prometheus");
  if (!executable) throw new Error(prometheusMissingReason() ?? "prometheus not found");
  const directory = await mkdtemp(join(tmpdir(), "converge-prometheus-"));
  const config = join(directory, "prometheus.yml");
  await writeFile(config, [
    "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}",
    "scrape_configs:",
    `  - job_name: ${JSON.stringify(job)}`,
    `    static_configs: [{targets: ${JSON.stringify(targets)}}]`,
    "",
  ].join("\n"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(executable, [
    `--config.file=${config}`, `--storage.tsdb.path=${join(directory, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await untilReady(url, exited, () => log);
  } catch (error) {
    await close();
    throw error;
  }
  return { url, query: (promql) => instantQuery(url, promql), log: () => log, close };
}

async function untilReady(url: string, exited: Promise<void>, log: () => string): Promise<void> {
  let ended = false;
  void exited.then(() => (ended = true));
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && !ended) {
    const ready = await fetch(`${url}/-/ready`).then((answer) => answer.ok, () => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prometheus ${ended ? "exited" : "was not ready within 15 s"} at ${url}; its log: ${log().slice(-2000)}`);
}

async function instantQuery(url: string, promql: string): Promise<PromSample[]> {
  const answer = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
  const body = (await answer.json()) as { status: string; error?: string; data?: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  if (body.status !== "success" || !body.data) throw new Error(`prometheus answered ${answer.status} to ${promql}: ${body.error ?? JSON.stringify(body)}`);
  if (body.data.resultType !== "vector") throw new Error(`${promql} gave a ${body.data.resultType}: expected a vector`);
  return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
}

/** `promtool check metrics` of an exposition (on its standard input): its exit code and what it printed (nothing when the metrics are clean). */
export async function promtoolCheckMetrics(exposition: string): Promise<{ code: number | null; output: string }> {
  const executable = findPrometheusTool("promtool");
  if (!executable) throw new Error(prometheusMissingReason() ?? "promtool not found");
  const run = await runProcess(executable, ["check", "metrics"], { env: { PATH: process.env.PATH ?? "" }, stdin: exposition, timeoutMs: 15_000 });
  return { code: run.code, output: `${run.stdout}${run.stderr}`.trim() };
}
