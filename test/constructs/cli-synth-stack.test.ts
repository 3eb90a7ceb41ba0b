import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeInventory, inventoryOf, sha256Hex } from "../../src/desired/inventory.js";
import { AnyDocument } from "../../src/desired/schema.js";
import type { RunningService } from "../../src/service/index.js";
import { MAX_NESTING_DEPTH } from "../../src/input-limits/nesting.js";
import { describeCliResult, runCli, type CliResult } from "../support/cli.js";
import { ADMIN_TOKEN, ORDERS_API, Services, liveContact, liveIntegrations, liveRoute, writeCounts, writeRequests } from "../e2e/e2e-fixture.js";

/**
 * The CLI side of a cdktf stack's deploy, as the stack's provisioners run it (no terminal, no
 * terraform): `apply --from-synth DIR --expect-sha256-env VAR --previous-env PREFIX` applies the
 * stack's converge.desired.json and deletes what the previous inventory lists that no document
 * claims now; `delete --from-synth DIR` deletes what the stack makes exist.
 */

const services = new Services();
let service: RunningService;
let directory: string;

beforeAll(async () => {
  service = await services.start();
  directory = await mkdtemp(join(tmpdir(), "converge-synth-stack-"));
});
afterAll(async () => {
  await services.closeAll();
  await rm(directory, { recursive: true, force: true });
});

type Doc = Record<string, unknown>;
const integration = (name: string, uri: string, api: unknown = ORDERS_API): Doc => ({ kind: "Integration", name, api, spec: { integrationType: "HTTP_PROXY", integrationUri: uri, integrationMethod: "ANY", payloadFormatVersion: "1.0" } });
const route = (routeKey: string, target: string, api: unknown = ORDERS_API, extra: Doc = {}): Doc => ({ kind: "Route", api, spec: { routeKey, target: { integration: target }, ...extra } });
const contact = (title: string, account?: string): Doc => ({ kind: "AlternateContact", ...(account ? { account } : {}), spec: { type: "OPERATIONS", name: "Ops", title, emailAddress: "ops@example.com", phoneNumber: "+1 555 0100" } });

/** Writes the stack's file as the constructs do and runs the CLI as the provisioners do; `previous`: the documents of the deploy before. */
async function deploy(documents: Doc[], previous?: Doc[], options: { tamper?: boolean; previousEnv?: Record<string, string> } = {}): Promise<CliResult> {
  const text = `${JSON.stringify(documents, null, 2)}\n`;
  await writeFile(join(directory, "converge.desired.json"), options.tamper ? text.replace("Ops", "Oops") : text);
  const chunks = previous ? encodeInventory(inventoryOf(previous.map((document) => AnyDocument.parse(document)))) : [];
  const env: Record<string, string> = { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, CONVERGE_DESIRED_SHA256: sha256Hex(text), ...Object.fromEntries(chunks.map((chunk, index) => [`CONVERGE_PREVIOUS_${index}`, chunk])), ...options.previousEnv };
  const args = ["apply", "--from-synth", directory, "--expect-sha256-env", "CONVERGE_DESIRED_SHA256", ...(previous || options.previousEnv ? ["--previous-env", "CONVERGE_PREVIOUS"] : []), "--auto-approve"];
  service.requests.reset();
  return runCli(args, { env });
}

async function deployed(documents: Doc[], previous?: Doc[]): Promise<void> {
  const result = await deploy(documents, previous);
  expect(result.code, describeCliResult(result)).toBe(0);
}

describe("converge apply --from-synth with the previous inventory", () => {
  it("deletes an integration the stack no longer declares, after moving the route that targeted it", async () => {
    const first = [integration("a", "https://a.example/x"), route("GET /moved", "a")];
    await deployed(first);
    const [a] = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === "https://a.example/x");
    const second = [integration("b", "https://b.example/x"), route("GET /moved", "b")];
    await deployed(second, first);
    expect(writeRequests(service).map((record) => record.operation)).toEqual(["CreateIntegration", "UpdateRoute", "DeleteIntegration"]);
    expect(writeRequests(service)[2]!.path).toContain(a!.integrationId);
    const [b] = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === "https://b.example/x");
    expect((await liveRoute(service, ORDERS_API, "GET /moved")).target).toBe(`integrations/${b!.integrationId}`);
    // the same deploy again: nothing left to delete, nothing to write
    await deployed(second, first);
    expect(writeRequests(service)).toEqual([]);
  });

  it("keeps a resource the stack now names another way: its API by name instead of apiId, its integration under a new logical name", async () => {
    const first = [integration("c", "https://c.example/x"), route("GET /same", "c")];
    await deployed(first);
    const second = [integration("c-renamed", "https://c.example/x", { name: "orders" }), route("GET /same", "c-renamed", { name: "orders" })];
    await deployed(second, first);
    expect(writeRequests(service)).toEqual([]);
    expect((await liveIntegrations(service, ORDERS_API)).filter((item) => item.integrationUri === "https://c.example/x")).toHaveLength(1);
  });

  it("keeps a route whose key changed under a pinned routeId (renamed in place, not deleted)", async () => {
    const first = [integration("d", "https://d.example/x"), route("GET /old-key", "d")];
    await deployed(first);
    const { routeId } = await liveRoute(service, ORDERS_API, "GET /old-key");
    const pinnedBefore = [integration("d", "https://d.example/x"), route("GET /old-key", "d", ORDERS_API, { routeId })];
    await deployed(pinnedBefore, first);
    const renamed = [integration("d", "https://d.example/x"), route("GET /new-key", "d", ORDERS_API, { routeId })];
    await deployed(renamed, pinnedBefore);
    expect(writeCounts(service)).toEqual({ UpdateRoute: 1 });
    expect((await liveRoute(service, ORDERS_API, "GET /new-key")).routeId).toBe(routeId);
  });

  it("never deletes a contact on a guess: one named by an account ID on one side and by the caller's account on the other may be the same", async () => {
    await deployed([contact("Lead")]);
    await deployed([contact("Lead")], [contact("Lead", "222222222222")]);
    expect(writeRequests(service)).toEqual([]);
    expect(await liveContact(service, "OPERATIONS")).toMatchObject({ Title: "Lead" });
  });

  it("has nothing to delete for a removed resource whose API no longer exists", async () => {
    await deployed([contact("Lead")]);
    const result = await deploy([contact("Lead")], [contact("Lead"), route("GET /gone", "x", { name: "no-such-api" })]);
    expect(result.code, describeCliResult(result)).toBe(0);
    expect(writeRequests(service)).toEqual([]);
  });

  it("refuses a desired-state file that is not the one terraform planned with, sending nothing", async () => {
    const result = await deploy([contact("Changed")], undefined, { tamper: true });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/converge\.desired\.json is not the desired state terraform planned with \(sha256 [0-9a-f]{64}, expected [0-9a-f]{64} from CONVERGE_DESIRED_SHA256\): nothing was changed/);
    expect(service.requests.count()).toBe(0);
  });

  it("refuses a previous inventory that is not one, naming the variables and never their value", async () => {
    const result = await deploy([contact("Lead")], undefined, { previousEnv: { CONVERGE_PREVIOUS_0: "secret-looking-value-91" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("--previous-env CONVERGE_PREVIOUS: CONVERGE_PREVIOUS_0… is not an inventory written by converge's constructs");
    expect(result.stderr).not.toContain("secret-looking-value-91");
    expect(service.requests.count()).toBe(0);
  });

  it("refuses a previous inventory nested too deeply (issue 21), saying where, sending nothing", async () => {
    const deep = gzipSync(`[${"[".repeat(100_000)}${"]".repeat(100_000)}]`).toString("base64");
    const result = await deploy([contact("Lead")], undefined, { previousEnv: { CONVERGE_PREVIOUS_0: deep } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`--previous-env CONVERGE_PREVIOUS: CONVERGE_PREVIOUS_0… is not an inventory written by converge's constructs (gzip-compressed JSON in base64): line 1, column ${MAX_NESTING_DEPTH + 1}: nested too deeply`);
    expect(service.requests.count()).toBe(0);
  });
});

describe("converge delete --from-synth", () => {
  it("deletes every deletable resource of the stack, routes before integrations, and leaves Regions", async () => {
    const documents = [integration("e", "https://e.example/x"), route("GET /e", "e"), { kind: "RegionOptIn", spec: { region: "ap-east-1", enabled: true } }];
    await deployed(documents);
    const text = `${JSON.stringify(documents, null, 2)}\n`;
    service.requests.reset();
    const result = await runCli(["delete", "--from-synth", directory, "--expect-sha256-env", "SHA", "--auto-approve"], { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, SHA: sha256Hex(text) } });
    expect(result.code, describeCliResult(result)).toBe(0);
    expect(writeRequests(service).map((record) => record.operation)).toEqual(["DeleteRoute", "DeleteIntegration"]);
  });
});
