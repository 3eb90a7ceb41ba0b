import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorldInput } from "../../src/service/index.js";
import { mulberry32 } from "../../src/service/faults.js";
import { journalLine } from "../support/journal.js";
import { runProcess } from "../support/run-process.js";
import { convergeCommand } from "../support/converge-command.js";
import { startServeProcess, type ServeProcess } from "../support/serve-process.js";

/**
 * Issue 14, build 1 and 3: a state file is replaced by the world's seed data only when it does not
 * exist or is empty. Every other file that cannot be read refuses the start of a real
 * `converge serve --state-file` child process with a message naming the file, the line and byte,
 * what was found and what was expected, and how to recover, and the file is left byte for byte as
 * it was. Only a last record without its newline may be torn (a crash mid-append): it is dropped,
 * said so on stderr. A whole last line that fails its check is damage (issue 21), refused like the rest.
 */

const TOKEN = "admin-token";
const ACCOUNT = "111111111111";
const world: WorldInput = {
  accounts: [ACCOUNT],
  identities: [{ token: TOKEN, accountId: ACCOUNT, allow: ["*"] }],
  regions: [{ regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" }, { regionName: "af-south-1", optStatus: "DISABLED" }],
  regionTransitionMs: 0,
  apis: [{ apiId: "seedapi001", name: "seeded", protocolType: "HTTP", target: "https://seed.example/" }],
};
const CONTACT = { AlternateContactType: "BILLING", EmailAddress: "billing@example.com", Name: "Billing", PhoneNumber: "+1 555 0100", Title: "Lead" };

let directory: string;
let worldFile: string;
/** A state file as `serve` writes it: a snapshot line and one record per write. */
let goodFile: Buffer;
let goodLines: string[];
const running: ServeProcess[] = [];



function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function request(url: string, method: string, path: string, body?: unknown) {
  const client = new Pool(url);
  try {
    const response = await client.request({
      method: method as "GET",
      path,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, json: text ? JSON.parse(text) as unknown : undefined };
  } finally {
    await client.close();
  }
}

async function serve(stateFile: string): Promise<ServeProcess> {
  const service = await startServeProcess({ worldFile, stateFile });
  running.push(service);
  return service;
}

beforeAll(async () => {
  convergeCommand();
  directory = await mkdtemp(join(tmpdir(), "converge-state-damage-"));
  worldFile = join(directory, "world.json");
  await writeFile(worldFile, JSON.stringify(world));
  const stateFile = join(directory, "good.jsonl");
  const service = await serve(stateFile);
  expect((await request(service.url, "POST", "/putAlternateContact", CONTACT)).status).toBe(200);
  expect((await request(service.url, "POST", "/enableRegion", { RegionName: "af-south-1" })).status).toBe(200);
  expect((await request(service.url, "POST", "/v2/apis/seedapi001/integrations", { integrationType: "HTTP_PROXY", integrationUri: "https://a.example/", integrationMethod: "ANY", payloadFormatVersion: "1.0" })).status).toBe(201);
  expect(await service.stop("SIGTERM")).toEqual({ code: 0, signal: null });
  goodFile = await readFile(stateFile);
  goodLines = goodFile.toString("utf8").split("\n").slice(0, -1);
  expect(goodLines, "a snapshot line and three records").toHaveLength(4);
});

afterAll(async () => {
  await Promise.all(running.splice(0).map((service) => service.stop("SIGKILL")));
  await rm(directory, { recursive: true, force: true });
});

/**
 * Starts `serve --state-file PATH`, which must exit 1 without listening; returns its stderr.
 * A service that starts anyway would not exit: the run's time limit then fails the test.
 */
async function refusedStart(path: string): Promise<string> {
  const converge = convergeCommand();
  const result = await runProcess(converge.file, [...converge.args, "serve", "--port", "0", "--world", worldFile, "--state-file", path], {
    env: { PATH: process.env.PATH ?? "" },
    timeoutMs: 15_000,
  });
  expect(result.stdout, "the service must not start listening").toBe("");
  expect(result.code, `exit code (stderr: ${result.stderr})`).toBe(1);
  return result.stderr;
}

let fileCounter = 0;
/** Writes `content` as a new state file, expects the start to be refused, and the file unchanged. */
async function expectRefused(content: Buffer | string, expected: ReadonlyArray<RegExp>): Promise<string> {
  const path = join(directory, `damaged-${(fileCounter += 1)}.jsonl`);
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  await writeFile(path, bytes);
  const before = await stat(path);
  const stderr = await refusedStart(path);
  expect(stderr).toContain(`state file ${path}`);
  expect(stderr).toMatch(/move it aside \(mv .+ .+\.damaged\)/);
  for (const pattern of expected) expect(stderr).toMatch(pattern);
  const after = await readFile(path);
  expect(sha256(after), "the refused file is unchanged on disk").toBe(sha256(bytes));
  expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
  return stderr;
}

/** The good file with line `index` (0: the snapshot) replaced by `replacement` (a whole line with its newline). */
function withLine(index: number, replacement: string): string {
  return goodLines.map((text, i) => (i === index ? replacement : `${text}\n`)).join("");
}

/** The JSON of line `index` of the good file, parsed. */
function jsonOf(index: number): Record<string, unknown> {
  return JSON.parse(goodLines[index]!.slice(9)) as Record<string, unknown>;
}

describe("serve --state-file refuses a damaged state file, names it, and leaves it unchanged", () => {
  it("a file cut inside its snapshot line", async () => {
    const cut = goodFile.subarray(0, Math.floor(goodLines[0]!.length / 2));
    await expectRefused(cut, [/line 1 \(byte 0\) is cut off: \d+ bytes/, /and no newline; expected a whole snapshot line ending in a newline/]);
  });

  it("a file cut to one byte", async () => {
    await expectRefused(goodFile.subarray(0, 1), [/line 1 \(byte 0\) is cut off: 1 byte \("[0-9a-f]"\)/]);
  });

  it("a text without a newline", async () => {
    await expectRefused("these are not the bytes you are looking for", [/is cut off: 43 bytes \("these are not the bytes you are looking …"\) and no newline/]);
  });

  it("a file of garbage", async () => {
    const random = mulberry32(14);
    const garbage = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(random() * 256)));
    garbage[100] = 0x0a; // with newlines, so that it is not taken for a cut-off line
    garbage[2000] = 0x0a;
    await expectRefused(garbage, [/line 1 \(byte 0\) begins with .+; expected a converge state file/]);
  });

  it("a directory in the file's place", async () => {
    const path = join(directory, "a-directory.jsonl");
    await mkdir(path);
    await writeFile(join(path, "keep.txt"), "kept");
    const stderr = await refusedStart(path);
    expect(stderr).toContain(`state file ${path} is a directory; expected a state file`);
    expect(stderr).toContain("move the directory aside");
    expect(await readdir(path)).toEqual(["keep.txt"]);
  });

  it("a read-only file (its writes could not be made durable)", async () => {
    const path = join(directory, "read-only.jsonl");
    await writeFile(path, goodFile);
    await chmod(path, 0o444);
    const stderr = await refusedStart(path);
    expect(stderr).toContain(`state file ${path} is read-only (mode 0444); expected a writable file`);
    expect(stderr).toContain(`chmod u+w ${path}`);
    expect(sha256(await readFile(path))).toBe(sha256(goodFile));
    expect((await stat(path)).mode & 0o777).toBe(0o444);
  });

  describe("wrong JSON shape, by record type", () => {
    it("a snapshot line whose snapshot is not a list", async () => {
      const snapshot = { ...jsonOf(0), snapshot: { not: "a list" } };
      await expectRefused(withLine(0, journalLine(JSON.stringify(snapshot))), [/line 1 \(byte 0\) is not a snapshot line: snapshot .* is not valid: expected array/, /expected \{"converge":"state","version":2,"seq":<integer>,"snapshot":/]);
    });

    it("a snapshot line that is a number", async () => {
      await expectRefused(withLine(0, journalLine("7")), [/line 1 \(byte 0\) is 7, not a snapshot line; expected \{"converge":"state"/]);
    });

    it("a snapshot line of a newer format", async () => {
      await expectRefused(withLine(0, journalLine(JSON.stringify({ ...jsonOf(0), version: 3 }))), [/line 1 \(byte 0\) is format version 3; expected version 2 or older: the file was written by a newer converge/]);
    });

    it("a record line whose changes are not a list", async () => {
      await expectRefused(withLine(2, journalLine(JSON.stringify({ seq: 2, m: "x" }))), [/line 3 \(byte \d+\) is not a record line: m "x" is not valid: expected array/, /expected \{"seq":<integer>,"m":\[\[collection, key, value or null\], …\]\}/]);
    });

    it("a record line without its sequence number", async () => {
      const record = jsonOf(2);
      delete record.seq;
      await expectRefused(withLine(2, journalLine(JSON.stringify(record))), [/line 3 \(byte \d+\) is not a record line: seq is required/]);
    });

    it("a change that is not a [collection, key, value] triple", async () => {
      await expectRefused(withLine(1, journalLine(JSON.stringify({ seq: 1, m: [["contacts", 5]] }))), [/line 2 \(byte \d+\) is not a record line: m\[0\] \["contacts",5\] is not valid: Too small: expected array to have >=3 items/]);
    });

    it("a change to an unknown collection", async () => {
      await expectRefused(withLine(1, journalLine(JSON.stringify({ seq: 1, m: [["widgets", "w1", {}]] }))), [/line 2 \(byte \d+\) m\[0\]\[0\] names collection "widgets"; expected one of "meta", .*"integrations"/]);
    });

    const badValues: ReadonlyArray<[string, string, unknown, RegExp]> = [
      ["contacts", `${ACCOUNT}/BILLING`, { ...CONTACT, EmailAddress: 42 }, /m\[0\]\[2\]\.EmailAddress 42 is not valid: expected string/],
      ["regions", `${ACCOUNT}/af-south-1`, { status: "HALF_ENABLED" }, /m\[0\]\[2\]\.status "HALF_ENABLED" is not valid/],
      ["apis", "seedapi002", { api: { apiId: "seedapi002" }, owner: ACCOUNT, seq: 9 }, /m\[0\]\[2\]\.api\.name is required/],
      ["routes", "seedapi001/r000001", { route: { routeId: "r000001", routeKey: "GET /x" } }, /m\[0\]\[2\]\.seq is required/],
      ["integrations", "seedapi001/i000001", { integration: { integrationType: "HTTP_PROXY" }, seq: 9 }, /m\[0\]\[2\]\.integration\.integrationId is required/],
      ["meta", "pagingKey", { key: "not a string" }, /m\[0\]\[2\] .* is not valid: expected string/],
    ];
    it.each(badValues)("a value of collection %s of the wrong shape", async (collection, key, value, problem) => {
      const stderr = await expectRefused(withLine(3, journalLine(JSON.stringify({ seq: 3, m: [[collection, key, value]] }))), [problem]);
      expect(stderr).toMatch(new RegExp(`line 4 \\(byte \\d+\\) holds a value of collection "${collection}" \\(key "${key.replace("/", "\\/")}"\\) that is not valid`));
    });

    it("a value of the wrong shape in the snapshot", async () => {
      const snapshot = jsonOf(0) as { snapshot: Array<[string, string, unknown]> };
      const tuples = snapshot.snapshot.map(([collection, key, value]) => [collection, key, collection === "integrations" ? { seq: 1 } : value]);
      await expectRefused(withLine(0, journalLine(JSON.stringify({ ...snapshot, snapshot: tuples }))), [/line 1 \(byte 0\) holds a value of collection "integrations" .* snapshot\[\d+\]\[2\]\.integration is required/]);
    });

    it("a record whose value nests lists 100,000 deep (issue 21: refused before it is parsed)", async () => {
      const json = `{"seq":3,"m":[["contacts","${ACCOUNT}/BILLING",${"[".repeat(100_000)}${"]".repeat(100_000)}]]}`;
      const column = 9 + json.indexOf("[[[") + 62;
      await expectRefused(withLine(3, journalLine(json)), [new RegExp(`line 4 \\(byte \\d+\\) nests lists and mappings too deeply: one opens at level 65 \\(column ${column}\\); expected at most 64 levels`)]);
    });

    it("a route of an API that does not exist", async () => {
      const route = { route: { routeId: "r000001", routeKey: "GET /x" }, seq: 9 };
      await expectRefused(withLine(3, journalLine(JSON.stringify({ seq: 3, m: [["routes", "noapi00001/r000001", route]] }))), [/line 4 \(byte \d+\) holds route "r000001" of API "noapi00001", which does not exist/]);
    });
  });

  describe("damage before the last record (not a torn write)", () => {
    it("a record whose checksum does not match, with records after it", async () => {
      const altered = goodLines[1]!.replace('"Name":"Billing"', '"Name":"Billinh"');
      expect(altered).not.toBe(goodLines[1]);
      await expectRefused(withLine(1, `${altered}\n`), [/line 2 \(byte \d+\) has checksum [0-9a-f]{8} but its content sums to [0-9a-f]{8}, and 2 more lines \(\d+ bytes\) follow it/, /only the last line can be torn by a crash/]);
    });

    it("a record cut short in the middle of the file", async () => {
      await expectRefused(withLine(2, `${goodLines[2]!.slice(0, 40)}\n`), [/line 3 \(byte \d+\) has checksum/]);
    });

    it("a missing record (a gap in the sequence)", async () => {
      await expectRefused(withLine(2, ""), [/line 3 \(byte \d+\) holds record 3 right after record 1: record 2 is missing; expected record 2/]);
    });

    it("a record repeated", async () => {
      await expectRefused(withLine(3, `${goodLines[2]}\n`), [/line 4 \(byte \d+\) holds record 2 right after record 2; expected record 3: the records of a state file are numbered one by one/]);
    });
  });

  describe("a whole last line that fails its check (damage: a torn write never ends in its newline)", () => {
    const lastOffset = () => goodFile.length - Buffer.byteLength(goodLines[3]!) - 1;
    const cases: ReadonlyArray<[string, () => string, RegExp]> = [
      ["a checksum that does not match", () => `${goodLines[3]!.replace("https://a.example/", "https://b.example/")}\n`, /has checksum [0-9a-f]{8} but its content sums to [0-9a-f]{8}, and it is the last line, whole/],
      ["no checksum prefix: {}", () => "{}\n", /begins with "\{\}", and it is the last line, whole/],
      ["no checksum prefix: null", () => "null\n", /begins with "null", and it is the last line, whole/],
      ["a record without its checksum", () => `${goodLines[3]!.slice(9)}\n`, /begins with "\{\\"seq\\":3,\\"m\\":.*", and it is the last line, whole/],
    ];
    it.each(cases)("refuses a last line with %s, naming its line and byte and how to cut it off", async (_name, line, found) => {
      const stderr = await expectRefused(withLine(3, line()), [found, new RegExp(`line 4 \\(byte ${lastOffset()}\\)`), /a write torn by a crash never ends in its newline, so a whole line that fails its check is damage/]);
      expect(stderr).toContain(`cut it off instead (truncate -s ${lastOffset()} `);
    });

    it("refuses a last record numbered out of sequence (a gap, a repeat), naming its line and byte", async () => {
      const skipped = journalLine(JSON.stringify({ ...jsonOf(3), seq: 5 }));
      const stderr = await expectRefused(withLine(3, skipped), [new RegExp(`line 4 \\(byte ${lastOffset()}\\) holds record 5 right after record 2: records 3 to 4 are missing; expected record 3`)]);
      expect(stderr).toContain(`(truncate -s ${lastOffset()} `);
      await expectRefused(withLine(3, journalLine(JSON.stringify({ ...jsonOf(3), seq: 2 }))), [/line 4 \(byte \d+\) holds record 2 right after record 2; expected record 3/]);
    });
  });

  describe("format 1 (before checksums): the shapes the issue found, now refused by name", () => {
    it("a snapshot that is not a list (was: tuples is not iterable)", async () => {
      await expectRefused('{"snapshot":5}\n', [/line 1 \(byte 0\) is not a snapshot line \(format 1\): snapshot 5 is not valid: expected array/]);
    });

    it("a record that is a number (was: Cannot use 'in' operator)", async () => {
      await expectRefused('{"snapshot":[]}\n7\n', [/line 2 \(byte 16\) is 7, not a record line \(format 1\)/]);
    });

    it("an integration without its fields (was: reading 'integrationId')", async () => {
      await expectRefused('{"snapshot":[]}\n{"m":[["integrations","seedapi001/abc",{"seq":3}]]}\n', [/line 2 \(byte 16\) holds a value of collection "integrations" .*m\[0\]\[2\]\.integration is required/]);
    });

    it("a line of format 1 that is not JSON before the last", async () => {
      await expectRefused('{"snapshot":[]}\n{"m":[[\n{"m":[]}\n', [/line 2 \(byte 16\) is not JSON/]);
    });
  });
});

describe("serve --state-file starts from what it can read", () => {
  it("a missing file, and a 0-byte file, start from the world's seed data and are written", async () => {
    for (const [name, create] of [["missing.jsonl", false], ["empty.jsonl", true]] as const) {
      const path = join(directory, name);
      if (create) await writeFile(path, "");
      const service = await serve(path);
      const apis = await request(service.url, "GET", "/v2/apis");
      expect((apis.json as { items: Array<{ apiId: string }> }).items.map((api) => api.apiId)).toEqual(["seedapi001"]);
      expect(await service.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(await readFile(path, "utf8")).toMatch(/^[0-9a-f]{8} \{"converge":"state","version":2,"seq":0,"snapshot":\[/);
    }
  });

  it.each([
    ["a last record cut off (no newline)", () => goodFile.subarray(0, goodFile.length - 20), /dropped a torn last record at line 4 \(byte \d+, \d+ bytes; it has no newline/],
    ["a last record cut off inside its checksum", () => Buffer.concat([Buffer.from(withLine(3, "")), Buffer.from(goodLines[3]!.slice(0, 5))]), /dropped a torn last record at line 4 \(byte \d+, 5 bytes; it has no newline/],
    ["a last record of zeros (a tail the file system never wrote)", () => Buffer.concat([Buffer.from(withLine(3, "")), Buffer.alloc(300)]), /dropped a torn last record at line 4 \(byte \d+, 300 bytes/],
  ])("%s is dropped, said so, and cut off; the records before it are kept", async (_name, content, notice) => {
    const path = join(directory, `torn-${(fileCounter += 1)}.jsonl`);
    await writeFile(path, content());
    const service = await serve(path);
    expect(service.stderr()).toMatch(notice);
    expect(service.stderr()).toContain(`state file ${path}: dropped a torn last record`);
    const contact = await request(service.url, "POST", "/getAlternateContact", { AlternateContactType: "BILLING" });
    expect(contact).toEqual({ status: 200, json: { AlternateContact: CONTACT } });
    const region = await request(service.url, "POST", "/getRegionOptStatus", { RegionName: "af-south-1" });
    expect(region.json).toEqual({ RegionName: "af-south-1", RegionOptStatus: "ENABLED" });
    const integrations = await request(service.url, "GET", "/v2/apis/seedapi001/integrations");
    expect((integrations.json as { items: unknown[] }).items, "the managed integration only: the torn one is gone").toHaveLength(1);
    expect(await service.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect((await readFile(path, "utf8")).startsWith(goodLines.slice(0, 3).join("\n"))).toBe(true);
  });

  it("a file of format 1 is read, converted to format 2, and keeps its state", async () => {
    const path = join(directory, "format-1.jsonl");
    const records = goodLines.map((text) => JSON.parse(text.slice(9)) as { snapshot?: unknown; m?: unknown });
    const legacy = records.map((record) => JSON.stringify(record.snapshot ? { snapshot: record.snapshot } : { m: record.m })).join("\n");
    await writeFile(path, `${legacy}\n{"m":[["contacts","${ACCOUNT}/SECURITY",{"AlternateContactType":"SECU`);
    const service = await serve(path);
    expect(service.stderr()).toContain(`state file ${path}: converted from format 1 to format 2`);
    expect(service.stderr()).toMatch(/dropped a torn last record at line 5/);
    expect(await request(service.url, "POST", "/getAlternateContact", { AlternateContactType: "BILLING" })).toEqual({ status: 200, json: { AlternateContact: CONTACT } });
    expect((await request(service.url, "POST", "/getAlternateContact", { AlternateContactType: "SECURITY" })).status).toBe(404);
    expect((await request(service.url, "POST", "/putAlternateContact", { ...CONTACT, AlternateContactType: "OPERATIONS" })).status).toBe(200);
    expect(await service.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    const converted = (await readFile(path, "utf8")).split("\n");
    expect(converted[0]).toMatch(/^[0-9a-f]{8} \{"converge":"state","version":2,"seq":0,/);
    expect(converted[1]).toMatch(/^[0-9a-f]{8} \{"seq":1,"m":\[\["contacts","111111111111\/OPERATIONS"/);

    const again = await serve(path);
    expect(again.stderr()).not.toContain("converted");
    expect((await request(again.url, "POST", "/getAlternateContact", { AlternateContactType: "OPERATIONS" })).status).toBe(200);
    expect((await request(again.url, "POST", "/getRegionOptStatus", { RegionName: "af-south-1" })).json).toEqual({ RegionName: "af-south-1", RegionOptStatus: "ENABLED" });
  });
});
