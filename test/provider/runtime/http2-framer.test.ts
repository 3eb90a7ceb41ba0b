import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CLIENT_PREFACE,
  ERROR,
  FLAG,
  FRAME,
  FrameReader,
  FrameWriter,
  Http2ConnectionError,
  type Frame,
  type FrameReaderOptions,
  type Priority,
} from "../../../src/provider/runtime/http2-framer.js";

const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

/** A frame's fields as plain data, its payload copied (the reader's frame is valid until its next read). */
function copied(frame: Frame) {
  return {
    type: frame.type,
    flags: frame.flags,
    streamId: frame.streamId,
    length: frame.length,
    padLength: frame.padLength,
    priority: { dependency: frame.dependency, exclusive: frame.exclusive, weight: frame.weight },
    errorCode: frame.errorCode,
    lastStreamId: frame.lastStreamId,
    increment: frame.increment,
    promisedStreamId: frame.promisedStreamId,
    settings: Array.from({ length: frame.settingCount }, (_, index) => frame.setting(index)),
    payload: Buffer.from(frame.payload()).toString("hex"),
  };
}
type Copied = ReturnType<typeof copied>;

/** Every frame of `chunks`, pushed one after the other, read as soon as it can be. */
function readAll(chunks: ReadonlyArray<Buffer>, options?: FrameReaderOptions): Copied[] {
  const reader = new FrameReader(options);
  const frames: Copied[] = [];
  for (const chunk of chunks) {
    reader.push(chunk);
    for (let frame = reader.read(); frame !== undefined; frame = reader.read()) frames.push(copied(frame));
  }
  return frames;
}

/** The bytes `write` queues on a writer. */
function written(write: (writer: FrameWriter) => void): Buffer {
  const writer = new FrameWriter();
  write(writer);
  return writer.take() ?? Buffer.alloc(0);
}

/** The connection error reading `bytes` throws (undefined when it reads them all). */
function readingError(bytes: Buffer, options?: FrameReaderOptions): Http2ConnectionError | undefined {
  try {
    readAll([bytes], options);
    return undefined;
  } catch (error) {
    if (error instanceof Http2ConnectionError) return error;
    throw error;
  }
}

const NO_PRIORITY = { dependency: 0, exclusive: false, weight: 0 };
const BASE = { padLength: 0, priority: NO_PRIORITY, errorCode: 0, lastStreamId: 0, increment: 0, promisedStreamId: 0, settings: [], payload: "" };

describe("the HTTP/2 framer", () => {
  it("writes each frame's 9-octet header (length, type, flags, stream) and its payload, the frames queued as one buffer", () => {
    const bytes = written((writer) => {
      writer.data(3, Buffer.from("abc"), true);
      writer.windowUpdate(0, 0x10203);
      writer.settingsAck();
    });
    expect(bytes.toString("hex")).toBe(["000003" + "00" + "01" + "00000003" + "616263", "000004" + "08" + "00" + "00000000" + "00010203", "000000" + "04" + "01" + "00000000"].join(""));
  });

  it("reads back what it writes, each type with its fields", () => {
    const priority: Priority = { dependency: 5, exclusive: true, weight: 256 };
    const bytes = written((writer) => {
      writer.data(1, Buffer.from("hi"), false, 3);
      writer.headers(1, Buffer.from([0x82]), true, { padLength: 2, priority });
      writer.headers(3, Buffer.from([0x83]), false, { endHeaders: false });
      writer.continuation(3, Buffer.from([0x84]), true);
      writer.priority(7, { dependency: 1, exclusive: false, weight: 1 });
      writer.rstStream(1, ERROR.CANCEL);
      writer.settings([{ identifier: 4, value: 100 }, { identifier: 5, value: 32_768 }]);
      writer.ping(Buffer.from("12345678"), true);
      writer.goAway(9, ERROR.ENHANCE_YOUR_CALM, Buffer.from("why"));
      writer.windowUpdate(1, 2 ** 31 - 1);
      writer.frame(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, Buffer.from([0, 0, 0, 2, 0x82]));
      writer.frame(0xfa, 0xff, 11, Buffer.from("xyz"));
    });
    expect(readAll([bytes])).toEqual<Copied[]>([
      { ...BASE, type: FRAME.DATA, flags: FLAG.PADDED, streamId: 1, length: 6, padLength: 3, payload: "6869" },
      { ...BASE, type: FRAME.HEADERS, flags: FLAG.END_STREAM | FLAG.END_HEADERS | FLAG.PADDED | FLAG.PRIORITY, streamId: 1, length: 9, padLength: 2, priority, payload: "82" },
      { ...BASE, type: FRAME.HEADERS, flags: 0, streamId: 3, length: 1, payload: "83" },
      { ...BASE, type: FRAME.CONTINUATION, flags: FLAG.END_HEADERS, streamId: 3, length: 1, payload: "84" },
      { ...BASE, type: FRAME.PRIORITY, flags: 0, streamId: 7, length: 5, priority: { dependency: 1, exclusive: false, weight: 1 } },
      { ...BASE, type: FRAME.RST_STREAM, flags: 0, streamId: 1, length: 4, errorCode: ERROR.CANCEL },
      { ...BASE, type: FRAME.SETTINGS, flags: 0, streamId: 0, length: 12, settings: [{ identifier: 4, value: 100 }, { identifier: 5, value: 32_768 }], payload: "000400000064000500008000" },
      { ...BASE, type: FRAME.PING, flags: FLAG.ACK, streamId: 0, length: 8, payload: Buffer.from("12345678").toString("hex") },
      { ...BASE, type: FRAME.GOAWAY, flags: 0, streamId: 0, length: 11, lastStreamId: 9, errorCode: ERROR.ENHANCE_YOUR_CALM, payload: Buffer.from("why").toString("hex") },
      { ...BASE, type: FRAME.WINDOW_UPDATE, flags: 0, streamId: 1, length: 4, increment: 2 ** 31 - 1 },
      { ...BASE, type: FRAME.PUSH_PROMISE, flags: FLAG.END_HEADERS, streamId: 1, length: 5, promisedStreamId: 2, payload: "82" },
      { ...BASE, type: 0xfa, flags: 0xff, streamId: 11, length: 3, payload: Buffer.from("xyz").toString("hex") },
    ]);
  });

  it("reads frames split anywhere across chunks, and several in one chunk", () => {
    const bytes = written((writer) => {
      writer.settings([{ identifier: 3, value: 10 }]);
      writer.headers(1, Buffer.from("block"), false);
      writer.data(1, Buffer.alloc(300, 7), true, 10);
      writer.ping(Buffer.alloc(8, 1), false);
    });
    const whole = readAll([bytes]);
    expect(whole.map(({ type }) => type)).toEqual([FRAME.SETTINGS, FRAME.HEADERS, FRAME.DATA, FRAME.PING]);
    expect(readAll(Array.from(bytes, (byte) => Buffer.from([byte])))).toEqual(whole);
    expect(readAll([bytes.subarray(0, 20), bytes.subarray(20, 333), bytes.subarray(333)])).toEqual(whole);
  });

  it("reads back any sequence of frames it writes, however the bytes arrive", () => {
    const frameArbitrary = fc.oneof(
      fc.record({ kind: fc.constant("data" as const), streamId: fc.integer({ min: 1, max: 2 ** 31 - 1 }), data: fc.uint8Array({ maxLength: 64 }), endStream: fc.boolean(), padLength: fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined }) }),
      fc.record({
        kind: fc.constant("headers" as const),
        streamId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        data: fc.uint8Array({ maxLength: 64 }),
        endStream: fc.boolean(),
        padLength: fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined }),
        priority: fc.option(fc.record({ dependency: fc.integer({ min: 0, max: 2 ** 31 - 1 }), exclusive: fc.boolean(), weight: fc.integer({ min: 1, max: 256 }) }), { nil: undefined }),
      }),
      fc.record({ kind: fc.constant("window" as const), streamId: fc.integer({ min: 0, max: 2 ** 31 - 1 }), increment: fc.integer({ min: 1, max: 2 ** 31 - 1 }) }),
      fc.record({ kind: fc.constant("rst" as const), streamId: fc.integer({ min: 1, max: 2 ** 31 - 1 }), code: fc.nat({ max: 2 ** 32 - 1 }) }),
    );
    fc.assert(
      fc.property(fc.array(frameArbitrary, { maxLength: 12 }), fc.array(fc.nat({ max: 40 }), { maxLength: 20 }), (frames, cuts) => {
        const bytes = written((writer) => {
          for (const frame of frames) {
            if (frame.kind === "data") writer.data(frame.streamId, Buffer.from(frame.data), frame.endStream, frame.padLength);
            else if (frame.kind === "headers") writer.headers(frame.streamId, Buffer.from(frame.data), frame.endStream, { padLength: frame.padLength, priority: frame.priority });
            else if (frame.kind === "window") writer.windowUpdate(frame.streamId, frame.increment);
            else writer.rstStream(frame.streamId, frame.code);
          }
        });
        const chunks: Buffer[] = [];
        let at = 0;
        for (const cut of cuts) {
          chunks.push(bytes.subarray(at, Math.min(bytes.length, at + cut)));
          at = Math.min(bytes.length, at + cut);
        }
        chunks.push(bytes.subarray(at));
        const read = readAll(chunks);
        expect(read).toHaveLength(frames.length);
        frames.forEach((frame, index) => {
          const got = read[index]!;
          expect(got.streamId).toBe(frame.streamId);
          if (frame.kind === "data" || frame.kind === "headers") {
            expect(got.payload).toBe(Buffer.from(frame.data).toString("hex"));
            expect(got.padLength).toBe(frame.padLength ?? 0);
            expect((got.flags & FLAG.END_STREAM) !== 0).toBe(frame.endStream);
          }
          if (frame.kind === "headers") expect(got.priority).toEqual(frame.priority ?? NO_PRIORITY);
          if (frame.kind === "window") expect(got.increment).toBe(frame.increment);
          if (frame.kind === "rst") expect(got.errorCode).toBe(frame.code);
        });
      }),
      { seed, numRuns: 200 },
    );
  });

  it("reads a client's preface, then its SETTINGS, before any other frame", () => {
    const settings = written((writer) => writer.settings([]));
    const ping = written((writer) => writer.ping(Buffer.alloc(8), false));
    const bytes = Buffer.concat([CLIENT_PREFACE, settings, ping]);
    expect(readAll([bytes], { preface: "client" }).map(({ type }) => type)).toEqual([FRAME.SETTINGS, FRAME.PING]);
    expect(readAll(Array.from(bytes, (byte) => Buffer.from([byte])), { preface: "client" }).map(({ type }) => type)).toEqual([FRAME.SETTINGS, FRAME.PING]);
    expect(readAll([settings, ping], { preface: "server" }).map(({ type }) => type)).toEqual([FRAME.SETTINGS, FRAME.PING]);
  });

  it.each([
    ["an HTTP/1.1 request instead of the client's preface", Buffer.from("GET / HTTP/1.1\r\n"), "client" as const, "client preface"],
    ["a preface wrong in its last octet", Buffer.concat([CLIENT_PREFACE.subarray(0, 23), Buffer.from("X")]), "client" as const, "client preface"],
    ["a PING right after the client's preface", Buffer.concat([CLIENT_PREFACE, written((writer) => writer.ping(Buffer.alloc(8), false))]), "client" as const, "received a PING frame on stream 0 first"],
    ["a SETTINGS ACK as the server's first frame", written((writer) => writer.settingsAck()), "server" as const, "received a SETTINGS frame on stream 0 first"],
  ])("refuses %s: PROTOCOL_ERROR", (_name, bytes, preface, message) => {
    const error = readingError(bytes, { preface });
    expect(error?.code).toBe(ERROR.PROTOCOL_ERROR);
    expect(error?.message).toContain(message);
  });

  it("refuses a wrong preface at its first wrong octet, before the rest arrives", () => {
    const reader = new FrameReader({ preface: "client" });
    reader.push(CLIENT_PREFACE.subarray(0, 10));
    expect(reader.read()).toBeUndefined();
    reader.push(Buffer.from("x"));
    expect(() => reader.read()).toThrow(Http2ConnectionError);
  });

  const raw = (type: number, flags: number, streamId: number, payload: Buffer | number) =>
    written((writer) => writer.frame(type, flags, streamId, typeof payload === "number" ? Buffer.alloc(payload) : payload));
  const headersOpen = raw(FRAME.HEADERS, 0, 1, Buffer.from([0x82]));

  it.each<[string, Buffer, number, string]>([
    ["DATA on stream 0", raw(FRAME.DATA, 0, 0, 1), ERROR.PROTOCOL_ERROR, "received a DATA frame on stream 0: expected it on a stream (RFC 9113 section 6.1)"],
    ["HEADERS on stream 0", raw(FRAME.HEADERS, FLAG.END_HEADERS, 0, 1), ERROR.PROTOCOL_ERROR, "received a HEADERS frame on stream 0"],
    ["PRIORITY on stream 0", raw(FRAME.PRIORITY, 0, 0, 5), ERROR.PROTOCOL_ERROR, "received a PRIORITY frame on stream 0"],
    ["RST_STREAM on stream 0", raw(FRAME.RST_STREAM, 0, 0, 4), ERROR.PROTOCOL_ERROR, "received a RST_STREAM frame on stream 0"],
    ["PUSH_PROMISE on stream 0", raw(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 0, 4), ERROR.PROTOCOL_ERROR, "received a PUSH_PROMISE frame on stream 0"],
    ["CONTINUATION on stream 0 inside a header block", Buffer.concat([headersOpen, raw(FRAME.CONTINUATION, FLAG.END_HEADERS, 0, 1)]), ERROR.PROTOCOL_ERROR, "received a CONTINUATION frame on stream 0 inside the header block of stream 1"],
    ["SETTINGS on stream 1", raw(FRAME.SETTINGS, 0, 1, 0), ERROR.PROTOCOL_ERROR, "received a SETTINGS frame on stream 1: expected it on stream 0"],
    ["PING on stream 1", raw(FRAME.PING, 0, 1, 8), ERROR.PROTOCOL_ERROR, "received a PING frame on stream 1: expected it on stream 0"],
    ["GOAWAY on stream 1", raw(FRAME.GOAWAY, 0, 1, 8), ERROR.PROTOCOL_ERROR, "received a GOAWAY frame on stream 1: expected it on stream 0"],
    ["CONTINUATION outside a header block", raw(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, 1), ERROR.PROTOCOL_ERROR, "outside a header block"],
    ["CONTINUATION after a block's END_HEADERS", Buffer.concat([raw(FRAME.HEADERS, FLAG.END_HEADERS, 1, 1), raw(FRAME.CONTINUATION, FLAG.END_HEADERS, 1, 1)]), ERROR.PROTOCOL_ERROR, "outside a header block"],
    ["CONTINUATION of another stream inside a header block", Buffer.concat([headersOpen, raw(FRAME.CONTINUATION, FLAG.END_HEADERS, 3, 1)]), ERROR.PROTOCOL_ERROR, "inside the header block of stream 1"],
    ["PING inside a header block", Buffer.concat([headersOpen, raw(FRAME.PING, 0, 0, 8)]), ERROR.PROTOCOL_ERROR, "received a PING frame on stream 0 inside the header block of stream 1"],
    ["a frame of an unknown type inside a header block", Buffer.concat([headersOpen, raw(0xfa, 0, 1, 0)]), ERROR.PROTOCOL_ERROR, "received a type 0xfa frame on stream 1 inside the header block"],
    ["SETTINGS of 7 octets", raw(FRAME.SETTINGS, 0, 0, 7), ERROR.FRAME_SIZE_ERROR, "received a SETTINGS frame of 7 octets: expected a multiple of 6"],
    ["SETTINGS with ACK and 6 octets", raw(FRAME.SETTINGS, FLAG.ACK, 0, 6), ERROR.FRAME_SIZE_ERROR, "received a SETTINGS frame with ACK of 6 octets: expected an empty one"],
    ["PING of 7 octets", raw(FRAME.PING, 0, 0, 7), ERROR.FRAME_SIZE_ERROR, "received a PING frame of 7 octets: expected 8"],
    ["PING of 9 octets", raw(FRAME.PING, FLAG.ACK, 0, 9), ERROR.FRAME_SIZE_ERROR, "received a PING frame of 9 octets: expected 8"],
    ["GOAWAY of 7 octets", raw(FRAME.GOAWAY, 0, 0, 7), ERROR.FRAME_SIZE_ERROR, "received a GOAWAY frame of 7 octets: expected at least 8"],
    ["WINDOW_UPDATE of 3 octets", raw(FRAME.WINDOW_UPDATE, 0, 0, 3), ERROR.FRAME_SIZE_ERROR, "received a WINDOW_UPDATE frame of 3 octets: expected 4"],
    ["WINDOW_UPDATE of 5 octets on a stream", raw(FRAME.WINDOW_UPDATE, 0, 1, 5), ERROR.FRAME_SIZE_ERROR, "received a WINDOW_UPDATE frame of 5 octets: expected 4"],
    ["RST_STREAM of 3 octets", raw(FRAME.RST_STREAM, 0, 1, 3), ERROR.FRAME_SIZE_ERROR, "received a RST_STREAM frame of 3 octets: expected 4"],
    ["RST_STREAM of 5 octets", raw(FRAME.RST_STREAM, 0, 1, 5), ERROR.FRAME_SIZE_ERROR, "received a RST_STREAM frame of 5 octets: expected 4"],
    ["PRIORITY of 4 octets", raw(FRAME.PRIORITY, 0, 1, 4), ERROR.FRAME_SIZE_ERROR, "received a PRIORITY frame of 4 octets: expected 5"],
    ["PRIORITY of 6 octets", raw(FRAME.PRIORITY, 0, 1, 6), ERROR.FRAME_SIZE_ERROR, "received a PRIORITY frame of 6 octets: expected 5"],
    ["padded DATA without its Pad Length", raw(FRAME.DATA, FLAG.PADDED, 1, 0), ERROR.FRAME_SIZE_ERROR, "received a DATA frame of 0 octets: expected at least 1"],
    ["DATA whose padding is as long as its payload", raw(FRAME.DATA, FLAG.PADDED, 1, Buffer.from([4, 0, 0, 0])), ERROR.PROTOCOL_ERROR, "received a DATA frame with 4 octets of padding and 3 after its fields"],
    ["HEADERS with PRIORITY of 4 octets", raw(FRAME.HEADERS, FLAG.PRIORITY | FLAG.END_HEADERS, 1, 4), ERROR.FRAME_SIZE_ERROR, "received a HEADERS frame of 4 octets: expected at least 5"],
    ["padded HEADERS with PRIORITY of 5 octets", raw(FRAME.HEADERS, FLAG.PRIORITY | FLAG.PADDED | FLAG.END_HEADERS, 1, 5), ERROR.FRAME_SIZE_ERROR, "expected at least 6 for its Pad Length and fields"],
    ["HEADERS whose padding covers its priority", raw(FRAME.HEADERS, FLAG.PRIORITY | FLAG.PADDED | FLAG.END_HEADERS, 1, Buffer.from([3, 0, 0, 0, 0, 15, 0, 0])), ERROR.PROTOCOL_ERROR, "with 3 octets of padding and 2 after its fields"],
    ["PUSH_PROMISE of 3 octets", raw(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, 1, 3), ERROR.FRAME_SIZE_ERROR, "received a PUSH_PROMISE frame of 3 octets: expected at least 4"],
    ["a frame larger than SETTINGS_MAX_FRAME_SIZE", raw(FRAME.DATA, 0, 1, 16_385), ERROR.FRAME_SIZE_ERROR, "received a DATA frame of 16385 octets: expected at most 16384"],
  ])("refuses %s", (_name, bytes, code, message) => {
    const error = readingError(bytes);
    expect(error).toBeInstanceOf(Http2ConnectionError);
    expect(error?.code).toBe(code);
    expect(error?.message).toContain(message);
  });

  it("refuses a frame too large as soon as its header arrives", () => {
    const reader = new FrameReader();
    reader.push(raw(FRAME.DATA, 0, 1, 20_000).subarray(0, 9));
    expect(() => reader.read()).toThrow("received a DATA frame of 20000 octets");
  });

  it.each<[string, Buffer, Partial<Copied>]>([
    ["GOAWAY of 8 octets (no debug data)", raw(FRAME.GOAWAY, 0, 0, Buffer.from([0, 0, 0, 3, 0, 0, 0, 2])), { lastStreamId: 3, errorCode: ERROR.INTERNAL_ERROR, payload: "" }],
    ["DATA padded with all of its payload but the Pad Length", raw(FRAME.DATA, FLAG.PADDED, 1, Buffer.from([3, 0, 0, 0])), { padLength: 3, payload: "" }],
    ["WINDOW_UPDATE of 0 (for the connection to judge)", raw(FRAME.WINDOW_UPDATE, 0, 1, 4), { increment: 0 }],
    ["WINDOW_UPDATE's reserved bit", raw(FRAME.WINDOW_UPDATE, 0, 0, Buffer.from([0x80, 0, 0, 1])), { increment: 1 }],
    ["a stream identifier's reserved bit", written((writer) => writer.frame(FRAME.PING, 0, 0, Buffer.alloc(8))).fill(0x80, 5, 6), { streamId: 0 }],
    ["flags a type does not define (PADDED on SETTINGS, PRIORITY on DATA)", Buffer.concat([raw(FRAME.SETTINGS, FLAG.PADDED, 0, 6), raw(FRAME.DATA, FLAG.PRIORITY, 1, 2)]), { type: FRAME.DATA, padLength: 0, payload: "0000", priority: NO_PRIORITY }],
    ["PRIORITY on a stream whose block has ended", Buffer.concat([raw(FRAME.HEADERS, FLAG.END_HEADERS, 1, 1), raw(FRAME.PRIORITY, 0, 1, 5)]), { type: FRAME.PRIORITY, priority: { dependency: 0, exclusive: false, weight: 1 } }],
  ])("takes %s", (_name, bytes, expected) => {
    const frames = readAll([bytes]);
    expect(frames.at(-1)).toMatchObject(expected);
  });

  it("takes frames up to the maxFrameSize it is given", () => {
    expect(readAll([raw(FRAME.DATA, 0, 1, 20_000)], { maxFrameSize: 32_768 })[0]?.length).toBe(20_000);
  });

  it("calls onFirstQueued once per batch, and take answers undefined when nothing is queued", () => {
    let calls = 0;
    const writer = new FrameWriter(() => calls++);
    writer.settingsAck();
    writer.ping(Buffer.alloc(8), true);
    expect(calls).toBe(1);
    expect(writer.size).toBe(9 + 17);
    expect(writer.take()?.length).toBe(26);
    expect(writer.take()).toBeUndefined();
    writer.windowUpdate(0, 1);
    expect(calls).toBe(2);
  });

  it.each<[string, (writer: FrameWriter) => void, string]>([
    ["DATA on stream 0", (writer) => writer.data(0, Buffer.alloc(1), false), "a DATA frame on stream 0"],
    ["HEADERS on stream 0", (writer) => writer.headers(0, Buffer.alloc(1), false), "a HEADERS frame on stream 0"],
    ["RST_STREAM on stream 0", (writer) => writer.rstStream(0, ERROR.CANCEL), "a RST_STREAM frame on stream 0"],
    ["a WINDOW_UPDATE of 0", (writer) => writer.windowUpdate(1, 0), "a WINDOW_UPDATE of 0: increments are 1 to 2147483647"],
    ["a WINDOW_UPDATE of 2^31", (writer) => writer.windowUpdate(0, 2 ** 31), "a WINDOW_UPDATE of 2147483648"],
    ["DATA larger than the peer's SETTINGS_MAX_FRAME_SIZE", (writer) => writer.data(1, Buffer.alloc(16_385), false), "a DATA frame of 16385 octets: expected at most 16384"],
    ["a PING of 7 octets", (writer) => writer.ping(Buffer.alloc(7), false), "a PING of 7 octets"],
    ["256 octets of padding", (writer) => writer.data(1, Buffer.alloc(1), false, 256), "padding of 256 octets"],
    ["a priority of weight 0", (writer) => writer.priority(1, { dependency: 0, exclusive: false, weight: 0 }), "a priority of weight 0"],
    ["a stream beyond 31 bits", (writer) => writer.frame(FRAME.DATA, 0, 2 ** 31, undefined), "a DATA frame on stream 2147483648: streams are 0 to 2147483647"],
    ["a frame longer than a header can state", (writer) => writer.frame(0xfa, 0, 1, Buffer.alloc(2 ** 24)), "a type 0xfa frame of 16777216 octets: expected at most 16777215"],
  ])("refuses to write %s", (_name, write, message) => {
    expect(() => write(new FrameWriter())).toThrow(message);
  });

  it("writes DATA up to the maxFrameSize it is told", () => {
    const writer = new FrameWriter();
    writer.maxFrameSize = 32_768;
    writer.data(1, Buffer.alloc(20_000), false);
    expect(writer.take()?.length).toBe(9 + 20_000);
  });
});
