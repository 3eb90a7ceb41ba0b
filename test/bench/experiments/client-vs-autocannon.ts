import autocannon from "autocannon";
import { Pool } from "undici";
import { Credentials, createClients } from "../../../src/clients/index.js";
import { BENCH_TOKEN, startBenchService } from "../bench-service.js";
import { seedApi } from "../cases/gateway.js";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";
import { inAlternatingOrder } from "../alternating.js";

const CALLS = 10_000;
const CONCURRENCY = 64;
const AUTOCANNON_SECONDS = 5;
/**
 * Runs of 10,000 calls per configuration and round. One run lasts about 0.2 s, where a single
 * scheduler hiccup of this shared VM weighs a lot; the round takes the median run, as it takes the
 * median of autocannon's one-second samples.
 */
const RUNS_PER_ROUND = 5;
/** The pipelined configuration measured beside the default one: the same 64 in flight over 8 connections. */
const PIPELINED = { connections: 8, pipelining: 8 };

/** The median over {@link RUNS_PER_ROUND} runs of {@link CALLS} calls of `task`, {@link CONCURRENCY} in flight. */
async function medianThroughput(task: () => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let run = 0; run < RUNS_PER_ROUND; run += 1) runs.push(await throughput(CALLS, CONCURRENCY, task));
  return median(runs);
}

/** Runs `calls` calls of `task` with `concurrency` in flight; resolves to requests per second. */
async function throughput(calls: number, concurrency: number, task: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) {
      next += 1;
      await task();
    }
  }));
  return (calls * 1000) / (performance.now() - started);
}

/**
 * Issue "typed clients": 10,000 GetRoute calls at concurrency 64 through GatewayClient (default
 * undici pool of 64 connections, retry and rate-limit layers, response validated with zod) against
 * autocannon sending the same request over 64 connections for 3 s, alternating which goes first in
 * each round. Beside them: the client on a pipelining pool, and undici's request() with no layers.
 */
export const clientVsAutocannon: BenchExperiment = {
  name: "client-vs-autocannon",
  description: `${CALLS.toLocaleString("en-US")} GetRoute calls at concurrency ${CONCURRENCY}: typed client vs autocannon`,
  async run({ rounds }) {
    const service = await startBenchService({ durable: false, inProcess: false });
    const clients = createClients({ endpoint: service.url, credentials: new Credentials(BENCH_TOKEN), connections: CONCURRENCY });
    const pipelinedClients = createClients({ endpoint: service.url, credentials: new Credentials(BENCH_TOKEN), ...PIPELINED });
    const problems: string[] = [];
    const measured: Array<{ client: number; pipelined: number; autocannon: number; bareUndici: number }> = [];
    const bare = new Pool(service.url, { connections: CONCURRENCY });
    try {
      const { apiId, routeId } = await seedApi(service, 1);
      // autocannon in `amount` mode ends on its 1-second sampling tick, which would understate it:
      // its median one-second sample over a few seconds is the fair reference.
      const runAutocannon = async () => {
        const result = await autocannon({
          url: `${service.url}/v2/apis/${apiId}/routes/${routeId}`,
          headers: { authorization: `Bearer ${BENCH_TOKEN}` },
          connections: CONCURRENCY,
          duration: AUTOCANNON_SECONDS,
          timeout: 10,
        });
        if (result.non2xx > 0 || result.errors > 0) problems.push(`autocannon: ${result.non2xx} non-2xx, ${result.errors} errors`);
        return result.requests.p50;
      };
      const runClient = () => medianThroughput(async () => {
        const route = await clients.gateway.getRoute(apiId, routeId);
        if (!route) problems.push("client: GetRoute answered absent");
      });
      const runPipelined = () => medianThroughput(async () => {
        const route = await pipelinedClients.gateway.getRoute(apiId, routeId);
        if (!route) problems.push("pipelined client: GetRoute answered absent");
      });
      // what undici's own request() API gives, with none of converge's layers: pool.request and JSON, none of converge's layers
      const runBareUndici = () => medianThroughput(async () => {
        const response = await bare.request({ path: `/v2/apis/${apiId}/routes/${routeId}`, method: "GET", headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
        await response.body.json();
      });
      await runClient();
      await runPipelined();
      await runAutocannon();
      await runBareUndici();
      for (let round = 0; round < rounds; round += 1) {
        const [client, cannon] = await inAlternatingOrder(round, runClient, runAutocannon);
        const pipelined = await runPipelined();
        const bareUndici = await runBareUndici();
        measured.push({ client, pipelined, autocannon: cannon, bareUndici });
        process.stderr.write(`client-vs-autocannon: round ${round + 1}/${rounds}: client ${Math.round(client)} req/s, pipelined ${Math.round(pipelined)} req/s, autocannon ${Math.round(cannon)} req/s\n`);
      }
    } finally {
      await clients.close();
      await pipelinedClients.close();
      await bare.close();
      await service.close();
    }
    const bareMedian = median(measured.map((m) => m.bareUndici));
    const clientMedian = median(measured.map((m) => m.client));
    const cannonMedian = median(measured.map((m) => m.autocannon));
    const pipelinedMedian = median(measured.map((m) => m.pipelined));
    const ratios = measured.map((m) => m.client / m.autocannon);
    const ratio = median(ratios);
    const markdown = [
      `### Typed client against autocannon (GetRoute, ${CALLS.toLocaleString("en-US")} calls, concurrency ${CONCURRENCY})`,
      "",
      `Each round: the median of ${RUNS_PER_ROUND} runs of ${CALLS.toLocaleString("en-US")} calls per client configuration, and autocannon's median one-second sample over ${AUTOCANNON_SECONDS} s; the order of client and autocannon alternates between rounds.`,
      "",
      "| | req/s (median) | per round |",
      "| --- | --- | --- |",
      `| GatewayClient.getRoute | ${Math.round(clientMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.client)).join(" / ")} |`,
      `| GatewayClient.getRoute, pipelined pool (${PIPELINED.connections} connections × ${PIPELINED.pipelining}) | ${Math.round(pipelinedMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.pipelined)).join(" / ")} |`,
      `| autocannon (${CONCURRENCY} connections) | ${Math.round(cannonMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.autocannon)).join(" / ")} |`,
      `| undici pool.request() + body.json(), no converge layers | ${Math.round(bareMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.bareUndici)).join(" / ")} |`,
      "",
      `Ratio client / autocannon: **${ratio.toFixed(2)}** (median of per-round ratios ${ratios.map((r) => r.toFixed(2)).join(" / ")}; goal ≥ 0.7: ${ratio >= 0.7 ? "met" : "NOT met"}). ` +
        `Pipelined client / autocannon: ${median(measured.map((m) => m.pipelined / m.autocannon)).toFixed(2)}; ` +
        `undici request() / autocannon: ${median(measured.map((m) => m.bareUndici / m.autocannon)).toFixed(2)}; client / undici request(): ${median(measured.map((m) => m.client / m.bareUndici)).toFixed(2)}.`,
      "",
    ].join("\n");
    return { markdown, data: { calls: CALLS, concurrency: CONCURRENCY, pipelined: PIPELINED, rounds: measured, ratio, pipelinedMedian, bareUndiciMedian: bareMedian }, problems };
  },
};
