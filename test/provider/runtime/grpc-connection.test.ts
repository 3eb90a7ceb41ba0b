import { connect, constants, type ClientHttp2Session } from "node:http2";
import { afterEach, describe, expect, it } from "vitest";
import { GRPC_STATUS, GrpcError, type GrpcMethod } from "../../../src/provider/runtime/grpc-connection.js";
import { encodeHeaders, HpackDecoder } from "../../../src/provider/runtime/hpack.js";
import { startGrpcServer, type GrpcServer } from "../../../src/provider/runtime/grpc-server.js";
import { FLAG, FRAME, SETTING } from "../../../src/provider/runtime/http2-framer.js";
import { RawClient } from "./raw-http2-client.js";

/**
 * The server's HTTP/2 and gRPC framing against node:http2's client (nghttp2: its own HPACK encoder,
 * with Huffman coding and a dynamic table, and its own flow control), over TCP without TLS; the
 * provider's terraform tests run it under terraform's grpc-go client, over TLS.
 */

function framed(message: Buffer): Buffer {
  const bytes = Buffer.alloc(5 + message.length);
  bytes.writeUInt32BE(message.length, 1);
  message.copy(bytes, 5);
  return bytes;
}

interface Answer {
  readonly headers: Record<string, unknown>;
  readonly trailers: Record<string, unknown>;
  readonly body: Buffer;
}

function call(session: ClientHttp2Session, path: string, body: Buffer, extra: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...extra });
    let headers: Record<string, unknown> = {};
    let trailers: Record<string, unknown> = {};
    const chunks: Buffer[] = [];
    stream.on("response", (received) => (headers = { ...received }));
    stream.on("trailers", (received) => (trailers = { ...received }));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () => resolve({ headers, trailers, body: Buffer.concat(chunks) }));
    stream.end(body);
  });
}

/** The status of an answer: in the trailers, or in the headers of a trailers-only answer. */
function statusOf(answer: Answer): { code: number; message: string } {
  const source = answer.trailers["grpc-status"] !== undefined ? answer.trailers : answer.headers;
  return { code: Number(source["grpc-status"]), message: decodeURIComponent(String(source["grpc-message"] ?? "")) };
}

let server: GrpcServer | undefined;
const sessions: ClientHttp2Session[] = [];
const errors: Array<{ path: string; error: unknown }> = [];

afterEach(async () => {
  for (const session of sessions.splice(0)) session.destroy();
  server?.destroy();
  server = undefined;
  errors.length = 0;
});

async function serve(methods: ReadonlyMap<string, GrpcMethod>): Promise<ClientHttp2Session> {
  server = await startGrpcServer(methods, { network: "tcp", onError: (path, error) => errors.push({ path, error }) });
  server.start();
  const address = server.address;
  if (address.network !== "tcp") throw new Error("expected a TCP address");
  const session = connect(`http://127.0.0.1:${address.port}`);
  sessions.push(session);
  await new Promise<void>((resolve, reject) => {
    session.once("connect", () => resolve());
    session.once("error", reject);
  });
  return session;
}

const echo: GrpcMethod = { kind: "unary", answer: async (request) => Buffer.concat([Buffer.from("echo:"), request]) };

describe("the gRPC server's HTTP/2", () => {
  it("answers a unary call with its message framed, then status OK in the trailers", async () => {
    const session = await serve(new Map([["/test.Service/Echo", echo]]));
    const answer = await call(session, "/test.Service/Echo", framed(Buffer.from("hello")));
    expect(answer.headers[":status"]).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/grpc+proto");
    expect(answer.body).toEqual(framed(Buffer.from("echo:hello")));
    expect(statusOf(answer)).toEqual({ code: GRPC_STATUS.OK, message: "" });
  });

  it("answers many calls at once on one connection, each its own, whatever headers the client compresses", async () => {
    const methods = new Map<string, GrpcMethod>();
    for (let index = 0; index < 40; index++) {
      methods.set(`/test.Service/M${index}`, { kind: "unary", answer: async (request) => Buffer.concat([Buffer.from(`M${index}:`), request]) });
    }
    const session = await serve(methods);
    const calls = Array.from({ length: 400 }, (_, index) => {
      const method = (index * 7) % 40;
      // values that change, repeat and grow: nghttp2 indexes some, Huffman-codes most
      const extra = { "x-request": `r${index}-${"ü".repeat(index % 13)}`, "x-batch": `b${index % 5}`, "user-agent": `client/${index % 3}` };
      return call(session, `/test.Service/M${method}`, framed(Buffer.from(String(index))), extra).then((answer) => ({ answer, method, index }));
    });
    for (const { answer, method, index } of await Promise.all(calls)) {
      expect(answer.body.subarray(5).toString()).toBe(`M${method}:${index}`);
      expect(statusOf(answer).code).toBe(GRPC_STATUS.OK);
    }
  });

  it("takes a request and sends an answer larger than every window, as the client's flow control allows", async () => {
    const session = await serve(new Map<string, GrpcMethod>([["/test.Service/Big", { kind: "unary", answer: async (request) => Buffer.concat([request, request, request]) }]]));
    const request = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    request[100] = 1;
    const answer = await call(session, "/test.Service/Big", framed(request));
    expect(statusOf(answer).code).toBe(GRPC_STATUS.OK);
    expect(answer.body.length).toBe(5 + 3 * request.length);
    expect(answer.body.subarray(5).equals(Buffer.concat([request, request, request]))).toBe(true);
  });

  it("refuses an unknown method with UNIMPLEMENTED, and keeps serving the connection", async () => {
    const session = await serve(new Map([["/test.Service/Echo", echo]]));
    const answer = await call(session, "/test.Service/Nope", framed(Buffer.from("x")));
    expect(statusOf(answer)).toEqual({ code: GRPC_STATUS.UNIMPLEMENTED, message: "unknown method /test.Service/Nope: this plugin does not serve it" });
    expect((await call(session, "/test.Service/Echo", framed(Buffer.from("y")))).body).toEqual(framed(Buffer.from("echo:y")));
  });

  it("answers a method's GrpcError with its code, any other error INTERNAL (told to onError), and a malformed body INVALID_ARGUMENT", async () => {
    const session = await serve(
      new Map<string, GrpcMethod>([
        ["/test.Service/Refuse", { kind: "unary", answer: () => Promise.reject(new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, "no: ünïcode % and | kept")) }],
        ["/test.Service/Fail", { kind: "unary", answer: () => Promise.reject(new Error("broken")) }],
        ["/test.Service/Echo", echo],
      ]),
    );
    expect(statusOf(await call(session, "/test.Service/Refuse", framed(Buffer.from("x"))))).toEqual({ code: GRPC_STATUS.INVALID_ARGUMENT, message: "no: ünïcode % and | kept" });
    expect(statusOf(await call(session, "/test.Service/Fail", framed(Buffer.from("x"))))).toEqual({ code: GRPC_STATUS.INTERNAL, message: "broken" });
    expect(errors.map(({ path }) => path)).toEqual(["/test.Service/Fail"]);
    expect(statusOf(await call(session, "/test.Service/Echo", Buffer.from([0, 0, 0])))).toEqual({
      code: GRPC_STATUS.INVALID_ARGUMENT,
      message: "received a request body of 3 bytes: expected one length-prefixed message (5 bytes at least)",
    });
  });

  it("cuts a status message too long for one HEADERS frame", async () => {
    const session = await serve(new Map<string, GrpcMethod>([["/test.Service/Long", { kind: "unary", answer: () => Promise.reject(new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, "é".repeat(20_000))) }]]));
    const { code, message } = statusOf(await call(session, "/test.Service/Long", framed(Buffer.from("x"))));
    expect(code).toBe(GRPC_STATUS.INVALID_ARGUMENT);
    expect(message).toBe(`${"é".repeat(900)}…`);
  });

  it("answers a status message with a lone surrogate, or cut inside a surrogate pair, with U+FFFD in its place", async () => {
    const session = await serve(
      new Map<string, GrpcMethod>([
        ["/test.Service/Lone", { kind: "unary", answer: () => Promise.reject(new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, "broken \uD800 text")) }],
        ["/test.Service/Pairs", { kind: "unary", answer: () => Promise.reject(new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `a${"😀".repeat(5_000)}`)) }],
      ]),
    );
    expect(statusOf(await call(session, "/test.Service/Lone", framed(Buffer.from("x"))))).toEqual({ code: GRPC_STATUS.INVALID_ARGUMENT, message: "broken \uFFFD text" });
    // 900 UTF-16 code units kept: "a", 449 pairs, and the high half of the 450th
    expect(statusOf(await call(session, "/test.Service/Pairs", framed(Buffer.from("x")))).message).toBe(`a${"😀".repeat(449)}\uFFFD…`);
  });

  it("holds a stream open with its headers, and ends it with status OK when the server closes", async () => {
    let messages = 0;
    const session = await serve(new Map<string, GrpcMethod>([["/test.Service/Hold", { kind: "held", onMessage: () => messages++ }]]));
    const stream = session.request({ ":method": "POST", ":path": "/test.Service/Hold", "content-type": "application/grpc" });
    const headers = await new Promise<Record<string, unknown>>((resolve) => stream.once("response", (received) => resolve({ ...received })));
    expect(headers[":status"]).toBe(200);
    stream.write(framed(Buffer.from("ignored")));
    const trailers = new Promise<Record<string, unknown>>((resolve) => stream.once("trailers", (received) => resolve({ ...received })));
    stream.resume();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages).toBe(1);
    const closed = server!.close();
    expect((await trailers)["grpc-status"]).toBe("0");
    await closed;
  });

  it("goes on serving after a client cancels a call, and drops the answer of a call whose connection went away", async () => {
    let release: () => void = () => undefined;
    const session = await serve(
      new Map<string, GrpcMethod>([
        ["/test.Service/Slow", { kind: "unary", answer: () => new Promise<Buffer>((resolve) => (release = () => resolve(Buffer.from("late")))) }],
        ["/test.Service/Echo", echo],
      ]),
    );
    const cancelled = session.request({ ":method": "POST", ":path": "/test.Service/Slow", "content-type": "application/grpc" });
    cancelled.on("error", () => undefined);
    cancelled.end(framed(Buffer.from("x")));
    await new Promise((resolve) => setTimeout(resolve, 20));
    cancelled.close(constants.NGHTTP2_CANCEL);
    release();
    expect((await call(session, "/test.Service/Echo", framed(Buffer.from("after")))).body).toEqual(framed(Buffer.from("echo:after")));
    const gone = session.request({ ":method": "POST", ":path": "/test.Service/Slow", "content-type": "application/grpc" });
    gone.on("error", () => undefined);
    gone.end(framed(Buffer.from("y")));
    await new Promise((resolve) => setTimeout(resolve, 20));
    session.destroy();
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(errors).toEqual([]);
  });

  it("sends no more DATA than the client's windows allow, and gives back the window of what it received", async () => {
    await serve(new Map<string, GrpcMethod>([["/test.Service/Answer", { kind: "unary", answer: async (request) => Buffer.alloc(request.length / 40, 1) }]]));
    // a stream window of 100 octets: the answer's 1,005 framed octets must wait for WINDOW_UPDATE
    const client = await RawClient.connect(server!, { settings: [{ identifier: SETTING.INITIAL_WINDOW_SIZE, value: 100 }] });
    const request = framed(Buffer.alloc(40_000, 2));
    client.send((writer) => {
      writer.headers(1, encodeHeaders([[":method", "POST"], [":path", "/test.Service/Answer"], ["content-type", "application/grpc"]]), false);
      writer.data(1, request.subarray(0, 16_000), false);
      writer.data(1, request.subarray(16_000, 32_000), false);
      writer.data(1, request.subarray(32_000, 36_000), false);
    });
    // the server gives back what the stream received once half of HTTP/2's initial window is used
    const update = await client.frame((frame) => frame.type === FRAME.WINDOW_UPDATE && frame.streamId === 1);
    expect(update.increment).toBe(36_000);
    client.send((writer) => writer.data(1, request.subarray(36_000), true));
    await client.frame((frame) => frame.type === FRAME.HEADERS && frame.streamId === 1);
    const first = await client.frame((frame) => frame.type === FRAME.DATA && frame.streamId === 1);
    expect(first.payload.length).toBe(100);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.frames.filter((frame) => frame.type === FRAME.DATA && frame.streamId === 1)).toHaveLength(1);
    client.send((writer) => writer.windowUpdate(1, 2_000));
    const trailers = await client.frame((frame) => frame.type === FRAME.HEADERS && frame.streamId === 1 && (frame.flags & FLAG.END_STREAM) !== 0);
    const data = client.frames.filter((frame) => frame.type === FRAME.DATA && frame.streamId === 1).map((frame) => frame.payload);
    expect(Buffer.concat(data).length).toBe(5 + 1_000);
    expect(new HpackDecoder().decode(trailers.payload)).toEqual([["grpc-status", "0"]]);
    client.close();
  });

  it("sends DATA frames as large as the client's SETTINGS_MAX_FRAME_SIZE allows", async () => {
    await serve(new Map<string, GrpcMethod>([["/test.Service/Big", { kind: "unary", answer: async () => Buffer.alloc(50_000, 3) }]]));
    const client = await RawClient.connect(server!, { settings: [{ identifier: SETTING.MAX_FRAME_SIZE, value: 20_000 }] });
    client.send((writer) => {
      writer.headers(1, encodeHeaders([[":method", "POST"], [":path", "/test.Service/Big"]]), false);
      writer.data(1, framed(Buffer.from("x")), true);
    });
    await client.frame((frame) => frame.type === FRAME.HEADERS && frame.streamId === 1 && (frame.flags & FLAG.END_STREAM) !== 0);
    const sizes = client.frames.filter((frame) => frame.type === FRAME.DATA).map((frame) => frame.payload.length);
    // the stream's window is HTTP/2's default, 65,535 octets: all 50,005 fit
    expect(sizes).toEqual([20_000, 20_000, 10_005]);
    client.close();
  });

  it("announces its settings and opens the connection's window before anything else", async () => {
    await serve(new Map([["/test.Service/Echo", echo]]));
    const client = await RawClient.connect(server!);
    await client.roundTrip();
    const [settings, window] = client.frames;
    expect(settings?.type).toBe(FRAME.SETTINGS);
    expect(settings?.settings).toEqual([
      { identifier: SETTING.MAX_CONCURRENT_STREAMS, value: 1_000 },
      { identifier: SETTING.INITIAL_WINDOW_SIZE, value: 4 * 1024 * 1024 },
    ]);
    expect([window?.type, window?.streamId, window?.increment]).toEqual([FRAME.WINDOW_UPDATE, 0, 4 * 1024 * 1024 - 65_535]);
    client.close();
  });

  it("answers PING with its ACK, and SETTINGS with an ACK", async () => {
    await serve(new Map([["/test.Service/Echo", echo]]));
    const client = await RawClient.connect(server!);
    client.send((writer) => {
      writer.settings([{ identifier: SETTING.MAX_FRAME_SIZE, value: 32_768 }]);
      writer.ping(Buffer.from("12345678"), false);
    });
    const pong = await client.frame((frame) => frame.type === FRAME.PING);
    expect(pong.payload.toString()).toBe("12345678");
    expect(pong.flags).toBe(FLAG.ACK);
    // the empty SETTINGS of the client's preface and the one after it, each acknowledged
    await client.frame((frame) => frame.type === FRAME.SETTINGS && frame.flags === FLAG.ACK);
    await client.frame((frame) => frame.type === FRAME.SETTINGS && frame.flags === FLAG.ACK);
    client.close();
  });
});
