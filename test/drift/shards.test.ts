import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, collect, type Clients } from "../../src/clients/index.js";
import type { LoadedDocument } from "../../src/desired/load.js";
import { applyPlan } from "../../src/reconcile/apply.js";
import { detectDrift } from "../../src/reconcile/drift.js";
import { documentsOfShard, shardKeyOf } from "../../src/reconcile/drift-shards.js";
import { listApis } from "../../src/reconcile/live-reader.js";
import { mergeDriftReports, type DriftReport } from "../../src/reconcile/drift-report.js";
import { hasChanges } from "../../src/reconcile/model.js";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import { removeDirectory, writeAndLoad } from "../reconcile/support/reconcile-harness.js";
import { useWorld } from "../support/world.js";
import { countOutcomes, normalizeReport, outcomeLines } from "./support/drift-fixture.js";
import { MANAGEMENT, NO_LISTING_TOKEN, NO_ROUTES_TOKEN, SHARD_ACCOUNTS, SHARD_APIS, SHARD_TOKEN, shardEstateFiles, shardWorld, unknownFiles } from "./support/shard-estate.js";

/**
 * Sharding in-process, over a generated estate with drift of every kind: for N from 1 to 8, the N
 * shards are disjoint, their union is the whole estate, each reads only what its resources need
 * (every listing, contact and Region read once between them), and their merged report equals the
 * single-process report.
 */

/** The estate's world; its clients retry as converge does by default. */
const world = useWorld({ world: shardWorld(), recordRequests: true, token: SHARD_TOKEN, retry: DEFAULT_RETRY_POLICY });
const { service, clients } = world;
let documents: LoadedDocument[];
let desired: { documents: LoadedDocument[]; fingerprint: string };
let single: DriftReport;
const directories: string[] = [];
/** Reads of one run, by operation (what the listings and gets cost). */
const READS = ["GetRoutes", "GetIntegrations", "GetApi", "GetAlternateContact", "ListRegions"] as const;
let readsOfSingle: Record<string, number>;

function readCounts(): Record<string, number> {
  return Object.fromEntries(READS.map((operation) => [operation, service.requests.count({ operation })]));
}

beforeAll(async () => {
  const seeded = await writeAndLoad(shardEstateFiles());
  directories.push(seeded.directory);
  const planned = await readAndPlan(seeded.documents, clients);
  expect(planned.problems).toEqual([]);
  const applied = await applyPlan(planned.plan, clients, { regionPollIntervalMs: 5 });
  expect(applied.failed).toBe(0);
  expect(hasChanges((await readAndPlan(seeded.documents, clients)).plan)).toBe(false);

  // drift of every kind, behind converge's back
  const gateway = clients.gateway;
  const [api0, , , api3, api4, , api6] = SHARD_APIS.map((api) => api.apiId);
  const routesOf = async (apiId: string) => collect(gateway.routes(apiId!));
  const integrationsOf = async (apiId: string) => collect(gateway.integrations(apiId!));
  const routes0 = await routesOf(api0!);
  await gateway.deleteRoute(api0!, routes0.find((route) => route.routeKey === "GET /resource-0")!.routeId);
  const otherTarget = (await integrationsOf(api0!)).find((integration) => integration.integrationUri === "https://svc-0-2.example/api")!;
  await gateway.updateRoute(api0!, routes0.find((route) => route.routeKey === "GET /resource-1")!.routeId, { target: `integrations/${otherTarget.integrationId}` });
  await gateway.createRoute(api0!, { routeKey: "GET /stray" });
  await gateway.createRoute(api4!, { routeKey: "GET /not-owned" });
  await gateway.createRoute(api3!, { routeKey: "POST /stray" });
  const integrations6 = await integrationsOf(api6!);
  await gateway.updateIntegration(api6!, integrations6.find((integration) => integration.integrationUri === "https://svc-6-2.example/api")!.integrationId, { timeoutInMillis: 9000 });
  await gateway.createIntegration(api6!, { integrationType: "HTTP_PROXY", integrationUri: "https://stray.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
  for (const [index, id] of SHARD_ACCOUNTS.entries()) {
    const accountId = id === MANAGEMENT ? {} : { AccountId: id };
    if (index % 5 === 1) await clients.account.putAlternateContact({ ...accountId, AlternateContactType: "SECURITY", Name: "someone else", Title: "lead", EmailAddress: `security-${index}@example.com`, PhoneNumber: "+1 555 0100" });
    if (index % 7 === 3) await clients.account.deleteAlternateContact({ ...accountId, AlternateContactType: "BILLING" });
    if (index % 6 === 4) await clients.account.disableRegion({ ...accountId, RegionName: "af-south-1" });
  }

  const all = await writeAndLoad({ ...shardEstateFiles(), ...unknownFiles() });
  directories.push(all.directory);
  documents = all.documents;
  desired = all;
  service.requests.reset();
  single = await detectDrift(desired, clients);
  readsOfSingle = readCounts();
  expect(service.requests.count({ writesOnly: true })).toBe(0);
}, 60_000);

afterAll(async () => {
  await Promise.all(directories.map(removeDirectory));
});

describe("the generated estate", () => {
  it("has drift of every outcome in the single-process report", () => {
    const counts = countOutcomes(single);
    for (const outcome of ["in-sync", "drifted", "missing", "unmanaged", "refused", "unknown"] as const) expect(counts[outcome], outcome).toBeGreaterThan(0);
    expect(single.resources).toHaveLength(documents.length + 5);
    expect(outcomeLines(single).filter((line) => !line.startsWith("in-sync"))).toEqual([
      "drifted AlternateContact/100000000001/SECURITY",
      "drifted AlternateContact/100000000006/SECURITY",
      "drifted AlternateContact/100000000011/SECURITY",
      "drifted AlternateContact/100000000016/SECURITY",
      "drifted Integration/shardapi06/backend-2",
      "drifted RegionOptIn/100000000004/af-south-1",
      "drifted RegionOptIn/100000000010/af-south-1",
      "drifted RegionOptIn/100000000016/af-south-1",
      "drifted Route/shardapi00/GET /resource-1",
      "missing AlternateContact/100000000003/BILLING",
      "missing AlternateContact/100000000010/BILLING",
      "missing AlternateContact/100000000017/BILLING",
      "missing Route/shardapi00/GET /resource-0",
      expect.stringMatching(/^refused Integration\/shardapi03\/[a-z0-9]{7}$/),
      "refused Route/shardapi03/$default",
      "unknown AlternateContact/999999999999/BILLING",
      "unknown Integration/name:ghost/ghost",
      "unknown Route/shardnone0/GET /nowhere",
      expect.stringMatching(/^unmanaged Integration\/shardapi06\/[a-z0-9]{7}$/),
      "unmanaged Route/shardapi00/GET /stray",
      "unmanaged Route/shardapi03/POST /stray",
    ]);
  });
});

describe.each([1, 2, 3, 4, 5, 6, 7, 8])("%i shards", (count) => {
  let shards: DriftReport[];
  let reads: Record<string, number>;
  let apiListings: number;

  beforeAll(async () => {
    service.requests.reset();
    shards = [];
    for (let index = 1; index <= count; index += 1) shards.push(await detectDrift(desired, clients, { shard: { index, count } }));
    reads = readCounts();
    apiListings = service.requests.count({ operation: "GetApis" });
  });

  it("are disjoint and together hold every resource of the estate", () => {
    const addresses = shards.flatMap((report) => report.resources.map((resource) => resource.address));
    expect(new Set(addresses).size).toBe(addresses.length);
    expect([...addresses].sort()).toEqual(single.resources.map((resource) => resource.address).sort());
    expect(shards.map((report) => report.shard)).toEqual(Array.from({ length: count }, (_, i) => ({ index: i + 1, count })));
    for (const report of shards) expect(report.resources.length, `shard ${report.shard!.index}/${count}`).toBeGreaterThan(0);
  });

  it("read each listing, contact and Region list once between them, and write nothing", () => {
    expect(reads).toEqual(readsOfSingle);
    // each shard lists the APIs once, to find which shard a document naming its API belongs to
    expect(apiListings).toBe(count);
    expect(service.requests.count({ writesOnly: true })).toBe(0);
  });

  it("merge into the single-process report", () => {
    const merged = mergeDriftReports(shards.map((report, i) => ({ report, file: `shard-${i + 1}.json` })).reverse());
    expect(merged.shard).toBeUndefined();
    expect(normalizeReport(merged)).toEqual(normalizeReport(single));
    expect(merged.resources.map((resource) => resource.address)).toEqual(single.resources.map((resource) => resource.address));
  });
});

describe("shard keys", () => {
  it("put every document of one API in one shard, whether it names the API or gives its ID", async () => {
    const directory = await listApis(clients);
    const keys = new Set(documents.filter((loaded) => "api" in loaded.document && JSON.stringify(loaded.document.api).includes("api-6")).map((loaded) => shardKeyOf(loaded, directory)));
    expect([...keys]).toEqual(["api:shardapi06"]);
    // without the directory, a name stays a name (its documents are unknown anyway when nothing lists the APIs)
    const ghost = documents.find((loaded) => loaded.document.kind === "Integration" && loaded.document.name === "ghost")!;
    expect(shardKeyOf(ghost, directory)).toBe("api:name:ghost");
    for (const count of [2, 5]) {
      const buckets = new Set(Array.from({ length: count }, (_, i) => documentsOfShard(documents, { index: i + 1, count }, directory)
        .filter((loaded) => "api" in loaded.document && JSON.stringify(loaded.document.api).match(/shardapi06|api-6/)).length));
      expect(buckets.has(PER_API_DOCUMENTS)).toBe(true);
    }
  });
});

describe("a token that may not list APIs", () => {
  let limited: Clients;
  beforeAll(() => {
    limited = world.clientsAs(NO_LISTING_TOKEN, { retry: DEFAULT_RETRY_POLICY });
  });

  it("makes only the documents that name their API unknown, with the failed listing as the reason", async () => {
    const report = await detectDrift(desired, limited);
    const named = report.resources.filter((resource) => resource.outcome === "unknown" && resource.reason?.startsWith("could not read the list of APIs, to find the API named"));
    expect(named.map((resource) => resource.address).filter((address) => address.includes("name:api-6"))).toHaveLength(13);
    expect(named[0]!.reason).toMatch(/^could not read the list of APIs, to find the API named "[\w-]+": apigateway GetApis failed: 403 AccessDeniedException: /);
    const byId = report.resources.filter((resource) => resource.address.startsWith("Route/shardapi00/"));
    expect(byId.map((resource) => resource.outcome).sort()).toEqual(outcomeLines({ resources: single.resources.filter((resource) => resource.address.startsWith("Route/shardapi00/")) }).map((line) => line.split(" ")[0]).sort());
  });

  it("refuses to shard when the documents that name their API cannot be keyed by its ID", async () => {
    await expect(detectDrift(desired, limited, { shard: { index: 1, count: 2 } })).rejects.toThrow(/GetApis failed: 403 AccessDeniedException/);
  });
});

describe("a token that may not read routes", () => {
  it("makes every document of an API unknown with the failed read, and compares the accounts' documents as usual", async () => {
    const limited = world.clientsAs(NO_ROUTES_TOKEN, { retry: DEFAULT_RETRY_POLICY });
    const report = await detectDrift(desired, limited);
    const gateway = report.resources.filter((resource) => /^(Route|Integration|Api)\//.test(resource.address));
    const failedReads = gateway.filter((resource) => resource.reason?.match(/^could not read the routes and integrations of API \w+: apigateway GetRoutes failed: 403 AccessDeniedException/));
    // every gateway document but those whose API does not exist (nothing to read) or cannot be resolved by name
    expect(failedReads.length).toBe(documents.filter((loaded) => "api" in loaded.document).length - 2);
    expect(failedReads.every((resource) => resource.outcome === "unknown")).toBe(true);
    const accounts = (r: DriftReport) => r.resources.filter((resource) => !/^(Route|Integration|Api)\//.test(resource.address));
    expect(accounts(report)).toEqual(accounts(single));
  });
});

/** Documents of API 6: its Api document, 6 integrations and 6 routes. */
const PER_API_DOCUMENTS = 13;

describe.each([2, 5])("%i shards of the same estate as terraform state resources", (count) => {
  // what a state holds: resources, never Api documents; each document marked with the state and address it would come from
  const fromState = () => documents
    .filter((loaded) => loaded.document.kind !== "Api")
    .map((loaded, index): LoadedDocument => ({ ...loaded, document: loaded.document, locate: (path) => loaded.locate(path), terraform: { state: "terraform.tfstate", address: `converge_x.r[${index}]` } }));

  it("read what one process reads, and merge into its report", async () => {
    const input = { documents: [], stateDocuments: fromState(), fingerprint: "f".repeat(64) };
    service.requests.reset();
    const whole = await detectDrift(input, clients);
    const wholeReads = readCounts();
    service.requests.reset();
    const shards: DriftReport[] = [];
    for (let index = 1; index <= count; index += 1) shards.push(await detectDrift(input, clients, { shard: { index, count } }));
    expect(readCounts()).toEqual(wholeReads);
    expect(whole.resources.every((resource) => resource.source === null || "state" in resource.source)).toBe(true);
    const merged = mergeDriftReports(shards.map((report, i) => ({ report, file: `shard-${i + 1}.json` })));
    expect(normalizeReport(merged)).toEqual(normalizeReport(whole));
  });
});
