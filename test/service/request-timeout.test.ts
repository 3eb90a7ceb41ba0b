import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorldInput } from "../../src/service/index.js";
import { convergeCommand } from "../support/converge-command.js";
import { startServeProcess, type ServeProcess } from "../support/serve-process.js";

/**
 * Issue 14, build 4: a request whose headers or body do not arrive within the bound
 * (`--request-timeout`, here 1 s) is answered 408 in the service's error shape and its connection
 * closed, while other clients are served as usual. Over a real `converge serve --state-file`.
 */

const TOKEN = "admin-token";
const ACCOUNT = "111111111111";
const BOUND_MS = 1000;
/** Node looks for late requests every BOUND_MS / 10; the answer may need a moment more on a busy machine. */
const SLACK_MS = 1500;
const world: WorldInput = {
  accounts: [ACCOUNT],
  identities: [{ token: TOKEN, accountId: ACCOUNT, allow: ["*"] }],
  regions: [{ regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" }],
  apis: [{ apiId: "timeout001", accountId: ACCOUNT, name: "timeouts", protocolType: "HTTP" }],
};

let directory: string;
let service: ServeProcess;
let host: string;
let port: number;

beforeAll(async () => {
  convergeCommand();
  directory = await mkdtemp(join(tmpdir(), "converge-request-timeout-"));
  const worldFile = join(directory, "world.json");
  await writeFile(worldFile, JSON.stringify(world));
  service = await startServeProcess({ worldFile, stateFile: join(directory, "state.jsonl"), requestTimeoutSeconds: BOUND_MS / 1000 });
  const url = new URL(service.url);
  host = url.hostname;
  port = Number(url.port);
});

afterAll(async () => {
  await service?.stop("SIGKILL");
  await rm(directory, { recursive: true, force: true });
});

interface SlowClient {
  /** Everything the service sent. */
  received(): string;
  /** Resolves with the milliseconds from the start until the service closed the connection. */
  readonly closed: Promise<number>;
  /** How many bytes of `trickle` the client sent. */
  trickled(): number;
}

/**
 * Opens a raw connection, sends `head` at once, then `trickle` one byte every `everyMs` until the
 * service closes it. `halfOpen`: a client that does not close its side when the service ends its own
 * and goes on sending.
 */
function slowClient(head: string, trickle: string, everyMs: number, halfOpen = false): SlowClient {
  const started = performance.now();
  const socket: Socket = connect({ port, host, allowHalfOpen: halfOpen });
  let received = "";
  let trickled = 0;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (received += chunk));
  socket.on("error", () => undefined); // a write after the service closed: expected
  socket.write(head);
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) return;
    socket.write(trickle[trickled % trickle.length]!);
    trickled += 1;
  }, everyMs);
  const closed = new Promise<number>((resolve) => socket.once("close", () => {
    clearInterval(timer);
    resolve(performance.now() - started);
  }));
  return { received: () => received, closed, trickled: () => trickled };
}

function parseResponse(text: string) {
  const split = text.indexOf("\r\n\r\n");
  const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
  const headers = Object.fromEntries(headerLines.map((line) => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  }));
  return { statusLine, headers, body: text.slice(split + 4) };
}

/**
 * Keeps calling the service from another client until `until` settles; returns each call's status,
 * and whether it was answered while `until` was still pending.
 */
async function otherClient(until: Promise<unknown>): Promise<Array<{ status: number; whilePending: boolean }>> {
  const client = new Pool(service.url, { connections: 2 });
  let done = false;
  void until.finally(() => (done = true));
  const calls: Array<{ status: number; whilePending: boolean }> = [];
  try {
    while (!done) {
      const response = await client.request({
        method: "POST",
        path: "/listRegions",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: "{}",
      });
      await response.body.text();
      calls.push({ status: response.statusCode, whilePending: !done });
      await sleep(50);
    }
  } finally {
    await client.close();
  }
  return calls;
}

const CONTACT = JSON.stringify({ AlternateContactType: "SECURITY", EmailAddress: "slow@example.com", Name: "Slow", PhoneNumber: "+1 555 0100", Title: "Slow" });

function postHead(path: string, length: number): string {
  return `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
}

describe("serve --request-timeout", () => {
  it("answers a body that dribbles in 408 in the account's error shape and closes the connection within the bound; others are served meanwhile", async () => {
    const slow = slowClient(postHead("/putAlternateContact", CONTACT.length), CONTACT, 100);
    const [closedAfterMs, others] = await Promise.all([slow.closed, otherClient(slow.closed)]);

    expect(closedAfterMs, "closed once the bound passed").toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(closedAfterMs, "closed within the bound (plus Node's check interval and a margin)").toBeLessThan(BOUND_MS + SLACK_MS);
    expect(slow.trickled(), "the body was still arriving (1 byte per 100 ms)").toBeLessThan(CONTACT.length);
    const response = parseResponse(slow.received());
    expect(response.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(response.headers.connection).toBe("close");
    expect(response.headers["content-type"]).toBe("application/json");
    expect(response.headers["x-svc-errortype"]).toBe("RequestTimeoutException");
    expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.body));
    expect(JSON.parse(response.body)).toEqual({
      message: "the request body did not arrive within 1000 ms (the service's request timeout): the connection is closed; send the whole request at once and retry",
      errorType: "RequestTimeoutException",
      __type: "RequestTimeoutException",
    });

    expect(others.filter((call) => call.whilePending).length, "the other client was served while the slow request was pending").toBeGreaterThanOrEqual(3);
    expect(others.filter((call) => call.status !== 200)).toEqual([]);

    // nothing of the cut-off request was applied
    const client = new Pool(service.url);
    try {
      const read = await client.request({ method: "POST", path: "/getAlternateContact", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: '{"AlternateContactType":"SECURITY"}' });
      await read.body.text();
      expect(read.statusCode).toBe(404);
    } finally {
      await client.close();
    }
  });

  it("answers a slow gateway body 408 in the gateway's error shape, and cuts off a client that keeps its side open", async () => {
    const body = JSON.stringify({ name: "slow", protocolType: "HTTP" });
    const slow = slowClient(postHead("/v2/apis", body.length), body, 100, true);
    const closedAfterMs = await slow.closed;
    // the service waits a moment (1 s) for the client to read the answer and close, then closes the connection itself
    expect(closedAfterMs).toBeGreaterThanOrEqual(BOUND_MS + 1000 - 50);
    expect(closedAfterMs).toBeLessThan(BOUND_MS + 1000 + SLACK_MS);
    const response = parseResponse(slow.received());
    expect(response.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(response.headers["x-svc-errortype"]).toBe("RequestTimeoutException");
    expect(JSON.parse(response.body)).toEqual({ message: expect.stringMatching(/^the request body did not arrive within 1000 ms/), __type: "RequestTimeoutException" });
  });

  it("answers headers that dribble in 408 and closes the connection within the bound", async () => {
    const slow = slowClient(`GET /v2/apis HTTP/1.1\r\nHost: ${host}\r\n`, "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n", 100);
    const [closedAfterMs, others] = await Promise.all([slow.closed, otherClient(slow.closed)]);
    expect(closedAfterMs).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(closedAfterMs).toBeLessThan(BOUND_MS + SLACK_MS);
    const response = parseResponse(slow.received());
    expect(response.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(response.headers.connection).toBe("close");
    expect(JSON.parse(response.body)).toEqual({
      message: "the request headers did not arrive within 1000 ms (the service's request timeout): the connection is closed; send the whole request at once and retry",
      errorType: "RequestTimeoutException",
      __type: "RequestTimeoutException",
    });
    expect(others.filter((call) => call.whilePending).length).toBeGreaterThanOrEqual(3);
    expect(others.filter((call) => call.status !== 200)).toEqual([]);
  });

  it("serves a body that arrives in pieces within the bound, keeps an idle keep-alive connection open longer than the bound, and times out a later request on it", async () => {
    const socket = connect(port, host);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    await new Promise((resolve) => socket.once("connect", resolve));
    const waitFor = async (pattern: RegExp) => {
      for (let waited = 0; !pattern.test(received); waited += 10) {
        if (waited > 5000) throw new Error(`no ${pattern} within 5 s; received ${JSON.stringify(received)}`);
        await sleep(10);
      }
    };
    const body = JSON.stringify({ AlternateContactType: "BILLING", EmailAddress: "pieces@example.com", Name: "Pieces", PhoneNumber: "+1 555 0101", Title: "Pieces" });
    socket.write(postHead("/putAlternateContact", body.length));
    for (let at = 0; at < body.length; at += Math.ceil(body.length / 3)) {
      await sleep(200);
      socket.write(body.slice(at, at + Math.ceil(body.length / 3)));
    }
    await waitFor(/^HTTP\/1\.1 200 OK\r\n/);
    received = "";
    await sleep(BOUND_MS * 1.5);
    expect(socket.destroyed, "the idle connection is still open").toBe(false);
    const read = '{"AlternateContactType":"BILLING"}';
    socket.write(postHead("/getAlternateContact", read.length) + read);
    await waitFor(/pieces@example\.com/);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);

    // a third request on the same connection whose body does not arrive is answered 408 too
    received = "";
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(postHead("/putAlternateContact", body.length) + body.slice(0, 10));
    await waitFor(/\r\n\r\n\{.*\}$/);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(received).toMatch(/"message":"the request body did not arrive within 1000 ms/);
    await closed;
  });
});
