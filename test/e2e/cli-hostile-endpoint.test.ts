import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_ANSWER_BYTES } from "../../src/clients/index.js";
import { runProcess } from "../support/run-process.js";
import { convergeCommand } from "../support/converge-command.js";
import { HOSTILE_OPERATIONS, startHostileServer, type HostileBehaviour, type HostileOperation, type HostileServer } from "../support/hostile-server.js";
import { TempDirs, writeFiles } from "./e2e-fixture.js";

/**
 * Issue 27: the compiled CLI (plan, drift, export) against an endpoint that misbehaves on one
 * operation (test/support/hostile-server.ts). Every run ends by itself with exit 1 and one
 * `converge: …` line naming what went wrong; the token never shows; runs are measured with
 * /usr/bin/time (peak resident memory) and bounded by the child's own time limit.
 */

const TOKEN = "tok-hostile-endpoint-SECRET-5f3a91";
const dirs = new TempDirs();
const servers: HostileServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await dirs.cleanup();
});

/** A route (its API by name: GetApis), a contact and a Region opt-in: every listing and read of a plan. */
const ESTATE = `kind: Route
api: {name: orders}
spec: {routeKey: GET /orders}
---
kind: AlternateContact
spec: {type: SECURITY, name: Security Team, title: CISO, emailAddress: security@example.com, phoneNumber: "+1 555 0100"}
---
kind: RegionOptIn
spec: {region: ap-east-1, enabled: true}
`;

const COMMANDS: Record<"plan" | "drift" | "export", ReadonlyArray<string>> = {
  plan: ["plan", "-f", "estate.yaml"],
  drift: ["drift", "-f", "estate.yaml"],
  export: ["export", "--api", "a1b2c3d4e5", "--account", "self"],
};

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** Peak resident memory of the CLI process (GNU time's %M), in KiB. */
  readonly maxRssKib: number;
  readonly server: HostileServer;
}

async function start(attack: HostileOperation, behaviour: HostileBehaviour, redirectTo?: string): Promise<HostileServer> {
  const server = await startHostileServer({ attack, behaviour, ...(redirectTo ? { redirectTo } : {}) });
  servers.push(server);
  return server;
}

/** `converge ARGS` against `server` under /usr/bin/time, killed (and failing) after `timeoutMs`. */
async function run(server: HostileServer, args: ReadonlyArray<string>, timeoutMs: number): Promise<Run> {
  const dir = await dirs.make("hostile-endpoint");
  await writeFiles(dir, { "estate.yaml": ESTATE });
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1", CONVERGE_ENDPOINT: server.url, CONVERGE_TOKEN: TOKEN };
  const converge = convergeCommand();
  const result = await runProcess("/usr/bin/time", ["-f", "max-rss-kib=%M", converge.file, ...converge.args, ...args], { cwd: dir, env, timeoutMs });
  // GNU time adds "Command exited with non-zero status N" before its own line
  const rss = /(Command exited with non-zero status \d+\n)?max-rss-kib=(\d+)\n?$/.exec(result.stderr);
  expect(rss, result.stderr).not.toBeNull();
  return { code: result.code, stdout: result.stdout, stderr: result.stderr.slice(0, rss!.index), wallMs: result.wallMs, maxRssKib: Number(rss![2]), server };
}

function describeRun(result: Run): string {
  return `exit ${result.code} after ${Math.round(result.wallMs)} ms, peak RSS ${result.maxRssKib} KiB, requests ${result.server.received.join(",")}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}

/**
 * Plan and export: exit 1 with one `converge: …` line. Drift: exit 3 (docs/manual/commands.md, "Exit codes": some
 * resource unknown), the resource that could not be read reported unknown with the reason. Both: no
 * stack trace, the token nowhere, and the token sent only to the server.
 */
function expectCleanFailure(result: Run, command: keyof typeof COMMANDS = "plan"): void {
  if (command === "drift") {
    expect(result.code, describeRun(result)).toBe(3);
    expect(result.stdout, describeRun(result)).toMatch(/^converge drift: Some resources could not be compared/);
    expect(result.stdout, describeRun(result)).toMatch(/\n {6}could not read the routes and integrations of API a1b2c3d4e5: apigateway /);
    expect(result.stderr, describeRun(result)).toBe("");
  } else {
    expect(result.code, describeRun(result)).toBe(1);
    expect(result.stderr, describeRun(result)).toMatch(/^converge: /);
    expect(result.stderr.trimEnd().split("\n"), describeRun(result)).toHaveLength(1);
  }
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at /);
  expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
  expect(result.server.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
}

const MIB = 1024;

/** What a run printed, both streams. */
const output = (result: Run) => `${result.stdout}${result.stderr}`;

describe("an answer that never ends (200 JSON, 1 GiB at full speed)", { timeout: 90_000 }, () => {
  it.each(Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>)("converge %s fails within seconds (drift: the resource unknown, exit 3), naming the size limit and the endpoint, under 300 MiB resident", async (command) => {
    const server = await start("GetRoutes", "endless");
    const result = await run(server, COMMANDS[command], 60_000);
    expectCleanFailure(result, command);
    expect(output(result)).toContain(`apigateway GetRoutes answered outside its contract: the answer is larger than the limit of 64 MiB (${DEFAULT_MAX_ANSWER_BYTES} bytes)`);
    expect(output(result)).toContain(`endpoint ${server.url}`);
    expect(result.maxRssKib, describeRun(result)).toBeLessThan(300 * MIB);
    // aborted, not retried: one GetRoutes, and far from the whole GiB sent
    expect(result.server.received.filter((operation) => operation === "GetRoutes")).toHaveLength(1);
    expect(server.bytesWritten()).toBeLessThan(512 * 1024 * 1024);
    console.info(`endless answer, converge ${command}: exit ${result.code} after ${Math.round(result.wallMs)} ms, peak RSS ${(result.maxRssKib / MIB).toFixed(0)} MiB, ${(server.bytesWritten() / 1024 / 1024).toFixed(0)} MiB sent`);
  });
});

describe("apply and delete read through the same clients", { timeout: 90_000 }, () => {
  it.each([
    ["apply", ["apply", "-f", "estate.yaml", "--auto-approve"]],
    ["delete", ["delete", "--document-env", "DOCUMENTS", "--auto-approve"]],
  ] as const)("converge %s fails on the 1 GiB answer with exit 1, naming the limit, writing nothing", async (_name, args) => {
    const server = await start("GetRoutes", "endless");
    const dir = await dirs.make("hostile-writes");
    await writeFiles(dir, { "estate.yaml": ESTATE });
    const documents = JSON.stringify([{ kind: "Route", api: "a1b2c3d4e5", spec: { routeKey: "GET /orders" } }]);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1", CONVERGE_ENDPOINT: server.url, CONVERGE_TOKEN: TOKEN, DOCUMENTS: documents };
    const result = await runProcess(convergeCommand().file, [...convergeCommand().args, ...args], { cwd: dir, env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^converge: /);
    expect(result.stderr).toContain("apigateway GetRoutes answered outside its contract: the answer is larger than the limit of 64 MiB");
    expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
    // reads only: a write would be recorded by its method and path
    expect(server.received.filter((operation) => !(HOSTILE_OPERATIONS as ReadonlyArray<string>).includes(operation))).toEqual([]);
    expect(server.received).toContain("GetRoutes");
  });
});

/**
 * A slow drip with --request-timeout 2: each attempt ends at its 2 s deadline; the default policy
 * makes 6 attempts with at most 100 + 200 + 400 + 800 + 1600 ms of back-off between them, so a run
 * ends within 6 × 2 s + 3.1 s = 15.1 s plus the process's start (bound asserted: 25 s).
 */
describe("a slow drip (headers at once, then one byte a second)", { timeout: 90_000 }, () => {
  it.concurrent.each(Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>)("converge %s --request-timeout 2 fails within the deadline plus the retries' back-off, saying the deadline passed", async (command) => {
    const server = await start("GetRoutes", "drip");
    const result = await run(server, [...COMMANDS[command], "--request-timeout", "2"], 60_000);
    expectCleanFailure(result, command);
    expect(output(result)).toContain("apigateway GetRoutes: no answer from the service at");
    expect(output(result)).toContain("CONVERGE_DEADLINE: the answer was not complete within the deadline of 2 s per attempt");
    expect(result.wallMs, describeRun(result)).toBeLessThan(25_000);
    expect(result.server.received.filter((operation) => operation === "GetRoutes").length).toBeLessThanOrEqual(6);
    console.info(`slow drip, converge ${command} --request-timeout 2: exit ${result.code} after ${Math.round(result.wallMs)} ms, ${result.server.received.filter((operation) => operation === "GetRoutes").length} GetRoutes attempts`);
  });

  it("CONVERGE_REQUEST_TIMEOUT sets the same deadline", async () => {
    const server = await start("GetRoutes", "drip");
    const dir = await dirs.make("hostile-env");
    await writeFiles(dir, { "estate.yaml": ESTATE });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1", CONVERGE_ENDPOINT: server.url, CONVERGE_TOKEN: TOKEN, CONVERGE_REQUEST_TIMEOUT: "1.5" };
    const result = await runProcess(convergeCommand().file, [...convergeCommand().args, "plan", "-f", "estate.yaml"], { cwd: dir, env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain("the answer was not complete within the deadline of 1.500 s per attempt");
  });
});

describe("a next token that never changes", { timeout: 60_000 }, () => {
  const cases: ReadonlyArray<{ operation: HostileOperation; command: keyof typeof COMMANDS }> = [
    { operation: "GetApis", command: "plan" },
    { operation: "GetRoutes", command: "plan" },
    { operation: "GetIntegrations", command: "drift" },
    { operation: "ListRegions", command: "export" },
  ];
  it.each(cases)("$operation (converge $command) fails quickly after two pages, naming the repetition", async ({ operation, command }) => {
    const server = await start(operation, "repeat-token");
    const result = await run(server, COMMANDS[command], 30_000);
    expectCleanFailure(result, command);
    expect(output(result)).toContain(`${operation} answered outside its contract: the next token of page 2 repeats the one page 1 answered: the listing would never end (stopped after 2 requests)`);
    expect(result.server.received.filter((received) => received === operation)).toHaveLength(2);
    expect(result.wallMs).toBeLessThan(15_000);
  });
});

describe("what already held, kept", { timeout: 60_000 }, () => {
  it("refuses to follow a redirect, and the token never reaches the other origin", async () => {
    const elsewhere = await start("GetApi", "html");
    const server = await start("GetRoutes", "redirect", elsewhere.url);
    const result = await run(server, COMMANDS.plan, 30_000);
    expectCleanFailure(result);
    expect(result.stderr).toContain("apigateway GetRoutes failed: 307 HTTP307");
    expect(elsewhere.received).toEqual([]);
    expect(elsewhere.authorizations).toEqual([]);
  });

  const contractCases: ReadonlyArray<{ behaviour: HostileBehaviour; says: string }> = [
    { behaviour: "html", says: "apigateway GetRoutes answered outside its contract: body is not JSON: <html><body><h1>Welcome to the captive portal" },
    { behaviour: "wrong-shape", says: "apigateway GetRoutes answered outside its contract: items is required" },
    { behaviour: "deep", says: "apigateway GetRoutes answered outside its contract:" },
  ];
  it.each(contractCases)("refuses an answer of the $behaviour kind as a contract violation naming the operation", async ({ behaviour, says }) => {
    const server = await start("GetRoutes", behaviour);
    const result = await run(server, COMMANDS.drift, 30_000);
    expectCleanFailure(result, "drift");
    expect(output(result)).toContain(says);
    expect(result.server.received.filter((operation) => operation === "GetRoutes")).toHaveLength(1);
  });

  it.each([
    [
      "retries a connection cut mid-answer a bounded number of times, then names the operation",
      "cut",
      COMMANDS.plan,
      (result: Run) => expect(result.server.received.filter((operation) => operation === "GetRoutes")).toHaveLength(6),
    ],
    [
      "stops reading headers that never end at undici's limit, then names the operation",
      "endless-headers",
      COMMANDS.export,
      (result: Run) => expect(result.maxRssKib).toBeLessThan(300 * MIB),
    ],
  ] as const)("%s", async (_name, behaviour, command, check) => {
    const server = await start("GetRoutes", behaviour);
    const result = await run(server, command, 45_000);
    expectCleanFailure(result);
    expect(result.stderr).toContain("apigateway GetRoutes: no answer from the service at");
    check(result);
  });
});

describe("--request-timeout and CONVERGE_REQUEST_TIMEOUT are checked", () => {
  it.each([
    [["--request-timeout", "0"], {}, '--request-timeout "0" is not valid: expected seconds, a number above 0 and at most 86400, e.g. 60'],
    [["--request-timeout", "soon"], {}, '--request-timeout "soon" is not valid'],
    [[], { CONVERGE_REQUEST_TIMEOUT: "-5" }, 'CONVERGE_REQUEST_TIMEOUT "-5" is not valid: expected seconds'],
  ] as const)("refuses %j %j before any request, naming the value", async (flags, extra, message) => {
    const server = await start("GetRoutes", "html");
    const dir = await dirs.make("hostile-flags");
    await writeFiles(dir, { "estate.yaml": ESTATE });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1", CONVERGE_ENDPOINT: server.url, CONVERGE_TOKEN: TOKEN, ...extra };
    const result = await runProcess(convergeCommand().file, [...convergeCommand().args, "plan", "-f", "estate.yaml", ...flags], { cwd: dir, env, timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`converge: ${message}`);
    expect(server.received).toEqual([]);
  });
});
