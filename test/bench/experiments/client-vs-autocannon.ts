import autocannon from "autocannon";
import { Pool } from "undici";
import { Credentials, createClients } from "../../../src/clients/index.js";
import { BENCH_TOKEN, startBenchService } from "../bench-service.js";
import { seedApi } from "../cases/gateway.js";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";

const CALLS = 10_000;
const CONCURRENCY = 64;
const AUTOCANNON_SECONDS = 3;

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
 * Issue "typed clients": 10,000 GetRoute calls at concurrency 64 through GatewayClient (undici
 * pool, retry and rate-limit layers, response validated with zod) against autocannon sending the
 * same request over 64 connections for 3 s, alternating which goes first in each round.
 */
export const clientVsAutocannon: BenchExperiment = {
  name: "client-vs-autocannon",
  description: `${CALLS.toLocaleString("en-US")} GetRoute calls at concurrency ${CONCURRENCY}: typed client vs autocannon`,
  async run({ rounds }) {
    const service = await startBenchService({ durable: false, inProcess: false });
    const clients = createClients({ endpoint: service.url, credentials: new Credentials(BENCH_TOKEN), connections: CONCURRENCY });
    const problems: string[] = [];
    const measured: Array<{ client: number; autocannon: number; bareUndici: number }> = [];
    const bare = new Pool(service.url, { connections: CONCURRENCY });
    try {
      const { apiId, routeId } = await seedApi(service, 1);
      // autocannon in `amount` mode ends on its 1-second sampling tick, which would understate it:
      // its steady-state rate over a few seconds is the fair reference.
      const runAutocannon = async () => {
        const result = await autocannon({
          url: `${service.url}/v2/apis/${apiId}/routes/${routeId}`,
          headers: { authorization: `Bearer ${BENCH_TOKEN}` },
          connections: CONCURRENCY,
          duration: AUTOCANNON_SECONDS,
          timeout: 10,
        });
        if (result.non2xx > 0 || result.errors > 0) problems.push(`autocannon: ${result.non2xx} non-2xx, ${result.errors} errors`);
        return result.requests.average;
      };
      const runClient = () => throughput(CALLS, CONCURRENCY, async () => {
        const route = await clients.gateway.getRoute(apiId, routeId);
        if (!route) problems.push("client: GetRoute answered absent");
      });
      // the floor of any undici-based client: pool.request and JSON, none of converge's layers
      const runBareUndici = () => throughput(CALLS, CONCURRENCY, async () => {
        const response = await bare.request({ path: `/v2/apis/${apiId}/routes/${routeId}`, method: "GET", headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
        await response.body.json();
      });
      await runClient();
      await runAutocannon();
      await runBareUndici();
      for (let round = 0; round < rounds; round += 1) {
        let client: number;
        let cannon: number;
        if (round % 2 === 0) {
          client = await runClient();
          cannon = await runAutocannon();
        } else {
          cannon = await runAutocannon();
          client = await runClient();
        }
        const bareUndici = await runBareUndici();
        measured.push({ client, autocannon: cannon, bareUndici });
        process.stderr.write(`client-vs-autocannon: round ${round + 1}/${rounds}: client ${Math.round(client)} req/s, autocannon ${Math.round(cannon)} req/s\n`);
      }
    } finally {
      await clients.close();
      await bare.close();
      await service.close();
    }
    const bareMedian = median(measured.map((m) => m.bareUndici));
    const clientMedian = median(measured.map((m) => m.client));
    const cannonMedian = median(measured.map((m) => m.autocannon));
    const ratios = measured.map((m) => m.client / m.autocannon);
    const ratio = median(ratios);
    const markdown = [
      `### Typed client against autocannon (GetRoute, ${CALLS.toLocaleString("en-US")} calls, concurrency ${CONCURRENCY})`,
      "",
      "| | req/s (median) | per round |",
      "| --- | --- | --- |",
      `| GatewayClient.getRoute | ${Math.round(clientMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.client)).join(" / ")} |`,
      `| autocannon (${AUTOCANNON_SECONDS} s, ${CONCURRENCY} connections) | ${Math.round(cannonMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.autocannon)).join(" / ")} |`,
      `| bare undici pool.request + JSON (no converge layers) | ${Math.round(bareMedian).toLocaleString("en-US")} | ${measured.map((m) => Math.round(m.bareUndici)).join(" / ")} |`,
      "",
      `Ratio client / autocannon: **${ratio.toFixed(2)}** (median of per-round ratios ${ratios.map((r) => r.toFixed(2)).join(" / ")}; goal ≥ 0.7: ${ratio >= 0.7 ? "met" : "NOT met"}). ` +
        `Bare undici / autocannon: ${median(measured.map((m) => m.bareUndici / m.autocannon)).toFixed(2)}; client / bare undici: ${median(measured.map((m) => m.client / m.bareUndici)).toFixed(2)}.`,
      "",
    ].join("\n");
    return { markdown, data: { calls: CALLS, concurrency: CONCURRENCY, rounds: measured, ratio, bareUndiciMedian: bareMedian }, problems };
  },
};
