import type { Duplex } from "node:stream";
import { encodeHeaders, HpackDecoder, HpackError, type HeaderField } from "./hpack.js";

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

/** One client connection: its held streams ended and a GOAWAY sent by `close`, all of it dropped by `destroy`. */
export interface GrpcConnection {
  /** Ends the held streams, tells the client no new calls are taken, and ends the connection once every call is answered. */
  close(): void;
  destroy(): void;
}

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
const ERROR = { NO_ERROR: 0, PROTOCOL_ERROR: 1, FLOW_CONTROL_ERROR: 3, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, COMPRESSION_ERROR: 9, ENHANCE_YOUR_CALM: 11 } as const;
const SETTING = { INITIAL_WINDOW_SIZE: 4, MAX_FRAME_SIZE: 5, MAX_CONCURRENT_STREAMS: 3 } as const;

/** HTTP/2's window until a SETTINGS or WINDOW_UPDATE says otherwise. */
const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;
/** How much a client may send before the server's WINDOW_UPDATE, per stream and on the connection. */
const RECEIVE_WINDOW = 4 * 1024 * 1024;
/** HTTP/2's largest frame until a SETTINGS says otherwise: the largest the server takes (it does not raise it), and the largest it sends until the client raises it. */
const DEFAULT_FRAME_SIZE = 16_384;
/** The largest header block taken, its HEADERS and CONTINUATION frames together (a client that sends more is refused before HPACK reads it). */
const MAX_HEADER_BLOCK = 64 * 1024;
const MAX_STREAMS = 1_000;
/** The largest request message taken (what terraform-plugin-go's servers take: 256 MiB). */
const MAX_MESSAGE = 256 * 1024 * 1024;
/** A grpc-message longer than this (percent-encoded) is cut, so that a status fits one HEADERS frame. */
const MAX_STATUS_MESSAGE = 8_192;

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
 * said h2, or a plain one): the frames, flow control and HPACK a gRPC client needs to call unary
 * methods and hold streams open, on the JavaScript thread, without node:http2's per-stream
 * objects, events and ticks. Not in it: server push, priorities (read and ignored), answers
 * streamed in several messages, compression (the server announces none).
 *
 * A connection error (a frame that breaks the protocol) sends GOAWAY with its code and closes the
 * socket; a stream's own trouble (an unknown method, a malformed or too large request) answers its
 * gRPC status.
 */
export function serveConnection(socket: Duplex, methods: ReadonlyMap<string, GrpcMethod>, onError?: OnMethodError): GrpcConnection {
  const connection = new Connection(socket, methods, onError);
  return { close: () => connection.close(), destroy: () => socket.destroy() };
}

class Connection {
  readonly #streams = new Map<number, Stream>();
  readonly #decoder = new HpackDecoder();
  /** Frames queued since the last write: each one's type, flags and stream, and its payload. */
  readonly #outHeaders: number[] = [];
  readonly #outPayloads: Array<Buffer | undefined> = [];
  #outBytes = 0;
  #flushing = false;
  #input: Buffer = Buffer.alloc(0);
  #prefaceSeen = false;
  #lastStreamId = 0;
  #peerInitialWindow = DEFAULT_WINDOW;
  #peerMaxFrame = DEFAULT_FRAME_SIZE;
  #sendWindow = DEFAULT_WINDOW;
  #connectionUnreturned = 0;
  /** A header block spread over HEADERS and CONTINUATION frames, until END_HEADERS. */
  #headerBlock: { readonly streamId: number; readonly endStream: boolean; readonly fragments: Buffer[]; size: number } | undefined;
  #closing = false;
  #closed = false;

  constructor(
    private readonly socket: Duplex,
    private readonly methods: ReadonlyMap<string, GrpcMethod>,
    private readonly onError: OnMethodError | undefined,
  ) {
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("error", () => socket.destroy());
    socket.once("close", () => {
      this.#closed = true;
      this.#streams.clear();
    });
    // the server's preface: its SETTINGS, and the connection's window opened to RECEIVE_WINDOW
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(SETTING.MAX_CONCURRENT_STREAMS, 0);
    settings.writeUInt32BE(MAX_STREAMS, 2);
    settings.writeUInt16BE(SETTING.INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(RECEIVE_WINDOW, 8);
    this.#frame(FRAME.SETTINGS, 0, 0, settings);
    this.#windowUpdate(0, RECEIVE_WINDOW - DEFAULT_WINDOW);
  }

  close(): void {
    if (this.#closing || this.#closed) return;
    this.#closing = true;
    for (const stream of this.#streams.values()) if (stream.method?.kind === "held" && !stream.localEnded) this.#end(stream, OK_TRAILERS);
    this.#goAway(ERROR.NO_ERROR);
    this.#endIfIdle();
  }

  #receive(chunk: Buffer): void {
    let input = this.#input.length === 0 ? chunk : Buffer.concat([this.#input, chunk]);
    if (!this.#prefaceSeen) {
      if (input.length < PREFACE.length) {
        if (!PREFACE.subarray(0, input.length).equals(input)) return this.#fail(ERROR.PROTOCOL_ERROR);
        this.#input = input;
        return;
      }
      if (!input.subarray(0, PREFACE.length).equals(PREFACE)) return this.#fail(ERROR.PROTOCOL_ERROR);
      this.#prefaceSeen = true;
      input = input.subarray(PREFACE.length);
    }
    let at = 0;
    while (input.length - at >= 9 && !this.#closed) {
      const length = (input[at]! << 16) | (input[at + 1]! << 8) | input[at + 2]!;
      if (length > DEFAULT_FRAME_SIZE) return this.#fail(ERROR.FRAME_SIZE_ERROR);
      if (input.length - at < 9 + length) break;
      const type = input[at + 3]!;
      const flags = input[at + 4]!;
      const streamId = ((input[at + 5]! & 0x7f) << 24) | (input[at + 6]! << 16) | (input[at + 7]! << 8) | input[at + 8]!;
      const payload = input.subarray(at + 9, at + 9 + length);
      at += 9 + length;
      try {
        this.#onFrame(type, flags, streamId, payload);
      } catch (error) {
        if (error instanceof ConnectionError) return this.#fail(error.code);
        if (error instanceof HpackError) return this.#fail(ERROR.COMPRESSION_ERROR);
        throw error;
      }
    }
    this.#input = at === input.length ? Buffer.alloc(0) : Buffer.from(input.subarray(at));
  }

  #onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.#headerBlock !== undefined && (type !== FRAME.CONTINUATION || streamId !== this.#headerBlock.streamId)) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
    switch (type) {
      case FRAME.DATA:
        return this.#onData(flags, streamId, payload);
      case FRAME.HEADERS: {
        if (streamId === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
        let fragment = unpadded(flags, payload);
        if (flags & FLAG.PRIORITY) {
          if (fragment.length < 5) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
          fragment = fragment.subarray(5);
        }
        this.#headerBlock = { streamId, endStream: (flags & FLAG.END_STREAM) !== 0, fragments: [fragment], size: fragment.length };
        if (flags & FLAG.END_HEADERS) this.#onHeaderBlock();
        return;
      }
      case FRAME.CONTINUATION:
        if (this.#headerBlock === undefined) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
        this.#headerBlock.size += payload.length;
        // CONTINUATION without end (a flood of them) would hold memory for nothing
        if (this.#headerBlock.size > MAX_HEADER_BLOCK) throw new ConnectionError(ERROR.ENHANCE_YOUR_CALM);
        this.#headerBlock.fragments.push(payload);
        if (flags & FLAG.END_HEADERS) this.#onHeaderBlock();
        return;
      case FRAME.PRIORITY:
        if (payload.length !== 5) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
        return;
      case FRAME.RST_STREAM:
        if (payload.length !== 4) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
        this.#forget(streamId);
        return;
      case FRAME.SETTINGS:
        if (streamId !== 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
        if (flags & FLAG.ACK) return;
        if (payload.length % 6 !== 0) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
        for (let at = 0; at < payload.length; at += 6) this.#onSetting(payload.readUInt16BE(at), payload.readUInt32BE(at + 2));
        this.#frame(FRAME.SETTINGS, FLAG.ACK, 0, undefined);
        return;
      case FRAME.PING:
        if (payload.length !== 8) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
        if ((flags & FLAG.ACK) === 0) this.#frame(FRAME.PING, FLAG.ACK, 0, Buffer.from(payload));
        return;
      case FRAME.GOAWAY:
        this.#closing = true;
        this.#endIfIdle();
        return;
      case FRAME.WINDOW_UPDATE:
        return this.#onWindowUpdate(streamId, payload);
      case FRAME.PUSH_PROMISE:
        throw new ConnectionError(ERROR.PROTOCOL_ERROR);
      default:
      // frames of unknown types are ignored (RFC 9113 section 4.1)
    }
  }

  #onSetting(identifier: number, value: number): void {
    if (identifier === SETTING.INITIAL_WINDOW_SIZE) {
      if (value > MAX_WINDOW) throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR);
      const delta = value - this.#peerInitialWindow;
      this.#peerInitialWindow = value;
      for (const stream of this.#streams.values()) stream.sendWindow += delta;
      if (delta > 0) this.#sendQueued();
    } else if (identifier === SETTING.MAX_FRAME_SIZE) {
      if (value < DEFAULT_FRAME_SIZE || value > 16_777_215) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
      this.#peerMaxFrame = value;
    }
  }

  #onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (increment === 0) {
      if (streamId === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
      return;
    }
    if (streamId === 0) {
      this.#sendWindow += increment;
      if (this.#sendWindow > MAX_WINDOW) throw new ConnectionError(ERROR.FLOW_CONTROL_ERROR);
      this.#sendQueued();
      return;
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    stream.sendWindow += increment;
    if (stream.outbox !== undefined) this.#sendOutbox(stream);
  }

  #onData(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
    // every DATA frame counts against the connection's window, padding included, whatever its stream
    this.#connectionUnreturned += payload.length;
    if (this.#connectionUnreturned >= RECEIVE_WINDOW / 2) {
      this.#windowUpdate(0, this.#connectionUnreturned);
      this.#connectionUnreturned = 0;
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined || stream.remoteEnded) return;
    const data = unpadded(flags, payload);
    const endStream = (flags & FLAG.END_STREAM) !== 0;
    if (!endStream) {
      stream.unreturned += payload.length;
      if (stream.unreturned >= DEFAULT_WINDOW / 2) {
        this.#windowUpdate(stream.id, stream.unreturned);
        stream.unreturned = 0;
      }
    }
    if (stream.method?.kind === "held") {
      if (data.length > 0) stream.method.onMessage?.();
    } else if (!stream.answered) {
      stream.received += data.length;
      if (stream.received > MAX_MESSAGE + 5) {
        stream.chunks.length = 0;
        this.#status(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, `received a request of more than ${MAX_MESSAGE} bytes: the largest this plugin takes`);
      } else if (data.length > 0) stream.chunks.push(data);
    }
    if (endStream) this.#onRemoteEnd(stream);
  }

  #onHeaderBlock(): void {
    const { streamId, endStream, fragments } = this.#headerBlock!;
    this.#headerBlock = undefined;
    // decoded whatever becomes of the stream: the dynamic table must see every block
    const fields = this.#decoder.decode(fragments.length === 1 ? fragments[0]! : Buffer.concat(fragments));
    const existing = this.#streams.get(streamId);
    if (existing !== undefined) {
      // trailers of the client's side
      if (endStream) this.#onRemoteEnd(existing);
      return;
    }
    if (streamId % 2 === 0) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
    if (streamId <= this.#lastStreamId) return;
    this.#lastStreamId = streamId;
    if (this.#closing) return this.#reset(streamId, ERROR.REFUSED_STREAM);
    if (this.#streams.size >= MAX_STREAMS) return this.#reset(streamId, ERROR.REFUSED_STREAM);
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
      this.#frame(FRAME.HEADERS, FLAG.END_HEADERS, streamId, RESPONSE_HEADERS);
    }
    if (endStream) this.#onRemoteEnd(stream);
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
      if (!(error instanceof GrpcError)) this.onError?.(stream.path, error);
      if (this.#streams.get(stream.id) !== stream) return;
      this.#status(stream, error instanceof GrpcError ? error.code : GRPC_STATUS.INTERNAL, error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.#streams.get(stream.id) !== stream) return;
    this.#frame(FRAME.HEADERS, FLAG.END_HEADERS, stream.id, RESPONSE_HEADERS);
    // the message with its prefix (not compressed, its length)
    const framed = Buffer.allocUnsafe(5 + answer.length);
    framed[0] = 0;
    framed.writeUInt32BE(answer.length, 1);
    answer.copy(framed, 5);
    stream.outbox = framed;
    stream.trailers = OK_TRAILERS;
    this.#sendOutbox(stream);
  }

  /** A trailers-only answer: the status in the headers, no message. */
  #status(stream: Stream, code: number, message: string): void {
    if (stream.localEnded) return;
    stream.answered = true;
    let text = encodeURIComponent(message);
    if (text.length > MAX_STATUS_MESSAGE) text = `${encodeURIComponent(message.slice(0, 900))}%E2%80%A6`;
    const block = encodeHeaders([
      ...RESPONSE_FIELDS,
      ["grpc-status", String(code)],
      ["grpc-message", text],
    ]);
    this.#frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, stream.id, block);
    stream.localEnded = true;
    this.#settle(stream);
  }

  /** Sends what the windows allow of the stream's outbox, then its trailers once it is empty. */
  #sendOutbox(stream: Stream): void {
    let outbox = stream.outbox!;
    while (outbox.length > 0) {
      const size = Math.min(outbox.length, this.#sendWindow, stream.sendWindow, this.#peerMaxFrame);
      if (size <= 0) break;
      this.#frame(FRAME.DATA, 0, stream.id, outbox.subarray(0, size));
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
    this.#frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, stream.id, trailers);
    this.#settle(stream);
  }

  /** Forgets a stream the server has ended; one the client has not ended is reset, so that it sends no more of it (RFC 9113 section 8.1). */
  #settle(stream: Stream): void {
    if (!stream.localEnded || this.#streams.get(stream.id) !== stream) return;
    if (!stream.remoteEnded) this.#reset(stream.id, ERROR.NO_ERROR);
    this.#forget(stream.id);
  }

  #forget(streamId: number): void {
    this.#streams.delete(streamId);
    this.#endIfIdle();
  }

  #endIfIdle(): void {
    if (this.#closing && !this.#closed && this.#streams.size === 0) {
      this.#flush();
      this.#closed = true;
      this.socket.end();
    }
  }

  #reset(streamId: number, code: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(code, 0);
    this.#frame(FRAME.RST_STREAM, 0, streamId, payload);
  }

  #windowUpdate(streamId: number, increment: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(increment, 0);
    this.#frame(FRAME.WINDOW_UPDATE, 0, streamId, payload);
  }

  #goAway(code: number): void {
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(this.#lastStreamId, 0);
    payload.writeUInt32BE(code, 4);
    this.#frame(FRAME.GOAWAY, 0, 0, payload);
  }

  #fail(code: number): void {
    if (this.#closed) return;
    this.#goAway(code);
    this.#flush();
    this.#closed = true;
    this.#streams.clear();
    this.socket.end();
  }

  /** Queues a frame; the frames of one turn of the event loop go out in one write. */
  #frame(type: number, flags: number, streamId: number, payload: Buffer | undefined): void {
    if (this.#closed) return;
    this.#outHeaders.push(type, flags, streamId);
    this.#outPayloads.push(payload);
    this.#outBytes += 9 + (payload?.length ?? 0);
    if (!this.#flushing) {
      this.#flushing = true;
      process.nextTick(() => this.#flush());
    }
  }

  /** Writes the queued frames as one buffer (their 9-octet headers written here, RFC 9113 section 4.1). */
  #flush(): void {
    this.#flushing = false;
    if (this.#outBytes === 0) return;
    const bytes = Buffer.allocUnsafe(this.#outBytes);
    let at = 0;
    for (let index = 0; index < this.#outPayloads.length; index++) {
      const payload = this.#outPayloads[index];
      const length = payload?.length ?? 0;
      const streamId = this.#outHeaders[3 * index + 2]!;
      bytes[at] = length >>> 16;
      bytes[at + 1] = (length >>> 8) & 0xff;
      bytes[at + 2] = length & 0xff;
      bytes[at + 3] = this.#outHeaders[3 * index]!;
      bytes[at + 4] = this.#outHeaders[3 * index + 1]!;
      bytes[at + 5] = streamId >>> 24;
      bytes[at + 6] = (streamId >>> 16) & 0xff;
      bytes[at + 7] = (streamId >>> 8) & 0xff;
      bytes[at + 8] = streamId & 0xff;
      if (payload !== undefined) payload.copy(bytes, at + 9);
      at += 9 + length;
    }
    this.#outHeaders.length = 0;
    this.#outPayloads.length = 0;
    this.#outBytes = 0;
    if (!this.socket.destroyed) this.socket.write(bytes);
  }
}

class ConnectionError extends Error {
  constructor(readonly code: number) {
    super(`HTTP/2 connection error ${code}`);
  }
}

/** A DATA or HEADERS frame's payload without its padding. */
function unpadded(flags: number, payload: Buffer): Buffer {
  if ((flags & FLAG.PADDED) === 0) return payload;
  if (payload.length === 0) throw new ConnectionError(ERROR.FRAME_SIZE_ERROR);
  const padding = payload[0]!;
  if (padding >= payload.length) throw new ConnectionError(ERROR.PROTOCOL_ERROR);
  return payload.subarray(1, payload.length - padding);
}

/** The one message of a unary request's body. */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `received a request body of ${body.length} bytes: expected one length-prefixed message (5 bytes at least)`);
  if (body[0] !== 0) throw new GrpcError(GRPC_STATUS.UNIMPLEMENTED, `received a compressed message (flag ${body[0]}): expected an uncompressed one, as this server announces no compression`);
  const length = body.readUInt32BE(1);
  if (length !== body.length - 5) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `received a message framed as ${length} bytes in a body of ${body.length - 5}: expected exactly one message`);
  return body.subarray(5);
}
