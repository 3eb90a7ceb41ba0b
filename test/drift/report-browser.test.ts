import { mkdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DriftReport } from "../../src/reconcile/drift-report.js";
import type { RunningService } from "../../src/service/index.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, ORDERS_API, converge, expectExit, liveRoute, useE2eResources, writeFiles, createRouteOverHttp } from "../e2e/e2e-fixture.js";
import { chromiumMissingReason, launchChromium } from "../support/chromium.js";
import { accountCall, call } from "../support/http.js";
import { MEMBER_BILLING_LINES, ordersApiLines, routeLines, US_EAST_DISABLED_LINES } from "./support/drift-fixture.js";

/**
 * The HTML drift report in a real browser: headless Chromium (Debian's package, driven by
 * puppeteer-core) opens the page `converge drift --report drift.html` wrote for a drifted estate
 * whose names and values carry markup. The counts match the JSON report, the outcome filter shows
 * only that outcome, search narrows the rows, markup in values is text that never runs, the page
 * reads without script, and a screenshot is written to test-results/drift-report.png.
 */

const SCREENSHOT = resolve(import.meta.dirname, "../../test-results/drift-report.png");
const skipReason = chromiumMissingReason();
if (skipReason) console.warn(`skipping the HTML report's browser tests: ${skipReason}`);

/** Desired values that would run as script if the page did not escape them. */
const DESIRED_NAME = "<script>document.title='pwned'</script>";
const LIVE_NAME = "</script><script>window.__pwned=1</script>";
const LIVE_TITLE = `"><img src=x onerror=window.__pwned=2>`;
/** A file name with markup, quotes and an ampersand: it appears in every row as the source. */
const CONTACTS_FILE = `contacts & "friends" <team>.yaml`;

const FILES: Record<string, string> = {
  [CONTACTS_FILE]: [
    "kind: AlternateContact",
    `spec: {type: SECURITY, name: ${JSON.stringify(DESIRED_NAME)}, title: "CISO & Co", emailAddress: security@example.com, phoneNumber: "+1 555 0100"}`,
    "---",
    ...MEMBER_BILLING_LINES,
    "---",
    "kind: AlternateContact",
    'account: "222222222222"',
    'spec: {type: OPERATIONS, name: Ops, title: On call, emailAddress: ops@example.com, phoneNumber: "+1 555 0102"}',
    "---",
    ...US_EAST_DISABLED_LINES,
    "",
  ].join("\n"),
  "orders.yaml": [...ordersApiLines(), ...routeLines(ORDERS_API, "{routeKey: POST /orders, target: {integration: backend}}"), ""].join("\n"),
};

const { services, dirs } = useE2eResources();
let service: RunningService;
let htmlFile: string;
let report: DriftReport;
let browser: Browser | undefined;

beforeAll(async () => {
  if (skipReason) return;
  service = await services.start();
  const dir = await dirs.make("html-report");
  const out = await dirs.make("html-report-out");
  await writeFiles(dir, FILES);
  expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
  // drift behind converge's back: markup in live values, a route deleted, a stray route in the owned API
  const security = await accountCall(service, "PutAlternateContact", { AlternateContactType: "SECURITY", Name: LIVE_NAME, Title: "CISO & Co", EmailAddress: "security@example.com", PhoneNumber: "+1 555 0100" }, ADMIN_TOKEN);
  expect(security.status, security.text).toBe(200);
  const billing = await accountCall(service, "PutAlternateContact", { AccountId: "222222222222", AlternateContactType: "BILLING", Name: "Billing Team", Title: LIVE_TITLE, EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0101" }, ADMIN_TOKEN);
  expect(billing.status, billing.text).toBe(200);
  const post = await liveRoute(service, ORDERS_API, "POST /orders");
  expect((await call(service, `/v2/apis/${ORDERS_API}/routes/${post.routeId}`, { method: "DELETE", token: ADMIN_TOKEN })).status).toBe(204);
  await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /stray" });

  htmlFile = join(out, "drift.html");
  const jsonFile = join(out, "drift.json");
  expectExit(await converge(service, ["drift", "-f", ".", "--report", htmlFile, "--report", jsonFile], dir), 2);
  report = JSON.parse(await readFile(jsonFile, "utf8")) as DriftReport;
  browser = await launchChromium();
}, E2E_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
});

/** A fresh page on the report; `javaScript: false` opens it as a browser with script off would. */
async function open(options: { javaScript?: boolean } = {}): Promise<Page> {
  const page = await browser!.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  if (options.javaScript === false) await page.setJavaScriptEnabled(false);
  await page.goto(pathToFileURL(htmlFile).href, { waitUntil: "load" });
  return page;
}

/** What these tests use of an element in the page (the tests compile without the DOM library). */
interface PageElement {
  readonly textContent: string | null;
  readonly childElementCount: number;
  checkVisibility(): boolean;
  querySelector(selector: string): PageElement | null;
}

/** `outcome address` of every row the reader sees (hidden rows and groups left out). */
function visibleRows(page: Page): Promise<string[]> {
  return page.$$eval(".r", (rows) => (rows as unknown as PageElement[])
    .filter((row) => row.checkVisibility())
    .map((row) => `${row.querySelector(".o")!.textContent} ${row.querySelector("code")!.textContent}`));
}

/** The page's `data-shown`: how many rows the script shows. */
function shownCount(page: Page): Promise<string | null> {
  return page.$eval("body", (body) => body.getAttribute("data-shown"));
}

describe.skipIf(skipReason !== undefined)("the HTML drift report in headless Chromium", { timeout: E2E_TIMEOUT_MS }, () => {
  it("shows the JSON report's count of every outcome, and a row for every resource", async () => {
    // the estate has every outcome the filters are tested on
    expect(report.summary).toMatchObject({ drifted: 2, missing: 1, unmanaged: 1, unknown: 0 });
    expect(report.summary["in-sync"]).toBeGreaterThan(0);
    expect(report.summary.refused).toBeGreaterThan(0);
    const page = await open();
    const counts = await page.$$eval("[data-count]", (elements) => elements.map((element) => [element.getAttribute("data-count"), Number(element.textContent)] as const));
    const { coverage: _coverage, ...outcomeCounts } = report.summary;
    expect(Object.fromEntries(counts)).toEqual(outcomeCounts);
    const rows = await visibleRows(page);
    expect(rows.sort()).toEqual(report.resources.map((resource) => `${resource.outcome} ${resource.address}`).sort());
    expect(await page.$eval("#f-count", (element) => element.textContent)).toBe(`${report.resources.length} resources`);
    await page.close();
  });

  it("lists what is not in sync first", async () => {
    const page = await open();
    const outcomes = (await visibleRows(page)).map((row) => row.split(" ")[0]);
    const firstInSync = outcomes.indexOf("in-sync");
    expect(firstInSync).toBeGreaterThan(0);
    expect(outcomes.slice(firstInSync).every((outcome) => outcome === "in-sync")).toBe(true);
    await page.close();
  });

  it.each(["drifted", "missing", "unmanaged", "refused", "in-sync"] as const)("shows only %s rows when filtered by that outcome", async (outcome) => {
    const page = await open();
    await page.select("#f-outcome", outcome);
    const rows = await visibleRows(page);
    expect(rows.sort()).toEqual(report.resources.filter((resource) => resource.outcome === outcome).map((resource) => `${outcome} ${resource.address}`).sort());
    expect(await page.$eval("#f-count", (element) => element.textContent)).toBe(`${report.summary[outcome]} of ${report.resources.length} resources`);
    await page.close();
  });

  it("filters by kind and by a search of addresses, files and values, together with the outcome", async () => {
    const page = await open();
    await page.select("#f-kind", "Route");
    expect((await visibleRows(page)).every((row) => row.split(" ")[1]!.startsWith("Route/"))).toBe(true);
    await page.select("#f-kind", "");
    await page.type("#f-search", "billing");
    await page.waitForFunction('document.body.getAttribute("data-shown") === "1"');
    expect(await shownCount(page)).toBe("1");
    expect(await visibleRows(page)).toEqual(["drifted AlternateContact/222222222222/BILLING"]);
    await page.select("#f-outcome", "in-sync");
    expect(await visibleRows(page)).toEqual([]);
    await page.close();
  });

  it("shows values holding <script> and markup as text, and runs none of them", async () => {
    const page = await open();
    const state = {
      pwned: await page.evaluate("window.__pwned"),
      title: await page.title(),
      scripts: (await page.$$("script")).length,
      images: (await page.$$("img")).length,
      // each value is one text node in its cell (no element made from it)
      values: await page.$$eval("td code", (codes) => (codes as unknown as PageElement[]).map((code) => ({ text: code.textContent, elements: code.childElementCount }))),
      sources: await page.$$eval(".s", (sources) => sources.map((source) => source.textContent)),
    };
    expect(state.pwned).toBeUndefined();
    expect(state.title).not.toContain("pwned");
    expect(state.scripts).toBe(1); // the page's own
    expect(state.images).toBe(0);
    for (const value of [DESIRED_NAME, LIVE_NAME, LIVE_TITLE]) expect(state.values).toContainEqual({ text: JSON.stringify(value), elements: 0 });
    expect(state.sources).toContain(`${CONTACTS_FILE}:1`);
    await page.close();
  });

  it("reads without script: every row shown, the filter form hidden", async () => {
    const page = await open({ javaScript: false });
    expect((await visibleRows(page)).length).toBe(report.resources.length);
    expect(await page.$eval("#filters", (element) => (element as unknown as PageElement).checkVisibility())).toBe(false);
    await page.close();
  });

  it("writes a screenshot for people to look at", async () => {
    const page = await open();
    await mkdir(resolve(SCREENSHOT, ".."), { recursive: true });
    await page.screenshot({ path: SCREENSHOT as `${string}.png`, fullPage: true });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);
    await page.close();
  });
});

