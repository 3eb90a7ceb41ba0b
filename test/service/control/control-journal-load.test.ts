import { Pool } from "undici";
import { describe, expect, it } from "vitest";
import { DEFAULT_JOURNAL_SIZE, startService } from "../../../src/service/index.js";
import { controlCall } from "../../support/control.js";
import { testWorld } from "../../support/worlds.js";

/**
 * The journal's bound under load (docs/manual/testing.md, "The request journal"): 100,000 requests
 * leave it holding exactly its size (the default, 10,000), the rest counted as let go; the process's
 * RSS before and after is printed for the report (docs/manual/benchmarks.md has the measured run).
 */

const REQUESTS = 100_000;
const IN_FLIGHT = 64;
const API = "loadapi001";

describe("the journal under 100,000 requests", () => {
  it("holds exactly its size and lets the rest go: memory stays flat", { timeout: 300_000 }, async () => {
    const service = await startService({ port: 0, world: testWorld({ apis: [{ apiId: API, name: "load", protocolType: "HTTP", target: "https://backend.example" }] }) });
    const pool = new Pool(service.url, { connections: 16, pipelining: 4 });
    try {
      const routes = JSON.parse(await (await pool.request({ path: `/v2/apis/${API}/routes`, method: "GET", headers: { authorization: "Bearer admin-token" } })).body.text());
      const path = `/v2/apis/${API}/routes/${routes.items[0].routeId as string}`;
      const rssBefore = process.memoryUsage().rss;
      const rssAt: number[] = [];
      let next = 0;
      let ok = 0;
      await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
        while (next < REQUESTS) {
          next += 1;
          if (next % 25_000 === 0) rssAt.push(process.memoryUsage().rss);
          const answer = await pool.request({ path, method: "GET", headers: { authorization: "Bearer admin-token" } });
          await answer.body.dump();
          if (answer.statusCode === 200) ok += 1;
        }
      }));
      const rssAfter = process.memoryUsage().rss;
      expect(ok).toBe(REQUESTS);
      const journal = (await controlCall(service, "requests", { method: "GET" })).json;
      expect({ held: journal.requests.length, size: journal.size, evicted: journal.evicted }).toEqual({
        held: DEFAULT_JOURNAL_SIZE, size: DEFAULT_JOURNAL_SIZE, evicted: REQUESTS + 1 - DEFAULT_JOURNAL_SIZE,
      });
      expect(journal.requests.every((entry: { operation: string }) => entry.operation === "GetRoute")).toBe(true);
      const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
      console.info(`journal of ${DEFAULT_JOURNAL_SIZE} under ${REQUESTS} GetRoute requests (${ok} answered 200): held ${journal.requests.length}, let go ${journal.evicted}; `
        + `RSS of the test process (service and load in one process) ${mib(rssBefore)} MiB before, ${rssAt.map(mib).join(" / ")} MiB after each 25,000, ${mib(rssAfter)} MiB after`);
    } finally {
      await pool.close();
      await service.close();
    }
  });
});
