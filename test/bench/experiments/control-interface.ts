import { readFile, rm, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { startServeProcess, type ServeProcess } from "../../support/serve-process.js";
import { inAlternatingOrder } from "../alternating.js";
import { BENCH_TOKEN, BENCH_WORLD } from "../bench-service.js";
import type { BenchService } from "../bench-case.js";
import { ACCOUNT_CASES } from "../cases/account.js";
import { GATEWAY_CASES } from "../cases/gateway.js";
import type { BenchExperiment } from "../experiment.js";
import { runLoad } from "../load.js";
import { median, percentile } from "../stats.js";

/** The admin token the experiment gives its services (CONVERGE_ADMIN_TOKEN). */
const ADMIN = "bench-admin-token-0123456789abcdef";
const STARTS = 10;
const RESETS = 50;
const WORLDS = 200;
const LOAD_SECONDS = 3;
const CONNECTIONS = 32;

/** One timed call of the control interface: its duration in ms; a status other than `expected` is a problem. */
async function timedControl(url: string, method: "POST" | "DELETE", path: string, body: unknown, expected: number, problems: string[]): Promise<{ ms: number; json: unknown }> {
  const started = performance.now();
  const response = await request(`${url}/_converge/${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  const ms = performance.now() - started;
  if (response.statusCode !== expected) problems.push(`${method} /_converge/${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return { ms, json: text ? JSON.parse(text) : undefined };
}

/** `converge serve --port 0` started to its listening line, then to its first health answer: ms each, over STARTS starts. */
async function startUpToReady(problems: string[]): Promise<Array<{ line: number; ready: number }>> {
  const starts: Array<{ line: number; ready: number }> = [];
  for (let i = 0; i < STARTS; i += 1) {
    const started = performance.now();
    const serve = await startServeProcess({ env: { CONVERGE_ADMIN_TOKEN: ADMIN } });
    const line = performance.now() - started;
    const health = await request(`${serve.url}/_converge/health`);
    const answer = await health.body.json() as { status?: string };
    const ready = performance.now() - started;
    if (health.statusCode !== 200 || answer.status !== "ready") problems.push(`start ${i + 1}: health answered ${health.statusCode} ${JSON.stringify(answer)}`);
    starts.push({ line, ready });
    await serve.stop("SIGTERM");
  }
  return starts;
}

/** The demo world's reset after 10 routes were made in it, RESETS times: ms each. */
async function resets(serve: ServeProcess, problems: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RESETS; i += 1) {
    for (let r = 0; r < 10; r += 1) {
      const made = await request(`${serve.url}/v2/apis/a1b2c3d4e5/routes`, {
        method: "POST", headers: { authorization: "Bearer demo-admin-token", "content-type": "application/json" }, body: JSON.stringify({ routeKey: `GET /r${r}` }),
      });
      await made.body.dump();
      if (made.statusCode !== 201) problems.push(`CreateRoute before reset ${i + 1} answered ${made.statusCode}`);
    }
    times.push((await timedControl(serve.url, "POST", "reset", {}, 200, problems)).ms);
  }
  const routes = await request(`${serve.url}/v2/apis/a1b2c3d4e5/routes`, { headers: { authorization: "Bearer demo-admin-token" } });
  const items = ((await routes.body.json()) as { items: unknown[] }).items;
  if (items.length !== 1) problems.push(`after the resets the orders API has ${items.length} routes, expected its $default route alone`);
  return times;
}

/** WORLDS isolated worlds made, then dropped, one after the other: ms of each create and drop. */
async function worlds(serve: ServeProcess, problems: string[]): Promise<{ create: number[]; drop: number[] }> {
  const create: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < WORLDS; i += 1) {
    const made = await timedControl(serve.url, "POST", "worlds", {}, 201, problems);
    create.push(made.ms);
    ids.push((made.json as { id: string }).id);
  }
  const drop: number[] = [];
  for (const id of ids) drop.push((await timedControl(serve.url, "DELETE", `worlds/${id}`, undefined, 204, problems)).ms);
  return { create, drop };
}

/** The resident set size of a process, from /proc, in MiB. */
async function rssMiB(serve: ServeProcess): Promise<number> {
  const status = await readFile(`/proc/${serve.child.pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** GetRoute and ListRegions (the load cases' requests) on a service with the journal on (its default size) and one with it off, alternating: req/s. */
async function journalOnAgainstOff(rounds: number, problems: string[]) {
  const directory = await mkdtemp(join(tmpdir(), "converge-bench-control-"));
  const worldFile = join(directory, "world.json");
  await writeFile(worldFile, JSON.stringify(BENCH_WORLD));
  const on = await startServeProcess({ worldFile, env: { CONVERGE_ADMIN_TOKEN: ADMIN } });
  const off = await startServeProcess({ worldFile, args: ["--journal-size", "0"], env: { CONVERGE_ADMIN_TOKEN: ADMIN } });
  const measured: Array<{ operation: string; on: number; off: number }> = [];
  try {
    const asBench = (serve: ServeProcess): BenchService => ({ url: serve.url, world: BENCH_WORLD, token: BENCH_TOKEN });
    const cases = [GATEWAY_CASES.find((c) => c.name === "GetRoute")!, ACCOUNT_CASES.find((c) => c.name === "ListRegions")!];
    for (const benchCase of cases) {
      const requests = { on: await benchCase.setup(asBench(on)), off: await benchCase.setup(asBench(off)) };
      const load = (serve: ServeProcess, which: "on" | "off") => async () => {
        const result = await runLoad(serve.url, requests[which], { seconds: LOAD_SECONDS, connections: CONNECTIONS });
        if (result.non2xx > 0 || result.errors > 0) problems.push(`${benchCase.name}, journal ${which}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        return result.requestsPerSecond;
      };
      await load(on, "on")();
      await load(off, "off")();
      for (let round = 0; round < rounds; round += 1) {
        const [withJournal, without] = await inAlternatingOrder(round, load(on, "on"), load(off, "off"));
        measured.push({ operation: benchCase.name, on: withJournal, off: without });
        process.stderr.write(`control-interface: ${benchCase.name} round ${round + 1}/${rounds}: journal on ${Math.round(withJournal)} req/s, off ${Math.round(without)} req/s\n`);
      }
    }
    // a filter that matches nothing: the answer carries the ring's size and how many it let go, not 10,000 entries
    const journal = await request(`${on.url}/_converge/requests?operation=GetRoute&status=599`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const held = (await journal.body.json()) as { size: number; evicted: number };
    return { measured, rss: { on: await rssMiB(on), off: await rssMiB(off) }, journal: { size: held.size, evicted: held.evicted } };
  } finally {
    await on.stop("SIGTERM");
    await off.stop("SIGTERM");
    await rm(directory, { recursive: true, force: true });
  }
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);

/**
 * Issue 50, the services as a test double: start-up to ready, a reset of the demo world, an isolated
 * world made and dropped, and the services' throughput with the request journal on against off
 * (the same run, alternating; the ratio must stay at 0.9 or above), with each service's RSS after.
 */
export const controlInterface: BenchExperiment = {
  name: "control-interface",
  description: "the control interface: start-up to ready, reset, isolated worlds, throughput with the journal on vs off",
  async run({ rounds }) {
    const problems: string[] = [];
    const starts = await startUpToReady(problems);
    const demo = await startServeProcess({ env: { CONVERGE_ADMIN_TOKEN: ADMIN } });
    let resetTimes: number[];
    let worldTimes: { create: number[]; drop: number[] };
    let demoRss: number;
    try {
      resetTimes = await resets(demo, problems);
      worldTimes = await worlds(demo, problems);
      demoRss = await rssMiB(demo);
    } finally {
      await demo.stop("SIGTERM");
    }
    const load = await journalOnAgainstOff(rounds, problems);
    const ratioOf = (operation: string) => median(load.measured.filter((m) => m.operation === operation).map((m) => m.on / m.off));
    for (const operation of ["GetRoute", "ListRegions"]) {
      if (ratioOf(operation) < 0.9) problems.push(`${operation}: the journal on runs at ${ratioOf(operation).toFixed(3)}× of off, below 0.9×`);
    }
    const row = (operation: string) => {
      const rows = load.measured.filter((m) => m.operation === operation);
      return `| ${operation} | ${Math.round(median(rows.map((m) => m.on))).toLocaleString("en-US")} | ${Math.round(median(rows.map((m) => m.off))).toLocaleString("en-US")} | ${ratioOf(operation).toFixed(3)} | ${rows.map((m) => (m.on / m.off).toFixed(2)).join(" / ")} |`;
    };
    const markdown = [
      "### The services as a test double (issue 50)",
      "",
      `\`converge serve\` (demo world) in child processes, this process timing over loopback: ${STARTS} starts; ${RESETS} resets of the demo world, each after 10 routes were made in it; ${WORLDS} isolated worlds made then dropped one after the other; then GetRoute and ListRegions (the load cases' requests) with autocannon, ${CONNECTIONS} connections, ${LOAD_SECONDS} s per round, on a service with the journal on (10,000) and one with it off (\`--journal-size 0\`), alternating which goes first, ${rounds} rounds.`,
      "",
      "| measure | median | p95 | min | max |",
      "| --- | --- | --- | --- | --- |",
      ...[
        ["start-up to the listening line (ms)", starts.map((s) => s.line)],
        ["start-up to health answering ready (ms)", starts.map((s) => s.ready)],
        ["POST /_converge/reset, demo world (ms)", resetTimes],
        ["POST /_converge/worlds, a copy of the demo world (ms)", worldTimes.create],
        ["DELETE /_converge/worlds/ID (ms)", worldTimes.drop],
      ].map(([label, values]) => `| ${label as string} | ${ms(median(values as number[]))} | ${ms(percentile(values as number[], 95))} | ${ms(Math.min(...(values as number[])))} | ${ms(Math.max(...(values as number[])))} |`),
      "",
      "| operation | req/s, journal on (median) | req/s, journal off (median) | on / off (median of the rounds' ratios) | ratio per round |",
      "| --- | --- | --- | --- | --- |",
      row("GetRoute"),
      row("ListRegions"),
      "",
      `RSS after the load: ${load.rss.on.toFixed(1)} MiB with the journal on (holding its 10,000 entries, ${load.journal.evicted.toLocaleString("en-US")} let go), ${load.rss.off.toFixed(1)} MiB with it off; the demo service after ${WORLDS} worlds made and dropped and ${RESETS} resets: ${demoRss.toFixed(1)} MiB.`,
      "",
    ].join("\n");
    return { markdown, data: { starts, resets: resetTimes, worlds: worldTimes, load, demoRss }, problems };
  },
};
