import type { Duplex } from "node:stream";
import { CLOSED, ClosedStreams, type HowClosed } from "./closed-streams.js";
import { encodeHeaders, HpackDecoder, HpackError, type HeaderField } from "./hpack.js";
import {
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_WINDOW,
  ERROR,
  FLAG,
  FRAME,
  frameTypeName,
  FrameReader,
  FrameWriter,
  Http2ConnectionError,
  MAX_FRAME_SIZE_LIMIT,
  MAX_WINDOW,
  SETTING,
  type Frame,
} from "./http2-framer.js";

/** gRPC status codes the server answers with (as gRPC numbers them). */
export const GRPC_STATUS = { OK: 0, INVALID_ARGUMENT: 3, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** An error whose gRPC status the server answers with (INTERNAL for any other thrown error). */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A unary method: one request message in, one answer message out, as bytes (the method decodes the
 * request and encodes its answer itself, so their types never leave it).
 */
export interface UnaryMethod {
  readonly kind: "unary";
  answer(request: Buffer): Promise<Buffer>;
}

/**
 * A method whose stream the plugin holds open without answering (go-plugin's stdio and broker
 * streams): its request messages are ignored, and the server's `close` ends it with status OK.
 */
export interface HeldStreamMethod {
  readonly kind: "held";
  /** A bidirectional stream: ended as well when the client ends its side. (A server-streaming call's client ends its side after its one request.) */
  readonly endsWithClient?: boolean;
  /** Told of each request message (for a log line). */
  onMessage?(): void;
}

export type GrpcMethod = UnaryMethod | HeldStreamMethod;

/** Called with a method's error before it is answered INTERNAL. */
export type OnMethodError = (path: string, error: unknown) => void;

/** What a connection takes beside its methods. */
export interface GrpcConnectionOptions {
  /** Called with a method's error before it is answered INTERNAL. */
  readonly onError?: OnMethodError;
  /** The largest request message taken; a larger one is answered RESOURCE_EXHAUSTED. @default 256 MiB (what terraform-plugin-go's servers take) */
  readonly maxRequestMessage?: number;
}

/** One client connection: its held streams ended and a GOAWAY sent by `close`, all of it dropped by `destroy`. */
export interface GrpcConnection {
  /** Ends the held streams, tells the client no new calls are taken, and ends the connection once every call is answered. */
  close(): void;
  destroy(): void;
}

/** How much a client may send before the server's WINDOW_UPDATE, per stream and on the connection: a large request in flight without a round trip. */
const RECEIVE_WINDOW = 4 * 1024 * 1024;
/** The connection's window is given back once half of it is used: one WINDOW_UPDATE per 2 MiB received. */
const CONNECTION_WINDOW_RETURN = RECEIVE_WINDOW / 2;
/** A stream's window is given back once half of HTTP/2's default is used: a client that has not yet applied the server's larger window never waits on it. */
const STREAM_WINDOW_RETURN = DEFAULT_WINDOW / 2;
/** The largest header block taken, its HEADERS and CONTINUATION frames together: a CONTINUATION flood is refused before HPACK reads it, rather than held. */
const MAX_HEADER_BLOCK = 64 * 1024;
/** SETTINGS_MAX_CONCURRENT_STREAMS: far above terraform's parallelism (10 calls) and go-plugin's two held streams, it bounds the calls a client makes the server hold. */
const MAX_STREAMS = 1_000;
/** Closed streams remembered, to tell what a late frame on one means: as many as may be open at once, each of which may have frames in flight when it closes. */
const RECENTLY_CLOSED = MAX_STREAMS;
/** The largest request message taken unless told otherwise (what terraform-plugin-go's servers take: 256 MiB). */
const MAX_MESSAGE = 256 * 1024 * 1024;
/** A gRPC message's prefix: its compressed flag (1 octet) and its length (4). */
const MESSAGE_PREFIX = 5;
/** A grpc-message longer than this (percent-encoded) is cut, so that a status fits one HEADERS frame (16,384 octets at the least). */
const MAX_STATUS_MESSAGE = 8_192;
/** The characters a status message too long keeps: each is at most 9 octets percent-encoded (one of three UTF-8 octets), so 900 and the ellipsis fit MAX_STATUS_MESSAGE. */
const STATUS_MESSAGE_KEPT = 900;
/** What ends a status message cut: "…", percent-encoded. */
const CUT_MARK = "%E2%80%A6";

/** The headers of every answer, and of a trailers-only one before its status. */
const RESPONSE_FIELDS: ReadonlyArray<HeaderField> = [
  [":status", "200"],
  ["content-type", "application/grpc+proto"],
];
const RESPONSE_HEADERS = encodeHeaders(RESPONSE_FIELDS);
const OK_TRAILERS = encodeHeaders([["grpc-status", String(GRPC_STATUS.OK)]]);

interface Stream {
  readonly id: number;
  readonly path: string;
  readonly method: GrpcMethod | undefined;
  readonly chunks: Buffer[];
  received: number;
  /** Bytes received on the stream the client has not been given back by a WINDOW_UPDATE. */
  unreturned: number;
  /** The client ended its side (END_STREAM). */
  remoteEnded: boolean;
  /** The server ended its side. */
  localEnded: boolean;
  /** The server answered (headers sent), or decided to drop what the client sends. */
  answered: boolean;
  sendWindow: number;
  /** DATA not yet sent (the windows were spent), and the trailers to send after it. */
  outbox: Buffer | undefined;
  trailers: Buffer | undefined;
}

/**
 * Serves gRPC over HTTP/2 (RFC 9113) on `socket`, an established connection (TLS's, whose ALPN
 * said h2, or a plain one): the streams, flow control and HPACK a gRPC client needs to call unary
 * methods and hold streams open, on the JavaScript thread, without node:http2's per-stream
 * objects, events and ticks; frames are read and written by http2-framer.ts. Not in it: server
 * push, priorities (read and ignored), answers streamed in several messages, compression (the
 * server announces none).
 *
 * A connection error (a frame that breaks the protocol) sends GOAWAY with its code and closes the
 * socket; a stream error (a frame that breaks it for its stream alone) resets the stream; a
 * stream's own trouble as gRPC sees it (an unknown method, a malformed or too large request)
 * answers its gRPC status.
 */
export function serveConnection(socket: Duplex, methods: ReadonlyMap<string, GrpcMethod>, options: GrpcConnectionOptions = {}): GrpcConnection {
  const connection = new Connection(socket, methods, options);
  return { close: () => connection.close(), destroy: () => socket.destroy() };
}

class Connection {
  readonly #streams = new Map<number, Stream>();
  readonly #closedStreams = new ClosedStreams(RECENTLY_CLOSED);
  readonly #decoder = new HpackDecoder();
  readonly #reader = new FrameReader({ preface: "client", maxFrameSize: DEFAULT_MAX_FRAME_SIZE });
  readonly #flushSoon = () => this.#flush();
  /**
   * The frames of one turn of the event loop go out in one write: after the turn's reads (terraform
   * asks up to ten things at once), not after each answer, since each write costs as much as an
   * answer's encoding (a TLS record, a system call).
   */
  readonly #writer = new FrameWriter(() => setImmediate(this.#flushSoon));
  readonly #maxRequestMessage: number;
  #lastStreamId = 0;
  #peerInitialWindow = DEFAULT_WINDOW;
  #sendWindow = DEFAULT_WINDOW;
  #connectionUnreturned = 0;
  /** A header block spread over HEADERS and CONTINUATION frames, until END_HEADERS. */
  #headerBlock: { readonly streamId: number; readonly endStream: boolean; readonly fragments: Buffer[]; size: number } | undefined;
  #closing = false;
  #closed = false;

  constructor(
    private readonly socket: Duplex,
    private readonly methods: ReadonlyMap<string, GrpcMethod>,
    private readonly options: GrpcConnectionOptions,
  ) {
    this.#maxRequestMessage = options.maxRequestMessage ?? MAX_MESSAGE;
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("error", () => socket.destroy());
    socket.once("close", () => {
      this.#closed = true;
      this.#streams.clear();
    });
    // the server's preface: its SETTINGS, and the connection's window opened to RECEIVE_WINDOW
    this.#writer.settings([
      { identifier: SETTING.MAX_CONCURRENT_STREAMS, value: MAX_STREAMS },
      { identifier: SETTING.INITIAL_WINDOW_SIZE, value: RECEIVE_WINDOW },
    ]);
    this.#writer.windowUpdate(0, RECEIVE_WINDOW - DEFAULT_WINDOW);
  }

  close(): void {
    if (this.#closing || this.#closed) return;
    this.#closing = true;
    for (const stream of this.#streams.values()) if (stream.method?.kind === "held" && !stream.localEnded) this.#end(stream, OK_TRAILERS);
    this.#goAway(ERROR.NO_ERROR);
    this.#endIfIdle();
  }

  #receive(chunk: Buffer): void {
    if (this.#closed) return;
    this.#reader.push(chunk);
    try {
      while (!this.#closed) {
        const frame = this.#reader.read();
        if (frame === undefined) return;
        this.#onFrame(frame);
      }
    } catch (error) {
      if (error instanceof Http2ConnectionError) return this.#fail(error.code);
      if (error instanceof HpackError) return this.#fail(ERROR.COMPRESSION_ERROR);
      throw error;
    }
  }

  #onFrame(frame: Frame): void {
    switch (frame.type) {
      case FRAME.DATA:
        return this.#onData(frame);
      case FRAME.HEADERS:
        return this.#onHeaders(frame);
      case FRAME.CONTINUATION:
        return this.#onContinuation(frame);
      case FRAME.RST_STREAM:
        return this.#onReset(frame);
      case FRAME.SETTINGS:
        return this.#onSettings(frame);
      case FRAME.PING:
        if ((frame.flags & FLAG.ACK) === 0) this.#writer.ping(Buffer.from(frame.payload()), true);
        return;
      case FRAME.GOAWAY:
        this.#closing = true;
        this.#endIfIdle();
        return;
      case FRAME.WINDOW_UPDATE:
        return this.#onWindowUpdate(frame);
      case FRAME.PUSH_PROMISE:
        throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received PUSH_PROMISE on stream ${frame.streamId}: a client cannot push (RFC 9113 section 8.4)`);
      default:
      // PRIORITY: read and ignored, on a stream in any state (RFC 9113 section 5.3.2); a type RFC 9113 does not define: ignored (section 4.1)
    }
  }

  #onHeaders(frame: Frame): void {
    const endStream = (frame.flags & FLAG.END_STREAM) !== 0;
    const fragment = frame.payload();
    if ((frame.flags & FLAG.END_HEADERS) !== 0) return this.#onHeaderBlock(frame.streamId, endStream, fragment);
    this.#headerBlock = { streamId: frame.streamId, endStream, fragments: [fragment], size: fragment.length };
  }

  #onContinuation(frame: Frame): void {
    // the reader lets a CONTINUATION through only right after its block's HEADERS or CONTINUATION
    const block = this.#headerBlock;
    if (block === undefined) throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received CONTINUATION on stream ${frame.streamId} after no HEADERS`);
    const fragment = frame.payload();
    block.size += fragment.length;
    if (block.size > MAX_HEADER_BLOCK) {
      throw new Http2ConnectionError(ERROR.ENHANCE_YOUR_CALM, `received a header block of more than ${MAX_HEADER_BLOCK} octets on stream ${block.streamId}: expected at most that`);
    }
    block.fragments.push(fragment);
    if ((frame.flags & FLAG.END_HEADERS) === 0) return;
    this.#headerBlock = undefined;
    this.#onHeaderBlock(block.streamId, block.endStream, Buffer.concat(block.fragments));
  }

  #onHeaderBlock(streamId: number, endStream: boolean, block: Buffer): void {
    // decoded whatever becomes of the stream: the dynamic table must see every block
    const fields = this.#decoder.decode(block);
    const existing = this.#streams.get(streamId);
    if (existing !== undefined) return this.#onTrailers(existing, endStream);
    if (streamId % 2 === 0) throw evenStream(streamId);
    if (streamId <= this.#lastStreamId) return this.#onNotOpen(FRAME.HEADERS, streamId);
    this.#lastStreamId = streamId;
    if (this.#closing || this.#streams.size >= MAX_STREAMS) return this.#refuse(streamId);
    this.#open(streamId, fields, endStream);
  }

  /** HEADERS on an open stream: the client's trailers, which must end its side (RFC 9113 section 8.1). */
  #onTrailers(stream: Stream, endStream: boolean): void {
    // half-closed (remote): the client's side has ended (section 5.1)
    if (stream.remoteEnded) return this.#streamError(stream.id, ERROR.STREAM_CLOSED);
    if (!endStream) return this.#streamError(stream.id, ERROR.PROTOCOL_ERROR);
    this.#onRemoteEnd(stream);
  }

  /** Refuses a new stream (REFUSED_STREAM: the client may retry it elsewhere, RFC 9113 section 8.7). */
  #refuse(streamId: number): void {
    this.#writer.rstStream(streamId, ERROR.REFUSED_STREAM);
    this.#closedStreams.add(streamId, CLOSED.SERVER_RESET);
  }

  #open(streamId: number, fields: ReadonlyArray<HeaderField>, endStream: boolean): void {
    const path = fields.find(([name]) => name === ":path")?.[1] ?? "";
    const method = this.methods.get(path);
    const stream: Stream = {
      id: streamId,
      path,
      method,
      chunks: [],
      received: 0,
      unreturned: 0,
      remoteEnded: endStream,
      localEnded: false,
      answered: false,
      sendWindow: this.#peerInitialWindow,
      outbox: undefined,
      trailers: undefined,
    };
    this.#streams.set(streamId, stream);
    if (method === undefined) this.#status(stream, GRPC_STATUS.UNIMPLEMENTED, `unknown method ${path}: this plugin does not serve it`);
    else if (method.kind === "held") {
      stream.answered = true;
      this.#writer.headers(streamId, RESPONSE_HEADERS, false);
    }
    if (endStream) this.#onRemoteEnd(stream);
  }

  /**
   * DATA or HEADERS on a stream that is not open (RFC 9113 section 5.1): idle, a connection error;
   * reset by the server, ignored (the client sent it before the reset reached it); ended by both
   * sides, a connection error; reset by the client, or closed longer ago than remembered, a stream
   * error (HEADERS there: a stream identifier gone back, section 5.1.1).
   */
  #onNotOpen(type: number, streamId: number): void {
    const name = frameTypeName(type);
    if (this.#isIdle(streamId)) throw idleStream(name, streamId, "5.1");
    const how: HowClosed = this.#closedStreams.howClosed(streamId);
    if (how === CLOSED.SERVER_RESET) return;
    if (how === CLOSED.BOTH_ENDED) {
      throw new Http2ConnectionError(ERROR.STREAM_CLOSED, `received ${name} on stream ${streamId} after both sides ended it: expected nothing but WINDOW_UPDATE, RST_STREAM or PRIORITY (RFC 9113 section 5.1)`);
    }
    if (how === CLOSED.UNKNOWN && type === FRAME.HEADERS) {
      throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received HEADERS on stream ${streamId}, lower than stream ${this.#lastStreamId} opened before: expected a new stream's to be higher (RFC 9113 section 5.1.1)`);
    }
    this.#streamError(streamId, ERROR.STREAM_CLOSED);
  }

  /** A stream the client has not opened yet: higher than any it opened, or even (a server's, and this server opens none). */
  #isIdle(streamId: number): boolean {
    return streamId % 2 === 0 || streamId > this.#lastStreamId;
  }

  #onSettings(frame: Frame): void {
    if ((frame.flags & FLAG.ACK) !== 0) return;
    for (let index = 0; index < frame.settingCount; index++) {
      const { identifier, value } = frame.setting(index);
      this.#onSetting(identifier, value);
    }
    this.#writer.settingsAck();
  }

  #onSetting(identifier: number, value: number): void {
    switch (identifier) {
      case SETTING.ENABLE_PUSH:
        if (value > 1) throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received SETTINGS_ENABLE_PUSH ${value}: expected 0 or 1 (RFC 9113 section 6.5.2)`);
        return;
      case SETTING.INITIAL_WINDOW_SIZE:
        return this.#onInitialWindow(value);
      case SETTING.MAX_FRAME_SIZE:
        if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_FRAME_SIZE_LIMIT) {
          throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received SETTINGS_MAX_FRAME_SIZE ${value}: expected ${DEFAULT_MAX_FRAME_SIZE} to ${MAX_FRAME_SIZE_LIMIT} (RFC 9113 section 6.5.2)`);
        }
        this.#writer.maxFrameSize = value;
        return;
      default:
      // HEADER_TABLE_SIZE (the server's blocks never index), MAX_CONCURRENT_STREAMS (it opens none),
      // MAX_HEADER_LIST_SIZE (its blocks are small), and settings RFC 9113 does not define (ignored, section 6.5.2)
    }
  }

  #onInitialWindow(value: number): void {
    if (value > MAX_WINDOW) throw new Http2ConnectionError(ERROR.FLOW_CONTROL_ERROR, `received SETTINGS_INITIAL_WINDOW_SIZE ${value}: expected at most ${MAX_WINDOW} (RFC 9113 section 6.5.2)`);
    const delta = value - this.#peerInitialWindow;
    this.#peerInitialWindow = value;
    for (const stream of this.#streams.values()) {
      stream.sendWindow += delta;
      if (stream.sendWindow > MAX_WINDOW) {
        throw new Http2ConnectionError(ERROR.FLOW_CONTROL_ERROR, `received SETTINGS_INITIAL_WINDOW_SIZE ${value}, which takes stream ${stream.id}'s window beyond ${MAX_WINDOW} (RFC 9113 section 6.9.2)`);
      }
    }
    if (delta > 0) this.#sendQueued();
  }

  #onWindowUpdate({ streamId, increment }: Frame): void {
    if (streamId === 0) return this.#onConnectionWindowUpdate(increment);
    if (this.#isIdle(streamId)) throw idleStream("WINDOW_UPDATE", streamId, "5.1");
    const stream = this.#streams.get(streamId);
    // on a closed stream: ignored, sent before the client learnt it closed (section 5.1)
    if (stream === undefined) return;
    if (increment === 0) return this.#streamError(streamId, ERROR.PROTOCOL_ERROR);
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW) return this.#streamError(streamId, ERROR.FLOW_CONTROL_ERROR);
    if (stream.outbox !== undefined) this.#sendOutbox(stream);
  }

  #onConnectionWindowUpdate(increment: number): void {
    if (increment === 0) throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, "received a WINDOW_UPDATE of 0 for the connection: expected 1 or more (RFC 9113 section 6.9)");
    this.#sendWindow += increment;
    if (this.#sendWindow > MAX_WINDOW) throw new Http2ConnectionError(ERROR.FLOW_CONTROL_ERROR, `received a WINDOW_UPDATE that takes the connection's window beyond ${MAX_WINDOW} (RFC 9113 section 6.9.1)`);
    this.#sendQueued();
  }

  #onReset({ streamId }: Frame): void {
    if (this.#isIdle(streamId)) throw idleStream("RST_STREAM", streamId, "6.4");
    // on a closed stream: ignored (section 5.1)
    if (this.#streams.has(streamId)) this.#forget(streamId, CLOSED.CLIENT_RESET);
  }

  #onData(frame: Frame): void {
    // every DATA frame counts against the connection's window, padding included, whatever its stream
    this.#connectionUnreturned += frame.length;
    if (this.#connectionUnreturned >= CONNECTION_WINDOW_RETURN) {
      this.#writer.windowUpdate(0, this.#connectionUnreturned);
      this.#connectionUnreturned = 0;
    }
    const stream = this.#streams.get(frame.streamId);
    if (stream === undefined) return this.#onNotOpen(FRAME.DATA, frame.streamId);
    // half-closed (remote): the client's side has ended (RFC 9113 section 5.1)
    if (stream.remoteEnded) return this.#streamError(stream.id, ERROR.STREAM_CLOSED);
    const endStream = (frame.flags & FLAG.END_STREAM) !== 0;
    if (!endStream) {
      stream.unreturned += frame.length;
      if (stream.unreturned >= STREAM_WINDOW_RETURN) {
        this.#writer.windowUpdate(stream.id, stream.unreturned);
        stream.unreturned = 0;
      }
    }
    this.#onMessageBytes(stream, frame.payload());
    if (endStream) this.#onRemoteEnd(stream);
  }

  /** Bytes of a stream's request: kept for a unary call until its end, up to the largest message taken. */
  #onMessageBytes(stream: Stream, data: Buffer): void {
    if (stream.method?.kind === "held") {
      if (data.length > 0) stream.method.onMessage?.();
      return;
    }
    if (stream.answered) return;
    stream.received += data.length;
    if (stream.received > this.#maxRequestMessage + MESSAGE_PREFIX) {
      stream.chunks.length = 0;
      this.#status(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, `received a request of more than ${this.#maxRequestMessage} bytes: the largest this plugin takes`);
    } else if (data.length > 0) stream.chunks.push(data);
  }

  #onRemoteEnd(stream: Stream): void {
    stream.remoteEnded = true;
    const method = stream.method;
    if (method?.kind === "unary" && !stream.answered) {
      stream.answered = true;
      const body = stream.chunks.length === 1 ? stream.chunks[0]! : Buffer.concat(stream.chunks);
      stream.chunks.length = 0;
      void this.#answer(stream, method, body);
    } else if (method?.kind === "held" && method.endsWithClient && !stream.localEnded) this.#end(stream, OK_TRAILERS);
    this.#settle(stream);
  }

  async #answer(stream: Stream, method: UnaryMethod, body: Buffer): Promise<void> {
    let answer: Buffer;
    try {
      answer = await method.answer(unframe(body));
    } catch (error) {
      if (!(error instanceof GrpcError)) this.options.onError?.(stream.path, error);
      if (this.#streams.get(stream.id) !== stream) return;
      this.#status(stream, error instanceof GrpcError ? error.code : GRPC_STATUS.INTERNAL, error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.#streams.get(stream.id) !== stream) return;
    this.#writer.headers(stream.id, RESPONSE_HEADERS, false);
    // the message with its prefix (not compressed, its length)
    const framed = Buffer.allocUnsafe(MESSAGE_PREFIX + answer.length);
    framed[0] = 0;
    framed.writeUInt32BE(answer.length, 1);
    answer.copy(framed, MESSAGE_PREFIX);
    stream.outbox = framed;
    stream.trailers = OK_TRAILERS;
    this.#sendOutbox(stream);
  }

  /** A trailers-only answer: the status in the headers, no message. */
  #status(stream: Stream, code: number, message: string): void {
    if (stream.localEnded) return;
    stream.answered = true;
    const block = encodeHeaders([
      ...RESPONSE_FIELDS,
      ["grpc-status", String(code)],
      ["grpc-message", statusMessageText(message)],
    ]);
    this.#writer.headers(stream.id, block, true);
    stream.localEnded = true;
    this.#settle(stream);
  }

  /** Sends what the windows allow of the stream's outbox, then its trailers once it is empty. */
  #sendOutbox(stream: Stream): void {
    let outbox = stream.outbox!;
    while (outbox.length > 0) {
      const size = Math.min(outbox.length, this.#sendWindow, stream.sendWindow, this.#writer.maxFrameSize);
      if (size <= 0) break;
      this.#writer.data(stream.id, outbox.subarray(0, size), false);
      this.#sendWindow -= size;
      stream.sendWindow -= size;
      outbox = outbox.subarray(size);
    }
    if (outbox.length > 0) {
      stream.outbox = outbox;
      return;
    }
    stream.outbox = undefined;
    this.#end(stream, stream.trailers!);
  }

  /** Sends the queued DATA of every stream the windows now allow, oldest stream first. */
  #sendQueued(): void {
    for (const stream of this.#streams.values()) {
      if (this.#sendWindow <= 0) return;
      if (stream.outbox !== undefined) this.#sendOutbox(stream);
    }
  }

  #end(stream: Stream, trailers: Buffer): void {
    stream.localEnded = true;
    stream.trailers = undefined;
    this.#writer.headers(stream.id, trailers, true);
    this.#settle(stream);
  }

  /** Forgets a stream the server has ended; one the client has not ended is reset, so that it sends no more of it (RFC 9113 section 8.1). */
  #settle(stream: Stream): void {
    if (!stream.localEnded || this.#streams.get(stream.id) !== stream) return;
    if (!stream.remoteEnded) this.#writer.rstStream(stream.id, ERROR.NO_ERROR);
    this.#forget(stream.id, stream.remoteEnded ? CLOSED.BOTH_ENDED : CLOSED.SERVER_RESET);
  }

  /** A stream error (RFC 9113 section 5.4.2): RST_STREAM with `code`, and the stream, if open, forgotten with its answer. */
  #streamError(streamId: number, code: number): void {
    this.#writer.rstStream(streamId, code);
    if (this.#streams.has(streamId)) this.#forget(streamId, CLOSED.SERVER_RESET);
    else this.#closedStreams.add(streamId, CLOSED.SERVER_RESET);
  }

  #forget(streamId: number, how: HowClosed): void {
    this.#streams.delete(streamId);
    this.#closedStreams.add(streamId, how);
    this.#endIfIdle();
  }

  #endIfIdle(): void {
    if (this.#closing && !this.#closed && this.#streams.size === 0) {
      this.#flush();
      this.#closed = true;
      this.socket.end();
    }
  }

  #goAway(code: number): void {
    this.#writer.goAway(this.#lastStreamId, code);
  }

  /** A connection error (RFC 9113 section 5.4.1): GOAWAY with its code, then the end. */
  #fail(code: number): void {
    if (this.#closed) return;
    this.#goAway(code);
    this.#flush();
    this.#closed = true;
    this.#streams.clear();
    this.socket.end();
  }

  /** Writes the frames queued as one buffer. */
  #flush(): void {
    const bytes = this.#writer.take();
    if (bytes !== undefined && !this.#closed && !this.socket.destroyed) this.socket.write(bytes);
  }
}

function idleStream(frameName: string, streamId: number, section: string): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received ${frameName} on stream ${streamId}, which is idle: expected HEADERS to open it (RFC 9113 section ${section})`);
}

function evenStream(streamId: number): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received HEADERS opening stream ${streamId}: expected an odd stream, as a client's are (RFC 9113 section 5.1.1)`);
}

/**
 * A status message as grpc-message carries it: percent-encoded, cut when too long for one HEADERS
 * frame. A lone surrogate (which encodeURIComponent refuses) becomes U+FFFD, as does the half of a
 * pair the cut leaves.
 */
function statusMessageText(message: string): string {
  const text = encodeURIComponent(wellFormed(message));
  if (text.length <= MAX_STATUS_MESSAGE) return text;
  return `${encodeURIComponent(wellFormed(message.slice(0, STATUS_MESSAGE_KEPT)))}${CUT_MARK}`;
}

/** `text` with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, which ES2023's library lacks). */
function wellFormed(text: string): string {
  return text.replace(/\p{Cs}/gu, "\uFFFD");
}

/** The one message of a unary request's body. */
function unframe(body: Buffer): Buffer {
  if (body.length < MESSAGE_PREFIX) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `received a request body of ${body.length} bytes: expected one length-prefixed message (5 bytes at least)`);
  if (body[0] !== 0) throw new GrpcError(GRPC_STATUS.UNIMPLEMENTED, `received a compressed message (flag ${body[0]}): expected an uncompressed one, as this server announces no compression`);
  const length = body.readUInt32BE(1);
  if (length !== body.length - MESSAGE_PREFIX) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `received a message framed as ${length} bytes in a body of ${body.length - MESSAGE_PREFIX}: expected exactly one message`);
  return body.subarray(MESSAGE_PREFIX);
}
