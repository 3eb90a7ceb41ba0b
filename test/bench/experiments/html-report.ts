import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { driftExitCode, driftReport, type DriftReport, type DriftResource } from "../../../src/reconcile/drift-report.js";
import { renderDriftAsHtml } from "../../../src/reconcile/render-drift-html.js";
import { findChromium, launchChromium } from "../../support/chromium.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli, type CliRun } from "../run-cli.js";
import { median } from "../stats.js";
import { inAlternatingOrder } from "../alternating.js";

const RESOURCES = 50_000;
const API_COUNT = 250;

/**
 * Issue "drift report people open": the HTML report of 50,000 resources. Two shapes: a typical
 * estate (2.7% not in sync; drifted resources with one or two fields) and the worst case (every resource
 * drifted in two fields). Measures the renderer alone (in this process), `converge drift-merge
 * REPORT.json --report drift.html` end to end against the same command writing only JSON, the
 * page's size, and, when Chromium is installed, how long headless Chromium takes to load the page
 * (its script run) and to apply the outcome filter.
 */
export const htmlReport: BenchExperiment = {
  name: "html-report",
  description: "the HTML drift report of 50,000 resources: render time, size, CLI end to end, loading in headless Chromium",
  async run({ rounds }) {
    const directory = await mkdtemp(join(tmpdir(), "converge-html-report-"));
    const problems: string[] = [];
    const shapes = [
      { name: "typical (2.7% not in sync)", report: estateReport("typical") },
      { name: "worst (all drifted, 2 fields each)", report: estateReport("worst") },
    ];
    const results: Array<{ name: string; bytes: number; renderMs: number[]; cliHtml: CliRun[]; cliJson: CliRun[]; browserPaintMs: number[]; browserLoadMs: number[]; browserFilterMs: number[] }> = [];
    const chromium = findChromium();
    const browser = chromium ? await launchChromium() : undefined;
    try {
      for (const [index, shape] of shapes.entries()) {
        const jsonFile = join(directory, `report-${index}.json`);
        const htmlFile = join(directory, `report-${index}.html`);
        await writeFile(jsonFile, JSON.stringify(shape.report));
        renderDriftAsHtml(shape.report); // warm-up
        const result = { name: shape.name, bytes: 0, renderMs: [] as number[], cliHtml: [] as CliRun[], cliJson: [] as CliRun[], browserPaintMs: [] as number[], browserLoadMs: [] as number[], browserFilterMs: [] as number[] };
        for (let round = 0; round < rounds; round += 1) {
          const started = performance.now();
          const html = renderDriftAsHtml(shape.report);
          result.renderMs.push(performance.now() - started);
          result.bytes = Buffer.byteLength(html);
          // the same command with and without the HTML report, alternating which runs first
          const withHtml = () => runCli(["drift-merge", jsonFile, "--output", "json", "--report", htmlFile], { NO_COLOR: "1" });
          const jsonOnly = () => runCli(["drift-merge", jsonFile, "--output", "json"], { NO_COLOR: "1" });
          const [first, second] = await inAlternatingOrder(round, withHtml, jsonOnly);
          for (const run of [first, second]) {
            if (run.code !== driftExitCode(shape.report)) problems.push(`${shape.name}, round ${round + 1}: drift-merge exited ${run.code}: ${run.stderr.slice(0, 300)}`);
          }
          result.cliHtml.push(first);
          result.cliJson.push(second);
          if ((await stat(htmlFile)).size !== result.bytes) problems.push(`${shape.name}: the CLI's page is not the renderer's (${(await stat(htmlFile)).size} against ${result.bytes} bytes)`);
          if (browser) {
            const page = await browser.newPage();
            await page.setViewport({ width: 1280, height: 900 });
            const loadStarted = performance.now();
            await page.goto(pathToFileURL(htmlFile).href, { waitUntil: "load", timeout: 120_000 });
            await page.waitForFunction('document.body.hasAttribute("data-shown")');
            result.browserLoadMs.push(performance.now() - loadStarted);
            result.browserPaintMs.push(Number(await page.evaluate('performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN')));
            const filterStarted = performance.now();
            await page.select("#f-outcome", "drifted");
            const shown = await page.$eval("body", (body) => Number(body.getAttribute("data-shown")));
            result.browserFilterMs.push(performance.now() - filterStarted);
            if (shown !== shape.report.summary.drifted) problems.push(`${shape.name}: the filter showed ${shown} rows, expected ${shape.report.summary.drifted}`);
            await page.close();
          }
          process.stderr.write(`html-report: ${shape.name}, round ${round + 1}/${rounds}: render ${Math.round(result.renderMs.at(-1)!)} ms, ${(result.bytes / 2 ** 20).toFixed(1)} MiB; CLI ${Math.round(first.wallMs)} ms (JSON only ${Math.round(second.wallMs)} ms)${browser ? `; Chromium first paint ${Math.round(result.browserPaintMs.at(-1)!)} ms, ready ${Math.round(result.browserLoadMs.at(-1)!)} ms, filter ${Math.round(result.browserFilterMs.at(-1)!)} ms` : ""}\n`);
        }
        results.push(result);
      }
    } finally {
      await browser?.close();
      await rm(directory, { recursive: true, force: true });
    }
    const rows = results.map((result) => {
      const renderMs = median(result.renderMs);
      const html = median(result.cliHtml.map((run) => run.wallMs));
      const json = median(result.cliJson.map((run) => run.wallMs));
      const peak = Math.max(...result.cliHtml.map((run) => run.maxRssMiB ?? 0));
      const browserCells = result.browserLoadMs.length > 0
        ? `${Math.round(median(result.browserPaintMs)).toLocaleString("en-US")} ms | ${Math.round(median(result.browserLoadMs)).toLocaleString("en-US")} ms | ${Math.round(median(result.browserFilterMs)).toLocaleString("en-US")} ms`
        : "not measured (no Chromium) | — | —";
      return `| ${result.name} | ${Math.round(renderMs).toLocaleString("en-US")} ms (< 2,000 ms: ${renderMs < 2000 ? "met" : "NOT met"}) | ${(result.bytes / 2 ** 20).toFixed(1)} MiB (${Math.round(result.bytes / RESOURCES)} B per resource) | ${Math.round(html).toLocaleString("en-US")} ms, +${Math.round(html - json).toLocaleString("en-US")} ms over JSON only; peak ${peak.toFixed(0)} MiB | ${browserCells} |`;
    });
    const markdown = [
      `### HTML drift report of ${RESOURCES.toLocaleString("en-US")} resources`,
      "",
      `Rendered in this process (median of ${rounds} rounds after a warm-up); \`converge drift-merge REPORT.json --output json --report drift.html\` as a process, against the same command without \`--report\` (alternating order, medians); headless Chromium (${chromium ?? "absent"}, 1280×900) opening the file: its first contentful paint (the summary and the first rows, while the rest is still parsed), the page ready (parsed, its script run: the filters shown), then the outcome filter set to drifted.`,
      "",
      "| estate | render | size | CLI end to end (drift-merge) | Chromium: first paint | Chromium: ready | Chromium: filter |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n");
    const data = results.map((result) => ({ ...result, cliHtml: result.cliHtml.map(({ wallMs, maxRssMiB }) => ({ wallMs, maxRssMiB })), cliJson: result.cliJson.map(({ wallMs, maxRssMiB }) => ({ wallMs, maxRssMiB })) }));
    return { markdown, data, problems };
  },
};

/** A whole report of {@link RESOURCES} resources over {@link API_COUNT} APIs, contacts and Regions. */
function estateReport(shape: "typical" | "worst"): DriftReport {
  const resources: DriftResource[] = [];
  for (let i = 0; i < RESOURCES; i += 1) {
    const api = `api${String(i % API_COUNT).padStart(7, "0")}`;
    const kind = i % 5 === 0 ? "Integration" : i % 5 === 4 ? "AlternateContact" : "Route";
    const file = `estate/${kind === "AlternateContact" ? `accounts-${i % 200}` : `api-${i % API_COUNT}`}.yaml`;
    const address = kind === "Route" ? `Route/${api}/GET /orders/${i}/items` : kind === "Integration" ? `Integration/${api}/backend-${i}` : `AlternateContact/${String(100000000000 + i)}/SECURITY`;
    const outcome = outcomeOf(i, shape);
    resources.push({
      address,
      kind,
      identity: address.slice(kind.length + 1),
      outcome,
      fields: outcome === "drifted"
        ? [{ path: "authorizationScopes", desired: ["orders.read", "orders.write"], live: ["orders.admin"] }, ...(i % 2 === 0 || shape === "worst" ? [{ path: "target", desired: `integrations/${(i * 7919).toString(36).slice(0, 7)}`, live: null }] : [])]
        : outcome === "missing" ? [{ path: "routeKey", desired: `GET /orders/${i}/items`, live: null }] : [],
      reason: outcome === "unmanaged" ? `live but not declared, in an API the Api document at ${file}:1 owns`
        : outcome === "unknown" ? "its read failed: 500 InternalServerException after 6 attempts" : outcome === "refused" ? "managed by the service (quick create): converge never deletes it" : null,
      source: { file, line: (i % 400) * 5 + 1, column: 1 },
    });
  }
  return driftReport({ generatedAt: "2026-01-01T00:00:00.000Z", desiredFingerprint: "0".repeat(64), resources, coverage: { managed: resources.length, live: resources.length } });
}

function outcomeOf(i: number, shape: "typical" | "worst"): DriftResource["outcome"] {
  if (shape === "worst") return "drifted";
  const slot = i % 100;
  return slot === 0 ? "drifted" : slot === 1 ? "missing" : slot === 2 && i % 200 === 2 ? "unmanaged" : slot === 3 && i % 1000 === 3 ? "refused" : slot === 4 && i % 1000 === 4 ? "unknown" : "in-sync";
}
