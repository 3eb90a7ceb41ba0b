import { afterEach, describe, expect, it } from "vitest";
import { GRPC_STATUS, type GrpcMethod } from "../../../src/provider/runtime/grpc-connection.js";
import { startGrpcServer, type GrpcServer, type GrpcServerOptions } from "../../../src/provider/runtime/grpc-server.js";
import { encodeHeaders, HpackDecoder } from "../../../src/provider/runtime/hpack.js";
import { CLIENT_PREFACE, ERROR, FLAG, FRAME, SETTING, type FrameWriter } from "../../../src/provider/runtime/http2-framer.js";
import { RawClient, type ReceivedFrame } from "./raw-http2-client.js";

/**
 * RFC 9113's rules as the server keeps them, through a real TCP connection and a client of bare
 * frames (raw-http2-client.ts, which writes with the runtime's framer): every GOAWAY the connection
 * sends and why, the streams it resets, what it makes of frames on streams that are not open, the
 * streams it refuses, and a request larger than it takes.
 */

let server: GrpcServer | undefined;
const clients: RawClient[] = [];
/** Lets every call of the slow method answer. */
let releaseSlow: () => void = () => undefined;

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  server?.destroy();
  server = undefined;
  releaseSlow();
});

const echo: GrpcMethod = { kind: "unary", answer: async (request) => Buffer.concat([Buffer.from("echo:"), request]) };

function methods(): Map<string, GrpcMethod> {
  const waiting: Array<() => void> = [];
  releaseSlow = () => waiting.splice(0).forEach((release) => release());
  const slow: GrpcMethod = { kind: "unary", answer: (request) => new Promise((resolve) => waiting.push(() => resolve(request))) };
  return new Map([
    ["/test.Service/Echo", echo],
    ["/test.Service/Slow", slow],
  ]);
}

async function connect(options: Parameters<typeof RawClient.connect>[1] = {}, serverOptions: GrpcServerOptions = {}): Promise<RawClient> {
  server = await startGrpcServer(methods(), { network: "tcp", ...serverOptions });
  server.start();
  const client = await RawClient.connect(server, options);
  clients.push(client);
  return client;
}

function requestHeaders(path: string): Buffer {
  return encodeHeaders([
    [":method", "POST"],
    [":scheme", "http"],
    [":path", path],
    ["content-type", "application/grpc"],
  ]);
}

function message(text: string): Buffer {
  const bytes = Buffer.alloc(5 + Buffer.byteLength(text));
  bytes.writeUInt32BE(bytes.length - 5, 1);
  bytes.write(text, 5);
  return bytes;
}

/** A call opened on `streamId`: its headers, and its message with END_STREAM unless `open`. */
function call(writer: FrameWriter, streamId: number, path: string, open = false): void {
  writer.headers(streamId, requestHeaders(path), false);
  if (!open) writer.data(streamId, message("hi"), true);
}

const isEnd = (streamId: number) => (frame: ReceivedFrame) => frame.type === FRAME.HEADERS && frame.streamId === streamId && (frame.flags & FLAG.END_STREAM) !== 0;
const isReset = (streamId: number) => (frame: ReceivedFrame) => frame.type === FRAME.RST_STREAM && frame.streamId === streamId;

function word(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value, 0);
  return bytes;
}

type Step = (client: RawClient) => void | Promise<void>;
const frames =
  (write: (writer: FrameWriter) => void): Step =>
  (client) =>
    client.send(write);

describe("the gRPC server's HTTP/2 connection errors", () => {
  it("refuses a connection that does not start with HTTP/2's preface: GOAWAY with PROTOCOL_ERROR, then the end", async () => {
    const client = await connect({ preface: false });
    client.sendBytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    await client.ended;
    // the server's SETTINGS and WINDOW_UPDATE, then GOAWAY with the error code
    expect(client.frames.map(({ type }) => type)).toEqual([FRAME.SETTINGS, FRAME.WINDOW_UPDATE, FRAME.GOAWAY]);
    expect(client.frames[2]!.errorCode).toBe(ERROR.PROTOCOL_ERROR);
  });

  it("refuses a client whose first frame is not SETTINGS: GOAWAY with PROTOCOL_ERROR", async () => {
    const client = await connect({ preface: false });
    client.sendBytes(CLIENT_PREFACE);
    client.send((writer) => writer.ping(Buffer.alloc(8), false));
    expect((await client.goAway()).errorCode).toBe(ERROR.PROTOCOL_ERROR);
    await client.ended;
  });

  it("refuses a header block that CONTINUATION frames make larger than 64 KiB: GOAWAY with ENHANCE_YOUR_CALM", async () => {
    const client = await connect();
    client.send((writer) => {
      writer.headers(1, requestHeaders("/test.Service/Echo"), false, { endHeaders: false });
      for (let index = 0; index < 5; index++) writer.continuation(1, Buffer.alloc(16_000, 0x41), false);
    });
    expect((await client.goAway()).errorCode).toBe(ERROR.ENHANCE_YOUR_CALM);
    await client.ended;
  });

  const openSlow = frames((writer) => call(writer, 1, "/test.Service/Slow", true));

  it.each<[string, ReadonlyArray<Step>, number, number?]>([
    ["DATA on stream 0", [frames((writer) => writer.frame(FRAME.DATA, 0, 0, Buffer.from("x")))], ERROR.PROTOCOL_ERROR],
    ["HEADERS on stream 0", [frames((writer) => writer.frame(FRAME.HEADERS, FLAG.END_HEADERS, 0, requestHeaders("/test.Service/Echo")))], ERROR.PROTOCOL_ERROR],
    ["PRIORITY on stream 0", [frames((writer) => writer.frame(FRAME.PRIORITY, 0, 0, Buffer.alloc(5)))], ERROR.PROTOCOL_ERROR],
    ["RST_STREAM on stream 0", [frames((writer) => writer.frame(FRAME.RST_STREAM, 0, 0, word(ERROR.CANCEL)))], ERROR.PROTOCOL_ERROR],
    ["CONTINUATION on stream 0", [frames((writer) => writer.frame(FRAME.CONTINUATION, FLAG.END_HEADERS, 0, Buffer.alloc(1)))], ERROR.PROTOCOL_ERROR],
    ["SETTINGS on stream 1", [frames((writer) => writer.frame(FRAME.SETTINGS, 0, 1, undefined))], ERROR.PROTOCOL_ERROR],
    ["PING on stream 1", [frames((writer) => writer.frame(FRAME.PING, 0, 1, Buffer.alloc(8)))], ERROR.PROTOCOL_ERROR],
    ["GOAWAY on stream 1", [frames((writer) => writer.frame(FRAME.GOAWAY, 0, 1, Buffer.alloc(8)))], ERROR.PROTOCOL_ERROR],
    ["a PING inside a header block", [frames((writer) => writer.headers(1, requestHeaders("/test.Service/Echo"), false, { endHeaders: false })), frames((writer) => writer.ping(Buffer.alloc(8), false))], ERROR.PROTOCOL_ERROR],
    ["PUSH_PROMISE from a client", [frames((writer) => writer.frame(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, Buffer.from([0, 0, 0, 2, 0x82])))], ERROR.PROTOCOL_ERROR],
    ["HEADERS opening an even stream", [frames((writer) => call(writer, 2, "/test.Service/Echo"))], ERROR.PROTOCOL_ERROR],
    ["HEADERS opening stream 1 after stream 3", [frames((writer) => call(writer, 3, "/test.Service/Slow", true)), frames((writer) => call(writer, 1, "/test.Service/Echo"))], ERROR.PROTOCOL_ERROR, 3],
    ["DATA on an idle stream", [frames((writer) => writer.data(1, message("x"), true))], ERROR.PROTOCOL_ERROR],
    ["RST_STREAM on an idle stream", [openSlow, frames((writer) => writer.rstStream(3, ERROR.CANCEL))], ERROR.PROTOCOL_ERROR, 1],
    ["WINDOW_UPDATE on an idle stream", [frames((writer) => writer.windowUpdate(5, 100))], ERROR.PROTOCOL_ERROR],
    ["DATA whose padding is as long as its payload", [openSlow, frames((writer) => writer.frame(FRAME.DATA, FLAG.PADDED, 1, Buffer.from([2, 0])))], ERROR.PROTOCOL_ERROR, 1],
    ["a WINDOW_UPDATE of 0 for the connection", [frames((writer) => writer.frame(FRAME.WINDOW_UPDATE, 0, 0, word(0)))], ERROR.PROTOCOL_ERROR],
    ["SETTINGS_MAX_FRAME_SIZE below 16,384", [frames((writer) => writer.settings([{ identifier: SETTING.MAX_FRAME_SIZE, value: 16_383 }]))], ERROR.PROTOCOL_ERROR],
    ["SETTINGS_ENABLE_PUSH 2", [frames((writer) => writer.settings([{ identifier: SETTING.ENABLE_PUSH, value: 2 }]))], ERROR.PROTOCOL_ERROR],
    ["a frame larger than 16,384 octets", [openSlow, frames((writer) => writer.frame(FRAME.DATA, 0, 1, Buffer.alloc(16_385)))], ERROR.FRAME_SIZE_ERROR, 1],
    ["SETTINGS of 7 octets", [frames((writer) => writer.frame(FRAME.SETTINGS, 0, 0, Buffer.alloc(7)))], ERROR.FRAME_SIZE_ERROR],
    ["SETTINGS with ACK and a payload", [frames((writer) => writer.frame(FRAME.SETTINGS, FLAG.ACK, 0, Buffer.alloc(6)))], ERROR.FRAME_SIZE_ERROR],
    ["PING of 7 octets", [frames((writer) => writer.frame(FRAME.PING, 0, 0, Buffer.alloc(7)))], ERROR.FRAME_SIZE_ERROR],
    ["GOAWAY of 7 octets", [frames((writer) => writer.frame(FRAME.GOAWAY, 0, 0, Buffer.alloc(7)))], ERROR.FRAME_SIZE_ERROR],
    ["WINDOW_UPDATE of 3 octets", [frames((writer) => writer.frame(FRAME.WINDOW_UPDATE, 0, 0, Buffer.alloc(3)))], ERROR.FRAME_SIZE_ERROR],
    ["RST_STREAM of 5 octets", [openSlow, frames((writer) => writer.frame(FRAME.RST_STREAM, 0, 1, Buffer.alloc(5)))], ERROR.FRAME_SIZE_ERROR, 1],
    ["PRIORITY of 4 octets", [frames((writer) => writer.frame(FRAME.PRIORITY, 0, 1, Buffer.alloc(4)))], ERROR.FRAME_SIZE_ERROR],
    ["SETTINGS_INITIAL_WINDOW_SIZE beyond 2^31 - 1", [frames((writer) => writer.settings([{ identifier: SETTING.INITIAL_WINDOW_SIZE, value: 2 ** 31 }]))], ERROR.FLOW_CONTROL_ERROR],
    ["a WINDOW_UPDATE that takes the connection's window beyond 2^31 - 1", [frames((writer) => writer.windowUpdate(0, 2 ** 31 - 1))], ERROR.FLOW_CONTROL_ERROR],
    [
      "a SETTINGS_INITIAL_WINDOW_SIZE that takes an open stream's window beyond 2^31 - 1",
      [openSlow, frames((writer) => writer.windowUpdate(1, 2 ** 31 - 1 - 65_535)), (client) => client.roundTrip(), frames((writer) => writer.settings([{ identifier: SETTING.INITIAL_WINDOW_SIZE, value: 65_536 }]))],
      ERROR.FLOW_CONTROL_ERROR,
      1,
    ],
    ["a header block HPACK cannot read", [frames((writer) => writer.headers(1, Buffer.from([0x80]), true))], ERROR.COMPRESSION_ERROR],
    [
      "DATA on a stream both sides ended",
      [frames((writer) => call(writer, 1, "/test.Service/Echo")), async (client) => void (await client.frame(isEnd(1))), frames((writer) => writer.data(1, message("late"), true))],
      ERROR.STREAM_CLOSED,
      1,
    ],
  ])("sends GOAWAY at %s, then ends the connection", async (_name, steps, code, lastStreamId = 0) => {
    const client = await connect();
    for (const step of steps) await step(client);
    const goAway = await client.goAway();
    expect({ code: goAway.errorCode, lastStreamId: goAway.lastStreamId }).toEqual({ code, lastStreamId });
    await client.ended;
    expect(client.frames.filter(({ type }) => type === FRAME.GOAWAY)).toHaveLength(1);
  });

  it("sends GOAWAY with NO_ERROR when it closes, refuses the streams opened after it (REFUSED_STREAM), and ends once the calls before it are answered", async () => {
    const client = await connect();
    client.send((writer) => call(writer, 1, "/test.Service/Slow"));
    await client.roundTrip();
    const closed = server!.close();
    const goAway = await client.goAway();
    expect({ code: goAway.errorCode, lastStreamId: goAway.lastStreamId }).toEqual({ code: ERROR.NO_ERROR, lastStreamId: 1 });
    client.send((writer) => call(writer, 3, "/test.Service/Echo"));
    expect((await client.frame(isReset(3))).errorCode).toBe(ERROR.REFUSED_STREAM);
    releaseSlow();
    const trailers = await client.frame(isEnd(1));
    expect(new HpackDecoder().decode(trailers.payload)).toEqual([["grpc-status", "0"]]);
    await client.ended;
    await closed;
    expect(client.frames.filter(({ type }) => type === FRAME.HEADERS).map(({ streamId }) => streamId)).toEqual([1, 1]);
  });
});

describe("the gRPC server's HTTP/2 streams", () => {
  it("refuses a stream beyond the 1,000 it announced it takes at once (REFUSED_STREAM), and serves the others", async () => {
    const client = await connect();
    client.send((writer) => {
      for (let streamId = 1; streamId <= 1_999; streamId += 2) call(writer, streamId, "/test.Service/Slow", true);
      call(writer, 2_001, "/test.Service/Echo");
    });
    expect((await client.frame(isReset(2_001))).errorCode).toBe(ERROR.REFUSED_STREAM);
    client.send((writer) => writer.data(1_999, message("last"), true));
    await client.roundTrip();
    releaseSlow();
    await client.frame(isEnd(1_999));
    expect(client.frames.filter(({ type }) => type === FRAME.RST_STREAM)).toHaveLength(1);
    // once one stream is done, a new one is taken
    client.send((writer) => call(writer, 2_003, "/test.Service/Echo"));
    await client.frame(isEnd(2_003));
  });

  it("answers a request larger than it takes with RESOURCE_EXHAUSTED, resets the stream, and ignores the rest of it", async () => {
    const client = await connect({}, { maxRequestMessage: 1_024 });
    client.send((writer) => {
      writer.headers(1, requestHeaders("/test.Service/Echo"), false);
      writer.data(1, message("x".repeat(1_024)), true);
      writer.headers(3, requestHeaders("/test.Service/Echo"), false);
      writer.data(3, message("x".repeat(1_000)), false);
      writer.data(3, Buffer.alloc(30), false);
    });
    const status = new HpackDecoder().decode((await client.frame(isEnd(3))).payload);
    expect(status).toContainEqual(["grpc-status", String(GRPC_STATUS.RESOURCE_EXHAUSTED)]);
    expect(status).toContainEqual(["grpc-message", encodeURIComponent("received a request of more than 1024 bytes: the largest this plugin takes")]);
    expect((await client.frame(isReset(3))).errorCode).toBe(ERROR.NO_ERROR);
    // what the client had sent of it before the reset reached it
    client.send((writer) => writer.data(3, Buffer.alloc(500), true));
    await client.roundTrip();
    // a message of exactly the largest size is taken
    expect(new HpackDecoder().decode((await client.frame(isEnd(1))).payload)).toEqual([["grpc-status", "0"]]);
    expect(client.frames.filter(({ type }) => type === FRAME.RST_STREAM || type === FRAME.GOAWAY)).toHaveLength(1);
  });

  it.each<[string, ReadonlyArray<Step>, number, number]>([
    ["DATA after the client's END_STREAM, before the answer (half-closed)", [frames((writer) => call(writer, 1, "/test.Service/Slow")), frames((writer) => writer.data(1, message("more"), true))], 1, ERROR.STREAM_CLOSED],
    ["HEADERS after the client's END_STREAM, before the answer (half-closed)", [frames((writer) => call(writer, 1, "/test.Service/Slow")), frames((writer) => writer.headers(1, encodeHeaders([["x-late", "1"]]), true))], 1, ERROR.STREAM_CLOSED],
    ["trailers without END_STREAM", [frames((writer) => call(writer, 1, "/test.Service/Slow", true)), frames((writer) => writer.headers(1, encodeHeaders([["x-trailer", "1"]]), false))], 1, ERROR.PROTOCOL_ERROR],
    [
      "DATA after the client reset the stream",
      [frames((writer) => call(writer, 1, "/test.Service/Slow", true)), frames((writer) => writer.rstStream(1, ERROR.CANCEL)), frames((writer) => writer.data(1, message("x"), true))],
      1,
      ERROR.STREAM_CLOSED,
    ],
    ["DATA on a stream the client skipped", [frames((writer) => call(writer, 3, "/test.Service/Slow", true)), frames((writer) => writer.data(1, message("x"), true))], 1, ERROR.STREAM_CLOSED],
    ["a WINDOW_UPDATE of 0 on an open stream", [frames((writer) => call(writer, 1, "/test.Service/Slow", true)), frames((writer) => writer.frame(FRAME.WINDOW_UPDATE, 0, 1, word(0)))], 1, ERROR.PROTOCOL_ERROR],
    ["a WINDOW_UPDATE that takes a stream's window beyond 2^31 - 1", [frames((writer) => call(writer, 1, "/test.Service/Slow", true)), frames((writer) => writer.windowUpdate(1, 2 ** 31 - 1))], 1, ERROR.FLOW_CONTROL_ERROR],
  ])("resets the stream at %s, drops its call and keeps serving the connection", async (_name, steps, streamId, code) => {
    const client = await connect();
    for (const step of steps) await step(client);
    expect((await client.frame(isReset(streamId))).errorCode).toBe(code);
    // frames the client sent before the reset reached it: ignored
    client.send((writer) => writer.data(streamId, message("in flight"), true));
    await client.roundTrip();
    releaseSlow();
    client.send((writer) => call(writer, 5, "/test.Service/Echo"));
    await client.frame(isEnd(5));
    await client.roundTrip();
    expect(client.frames.filter(({ type, streamId: id }) => (type === FRAME.HEADERS || type === FRAME.DATA) && id !== 5)).toEqual([]);
    expect(client.frames.filter(({ type }) => type === FRAME.RST_STREAM || type === FRAME.GOAWAY)).toHaveLength(1);
  });

  it("ignores DATA the client sent before the server's reset of its stream reached it", async () => {
    const client = await connect();
    // an unknown method is answered (and its stream reset) before its message arrives
    client.send((writer) => writer.headers(1, requestHeaders("/test.Service/Nope"), false));
    const status = new HpackDecoder().decode((await client.frame(isEnd(1))).payload);
    expect(status).toContainEqual(["grpc-status", String(GRPC_STATUS.UNIMPLEMENTED)]);
    expect((await client.frame(isReset(1))).errorCode).toBe(ERROR.NO_ERROR);
    client.send((writer) => {
      writer.data(1, message("x"), false);
      writer.headers(1, encodeHeaders([["x-trailer", "1"]]), true);
      call(writer, 3, "/test.Service/Echo");
    });
    await client.frame(isEnd(3));
    await client.roundTrip();
    expect(client.frames.filter(({ type }) => type === FRAME.RST_STREAM || type === FRAME.GOAWAY)).toHaveLength(1);
  });

  it("ignores WINDOW_UPDATE, RST_STREAM and PRIORITY on a closed stream, and PRIORITY on an idle one", async () => {
    const client = await connect();
    client.send((writer) => call(writer, 1, "/test.Service/Echo"));
    await client.frame(isEnd(1));
    client.send((writer) => {
      writer.windowUpdate(1, 1_000);
      writer.rstStream(1, ERROR.CANCEL);
      writer.priority(1, { dependency: 0, exclusive: false, weight: 16 });
      writer.priority(7, { dependency: 1, exclusive: true, weight: 200 });
      call(writer, 3, "/test.Service/Echo");
    });
    await client.frame(isEnd(3));
    await client.roundTrip();
    expect(client.frames.filter(({ type }) => type === FRAME.RST_STREAM || type === FRAME.GOAWAY)).toEqual([]);
  });

  it("reads padded DATA and a padded HEADERS frame with a priority, and counts the padding against the windows", async () => {
    const client = await connect();
    const body = Buffer.alloc(40_000, 1);
    body[0] = 0;
    body.writeUInt32BE(body.length - 5, 1);
    client.send((writer) => {
      writer.headers(1, requestHeaders("/test.Service/Echo"), false, { padLength: 200, priority: { dependency: 0, exclusive: false, weight: 32 } });
      for (let at = 0; at < 36_000; at += 12_000) writer.data(1, body.subarray(at, at + 12_000), false, 255);
      writer.data(1, body.subarray(36_000), true, 7);
    });
    // the three first frames' 36,768 octets, padding included, pass half of HTTP/2's default window
    const update = await client.frame((frame) => frame.type === FRAME.WINDOW_UPDATE && frame.streamId === 1);
    expect(update.increment).toBe(3 * (12_000 + 256));
    await client.frame(isEnd(1));
    const data = Buffer.concat(client.frames.filter(({ type }) => type === FRAME.DATA).map(({ payload }) => payload));
    expect(data.subarray(5, 10).toString()).toBe("echo:");
    expect(data.length).toBe(5 + 5 + body.length - 5);
  });
});
