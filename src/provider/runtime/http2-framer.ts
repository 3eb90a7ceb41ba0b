/**
 * HTTP/2's frames (RFC 9113 sections 4 and 6), read from bytes and written as bytes: the 9-octet
 * header, padding, priority fields, each type's fields, and what the RFC asks of a frame by itself,
 * checked as it is read: its length for its type, its padding, whether it belongs on stream 0, and
 * that a header block's CONTINUATION frames follow it with nothing between. What a frame means to a
 * connection (streams' states, flow control, what a setting changes) is the connection's
 * (grpc-connection.ts). Modeled on Go's `Framer` (golang.org/x/net/http2, frame.go).
 */

/** Frame types (RFC 9113 section 6). */
export const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;

/** Flags; one bit means different things for different types (END_STREAM of DATA and HEADERS is ACK of SETTINGS and PING). */
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** Error codes of RST_STREAM and GOAWAY (RFC 9113 section 7). */
export const ERROR = {
  NO_ERROR: 0,
  PROTOCOL_ERROR: 1,
  INTERNAL_ERROR: 2,
  FLOW_CONTROL_ERROR: 3,
  SETTINGS_TIMEOUT: 4,
  STREAM_CLOSED: 5,
  FRAME_SIZE_ERROR: 6,
  REFUSED_STREAM: 7,
  CANCEL: 8,
  COMPRESSION_ERROR: 9,
  CONNECT_ERROR: 10,
  ENHANCE_YOUR_CALM: 11,
  INADEQUATE_SECURITY: 12,
  HTTP_1_1_REQUIRED: 13,
} as const;

/** SETTINGS parameters (RFC 9113 section 6.5.2). */
export const SETTING = { HEADER_TABLE_SIZE: 1, ENABLE_PUSH: 2, MAX_CONCURRENT_STREAMS: 3, INITIAL_WINDOW_SIZE: 4, MAX_FRAME_SIZE: 5, MAX_HEADER_LIST_SIZE: 6 } as const;

/** What a client sends before its first frame, its SETTINGS (RFC 9113 section 3.4). */
export const CLIENT_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
/** Every frame's header: payload length (24 bits), type, flags, a reserved bit and the stream (31 bits) (section 4.1). */
export const FRAME_HEADER_SIZE = 9;
/** The largest payload an endpoint takes until its SETTINGS_MAX_FRAME_SIZE says otherwise, and the least that setting may say (section 4.2). */
export const DEFAULT_MAX_FRAME_SIZE = 16_384;
/** The largest SETTINGS_MAX_FRAME_SIZE: what the header's 24-bit length can state (section 6.5.2). */
export const MAX_FRAME_SIZE_LIMIT = 16_777_215;
/** Every flow-control window until a SETTINGS or WINDOW_UPDATE changes it (section 6.9.2). */
export const DEFAULT_WINDOW = 65_535;
/** The largest a flow-control window, and a WINDOW_UPDATE's increment, may be (section 6.9.1). */
export const MAX_WINDOW = 2 ** 31 - 1;
/** Stream identifiers are 31 bits (section 5.1.1). */
const MAX_STREAM_ID = 2 ** 31 - 1;
/** A priority's fields: exclusive bit and stream dependency (32 bits), weight (8) (sections 6.2, 6.3). */
const PRIORITY_SIZE = 5;
/** RST_STREAM's error code and WINDOW_UPDATE's increment: 32 bits (sections 6.4, 6.9). */
const WORD_SIZE = 4;
/** PING's opaque data (section 6.7). */
const PING_SIZE = 8;
/** GOAWAY's last stream and error code, before its optional debug data (section 6.8). */
const GOAWAY_MIN_SIZE = 8;
/** A SETTINGS entry: identifier (16 bits) and value (32) (section 6.5.1). */
const SETTING_SIZE = 6;
/** PADDED's Pad Length field: one octet (section 6.1), so at most 255 octets of padding. */
const MAX_PADDING = 255;

const TYPE_NAMES = ["DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION"];

/** A frame type's name for messages (`type 0xNN` for a type RFC 9113 does not define). */
export function frameTypeName(type: number): string {
  return TYPE_NAMES[type] ?? `type 0x${type.toString(16).padStart(2, "0")}`;
}

/** A connection error (RFC 9113 section 5.4.1): the connection sends GOAWAY with `code`, then ends. */
export class Http2ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A stream's priority as HEADERS (with PRIORITY) and PRIORITY frames carry it (RFC 9113 deprecates the scheme; frames still carry it). */
export interface Priority {
  readonly dependency: number;
  readonly exclusive: boolean;
  /** 1 to 256 (the octet on the wire plus one). */
  readonly weight: number;
}

/** A SETTINGS entry. */
export interface Setting {
  readonly identifier: number;
  readonly value: number;
}

/**
 * A frame read. The reader reuses one object for every frame and the payload is a view of the
 * bytes received, so a frame is valid until the reader's next `read`: copy what is kept longer.
 * Each type's fields hold 0 (false) on frames of other types.
 */
export interface Frame {
  readonly type: number;
  readonly flags: number;
  /** The stream, the header's reserved bit ignored; 0 for the connection. */
  readonly streamId: number;
  /** The payload's length as the header states it, padding and fields included: what DATA counts against the flow-control windows. */
  readonly length: number;
  /** PADDED DATA, HEADERS and PUSH_PROMISE: the padding's length. */
  readonly padLength: number;
  /** HEADERS with PRIORITY, and PRIORITY: the priority's fields. */
  readonly dependency: number;
  readonly exclusive: boolean;
  readonly weight: number;
  /** RST_STREAM and GOAWAY: the error code. */
  readonly errorCode: number;
  /** GOAWAY: the last stream the sender may act on. */
  readonly lastStreamId: number;
  /** WINDOW_UPDATE: the increment (0 is read as it is: what it means is the connection's to say). */
  readonly increment: number;
  /** PUSH_PROMISE: the stream promised. */
  readonly promisedStreamId: number;
  /** SETTINGS: how many entries it has. */
  readonly settingCount: number;
  /** SETTINGS: its entry at `index`. */
  setting(index: number): Setting;
  /**
   * What the frame carries, as a view of the bytes read (a new view on each call): DATA's data;
   * HEADERS', PUSH_PROMISE's and CONTINUATION's field block fragment; SETTINGS' entries; PING's
   * opaque data; GOAWAY's debug data; an unknown type's whole payload. Padding and the fields above
   * are not in it (empty for PRIORITY, RST_STREAM and WINDOW_UPDATE).
   */
  payload(): Buffer;
}

const EMPTY = Buffer.alloc(0);

class ReadFrame implements Frame {
  type = 0;
  flags = 0;
  streamId = 0;
  length = 0;
  // each type's fields (see Frame), by frame type: 0 or false but on a frame of their type (clearFields)
  padLength = 0;
  dependency = 0; exclusive = false; weight = 0;
  errorCode = 0; lastStreamId = 0;
  increment = 0;
  promisedStreamId = 0;
  settingCount = 0;
  /** The bytes read, and where in them the payload's content starts and ends. */
  bytes: Buffer = EMPTY;
  start = 0;
  end = 0;

  /** Each type's fields back to 0, before the next frame's are read. */
  clearFields(): void {
    this.padLength = 0;
    this.dependency = 0;
    this.exclusive = false;
    this.weight = 0;
    this.errorCode = 0;
    this.lastStreamId = 0;
    this.increment = 0;
    this.promisedStreamId = 0;
    this.settingCount = 0;
  }

  setting(index: number): Setting {
    if (!(index >= 0 && index < this.settingCount)) throw new RangeError(`setting ${index} of a SETTINGS frame of ${this.settingCount} entries`);
    const at = this.start + index * SETTING_SIZE;
    return { identifier: this.bytes.readUInt16BE(at), value: this.bytes.readUInt32BE(at + 2) };
  }

  payload(): Buffer {
    return this.bytes.subarray(this.start, this.end);
  }
}

export interface FrameReaderOptions {
  /**
   * What comes before the frames: a client's preface (the octets of `CLIENT_PREFACE`, then a
   * SETTINGS frame), what a server reads; a server's (a SETTINGS frame first), what a client reads;
   * or nothing. A wrong preface is a connection error PROTOCOL_ERROR (RFC 9113 section 3.4). @default "none"
   */
  readonly preface?: "client" | "server" | "none";
  /** The largest payload taken (the reading side's SETTINGS_MAX_FRAME_SIZE); a larger frame is a connection error FRAME_SIZE_ERROR. @default 16,384 */
  readonly maxFrameSize?: number;
}

const EXPECT = { MAGIC: 0, SETTINGS: 1, FRAMES: 2 } as const;

/**
 * Reads frames from the bytes of a connection as they arrive: `push` each chunk received, then
 * `read` until it answers undefined (the rest of a frame has not arrived). `read` throws
 * `Http2ConnectionError` at a frame that breaks a rule of RFC 9113 by itself; the reader is then
 * done with.
 */
export class FrameReader {
  readonly #frame = new ReadFrame();
  #input: Buffer = EMPTY;
  #at = 0;
  #expect: number;
  /** The stream of a header block whose END_HEADERS has not come (0: none): only its CONTINUATION may come next. */
  #headerBlockStream = 0;
  readonly #maxFrameSize: number;

  constructor(options: FrameReaderOptions = {}) {
    const preface = options.preface ?? "none";
    this.#expect = preface === "client" ? EXPECT.MAGIC : preface === "server" ? EXPECT.SETTINGS : EXPECT.FRAMES;
    this.#maxFrameSize = options.maxFrameSize ?? DEFAULT_MAX_FRAME_SIZE;
  }

  /** Adds bytes received (kept as a view; copied only with the rest of a frame not yet read). */
  push(chunk: Buffer): void {
    this.#input = this.#at === this.#input.length ? chunk : Buffer.concat([this.#input.subarray(this.#at), chunk]);
    this.#at = 0;
  }

  /** The next whole frame pushed, or undefined until more bytes are. */
  read(): Frame | undefined {
    if (this.#expect === EXPECT.MAGIC && !this.#readMagic()) return undefined;
    const input = this.#input;
    const at = this.#at;
    if (input.length - at < FRAME_HEADER_SIZE) return undefined;
    const length = (input[at]! << 16) | (input[at + 1]! << 8) | input[at + 2]!;
    const type = input[at + 3]!;
    if (length > this.#maxFrameSize) throw tooLarge(type, length, this.#maxFrameSize);
    const end = at + FRAME_HEADER_SIZE + length;
    if (input.length < end) return undefined;
    this.#at = end;
    const frame = this.#frame;
    frame.type = type;
    frame.flags = input[at + 4]!;
    frame.streamId = ((input[at + 5]! & 0x7f) << 24) | (input[at + 6]! << 16) | (input[at + 7]! << 8) | input[at + 8]!;
    frame.length = length;
    frame.bytes = input;
    frame.start = at + FRAME_HEADER_SIZE;
    frame.end = end;
    if (this.#expect === EXPECT.SETTINGS) this.#checkPrefaceSettings(frame);
    if (this.#headerBlockStream !== 0 || type === FRAME.CONTINUATION) this.#checkContinuation(frame);
    parseFields(frame);
    if (type === FRAME.HEADERS || type === FRAME.PUSH_PROMISE || type === FRAME.CONTINUATION) {
      this.#headerBlockStream = (frame.flags & FLAG.END_HEADERS) === 0 ? frame.streamId : 0;
    }
    return frame;
  }

  /** Whether the client's preface has been read (false: more bytes needed). */
  #readMagic(): boolean {
    const available = this.#input.length - this.#at;
    const compared = Math.min(available, CLIENT_PREFACE.length);
    if (this.#input.compare(CLIENT_PREFACE, 0, compared, this.#at, this.#at + compared) !== 0) {
      throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, "received a connection that does not start with HTTP/2's client preface (RFC 9113 section 3.4)");
    }
    if (available < CLIENT_PREFACE.length) return false;
    this.#at += CLIENT_PREFACE.length;
    this.#expect = EXPECT.SETTINGS;
    return true;
  }

  /** A preface's SETTINGS comes first (section 3.4). */
  #checkPrefaceSettings(frame: Frame): void {
    if (frame.type !== FRAME.SETTINGS || (frame.flags & FLAG.ACK) !== 0) {
      throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received ${describe(frame)} first: expected the preface's SETTINGS frame (RFC 9113 section 3.4)`);
    }
    this.#expect = EXPECT.FRAMES;
  }

  /** A header block's CONTINUATION frames come right after it, on its stream, and nowhere else (section 6.10). */
  #checkContinuation(frame: Frame): void {
    if (this.#headerBlockStream === 0) {
      throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received ${describe(frame)} outside a header block: expected it only after HEADERS or PUSH_PROMISE without END_HEADERS (RFC 9113 section 6.10)`);
    }
    if (frame.type !== FRAME.CONTINUATION || frame.streamId !== this.#headerBlockStream) {
      throw new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received ${describe(frame)} inside the header block of stream ${this.#headerBlockStream}: expected its CONTINUATION (RFC 9113 section 6.10)`);
    }
  }
}

/**
 * Checks a frame's stream and length for its type, and reads its fields (RFC 9113 section 6). The
 * messages of what it throws are made by the functions after it, so that this one, run for every
 * frame, stays short.
 */
function parseFields(frame: ReadFrame): void {
  frame.clearFields();
  switch (frame.type) {
    case FRAME.DATA:
      if (frame.streamId === 0) throw onStreamZero(frame, "6.1");
      if ((frame.flags & FLAG.PADDED) !== 0) unpad(frame, 0);
      return;
    case FRAME.HEADERS:
      if (frame.streamId === 0) throw onStreamZero(frame, "6.2");
      if ((frame.flags & FLAG.PRIORITY) !== 0) readPriority(frame, unpad(frame, PRIORITY_SIZE));
      else if ((frame.flags & FLAG.PADDED) !== 0) unpad(frame, 0);
      return;
    case FRAME.PRIORITY:
      if (frame.streamId === 0) throw onStreamZero(frame, "6.3");
      // RFC 9113 makes a PRIORITY frame of another length a stream error; its stream may be idle,
      // where RST_STREAM must not be sent (section 6.4), so a connection error, as Go's and nghttp2's
      if (frame.length !== PRIORITY_SIZE) throw wrongLength(frame, PRIORITY_SIZE, "6.3");
      readPriority(frame, frame.start);
      frame.start = frame.end;
      return;
    case FRAME.RST_STREAM:
      if (frame.streamId === 0) throw onStreamZero(frame, "6.4");
      if (frame.length !== WORD_SIZE) throw wrongLength(frame, WORD_SIZE, "6.4");
      frame.errorCode = frame.bytes.readUInt32BE(frame.start);
      frame.start = frame.end;
      return;
    case FRAME.SETTINGS:
      return parseSettings(frame);
    case FRAME.PUSH_PROMISE:
      if (frame.streamId === 0) throw onStreamZero(frame, "6.6");
      frame.promisedStreamId = frame.bytes.readUInt32BE(unpad(frame, WORD_SIZE)) & MAX_STREAM_ID;
      return;
    case FRAME.PING:
      if (frame.streamId !== 0) throw offStreamZero(frame, "6.7");
      if (frame.length !== PING_SIZE) throw wrongLength(frame, PING_SIZE, "6.7");
      return;
    case FRAME.GOAWAY:
      return parseGoAway(frame);
    case FRAME.WINDOW_UPDATE:
      if (frame.length !== WORD_SIZE) throw wrongLength(frame, WORD_SIZE, "6.9");
      frame.increment = frame.bytes.readUInt32BE(frame.start) & MAX_WINDOW;
      frame.start = frame.end;
      return;
    case FRAME.CONTINUATION:
      if (frame.streamId === 0) throw onStreamZero(frame, "6.10");
      return;
    default:
    // a type RFC 9113 does not define: read as it is, for the connection to ignore (section 4.1)
  }
}

function parseSettings(frame: ReadFrame): void {
  if (frame.streamId !== 0) throw offStreamZero(frame, "6.5");
  if ((frame.flags & FLAG.ACK) !== 0) {
    if (frame.length !== 0) throw new Http2ConnectionError(ERROR.FRAME_SIZE_ERROR, `received a SETTINGS frame with ACK of ${frame.length} octets: expected an empty one (RFC 9113 section 6.5)`);
    return;
  }
  if (frame.length % SETTING_SIZE !== 0) {
    throw new Http2ConnectionError(ERROR.FRAME_SIZE_ERROR, `received a SETTINGS frame of ${frame.length} octets: expected a multiple of ${SETTING_SIZE} (RFC 9113 section 6.5)`);
  }
  frame.settingCount = frame.length / SETTING_SIZE;
}

function parseGoAway(frame: ReadFrame): void {
  if (frame.streamId !== 0) throw offStreamZero(frame, "6.8");
  if (frame.length < GOAWAY_MIN_SIZE) {
    throw new Http2ConnectionError(ERROR.FRAME_SIZE_ERROR, `received a GOAWAY frame of ${frame.length} octets: expected at least ${GOAWAY_MIN_SIZE} (RFC 9113 section 6.8)`);
  }
  frame.lastStreamId = frame.bytes.readUInt32BE(frame.start) & MAX_STREAM_ID;
  frame.errorCode = frame.bytes.readUInt32BE(frame.start + WORD_SIZE);
  frame.start += GOAWAY_MIN_SIZE;
}

/**
 * Takes PADDED's Pad Length and padding, and `fields` octets of the type's fields after them, off
 * the frame's content (RFC 9113 sections 6.1, 6.2, 6.6); answers where those fields start. A frame
 * too short for its fields is a FRAME_SIZE_ERROR (section 4.2), padding longer than what is left a
 * PROTOCOL_ERROR, both connection errors (a HEADERS frame's would leave HPACK's state unknown).
 */
function unpad(frame: ReadFrame, fields: number): number {
  const padded = (frame.flags & FLAG.PADDED) !== 0;
  const before = (padded ? 1 : 0) + fields;
  if (frame.length < before) throw tooShort(frame, before, padded);
  const padLength = padded ? frame.bytes[frame.start]! : 0;
  if (padLength > frame.length - before) throw paddingTooLong(frame, padLength, frame.length - before);
  const fieldsAt = frame.start + (padded ? 1 : 0);
  frame.padLength = padLength;
  frame.start = fieldsAt + fields;
  frame.end -= padLength;
  return fieldsAt;
}

function readPriority(frame: ReadFrame, at: number): void {
  const word = frame.bytes.readUInt32BE(at);
  frame.dependency = word & MAX_STREAM_ID;
  frame.exclusive = word > MAX_STREAM_ID;
  frame.weight = frame.bytes[at + WORD_SIZE]! + 1;
}

function describe(frame: Frame): string {
  return `a ${frameTypeName(frame.type)} frame on stream ${frame.streamId}`;
}

function tooLarge(type: number, length: number, maxFrameSize: number): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.FRAME_SIZE_ERROR, `received a ${frameTypeName(type)} frame of ${length} octets: expected at most ${maxFrameSize} (SETTINGS_MAX_FRAME_SIZE)`);
}

function onStreamZero(frame: Frame, section: string): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received a ${frameTypeName(frame.type)} frame on stream 0: expected it on a stream (RFC 9113 section ${section})`);
}

function offStreamZero(frame: Frame, section: string): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received ${describe(frame)}: expected it on stream 0, the connection's (RFC 9113 section ${section})`);
}

function wrongLength(frame: Frame, expected: number, section: string): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.FRAME_SIZE_ERROR, `received a ${frameTypeName(frame.type)} frame of ${frame.length} octets: expected ${expected} (RFC 9113 section ${section})`);
}

function tooShort(frame: Frame, least: number, padded: boolean): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.FRAME_SIZE_ERROR, `received a ${frameTypeName(frame.type)} frame of ${frame.length} octets: expected at least ${least} for its ${padded ? "Pad Length and " : ""}fields (RFC 9113 section 4.2)`);
}

function paddingTooLong(frame: Frame, padLength: number, left: number): Http2ConnectionError {
  return new Http2ConnectionError(ERROR.PROTOCOL_ERROR, `received a ${frameTypeName(frame.type)} frame with ${padLength} octets of padding and ${left} after its fields: expected no more padding than that (RFC 9113 section 6.1)`);
}

/** What HEADERS writes beside its block: padding, a priority, and END_HEADERS unless CONTINUATION frames follow. */
export interface HeadersOptions {
  /** @default true */
  readonly endHeaders?: boolean;
  /** Octets of padding (0–255), with PADDED. @default none */
  readonly padLength?: number;
  /** With PRIORITY. @default none */
  readonly priority?: Priority;
}

/**
 * Writes frames: each call queues one, and `take` answers every frame queued since as one buffer,
 * their headers written there, so that one turn's frames go out in one write. Each type's writer
 * checks what RFC 9113 asks of the frame it writes and throws a RangeError at a caller's mistake;
 * `frame` writes any frame as it is given (what a test of a peer's checks sends).
 */
export class FrameWriter {
  /** Each queued frame's type, flags and stream: three numbers a frame. */
  readonly #headers: number[] = [];
  readonly #payloads: Array<Buffer | undefined> = [];
  #size = 0;
  /** The largest payload the peer takes (its SETTINGS_MAX_FRAME_SIZE): a longer DATA or field block is the caller's to split. */
  maxFrameSize = DEFAULT_MAX_FRAME_SIZE;

  /** @param onFirstQueued called when a frame is queued with none before it (to schedule the write). */
  constructor(private readonly onFirstQueued?: () => void) {}

  /** Octets queued, headers included. */
  get size(): number {
    return this.#size;
  }

  frame(type: number, flags: number, streamId: number, payload?: Buffer): void {
    const length = payload?.length ?? 0;
    if (length > MAX_FRAME_SIZE_LIMIT || !(streamId >= 0 && streamId <= MAX_STREAM_ID)) throw unwritable(type, streamId, length, MAX_FRAME_SIZE_LIMIT);
    this.#queue(type, flags, streamId, payload, length);
  }

  data(streamId: number, data: Buffer, endStream: boolean, padLength?: number): void {
    const flags = (endStream ? FLAG.END_STREAM : 0) | (padLength === undefined ? 0 : FLAG.PADDED);
    this.#onStream(FRAME.DATA, flags, streamId, padLength === undefined ? data : padded(data, padLength, undefined));
  }

  headers(streamId: number, block: Buffer, endStream: boolean, options?: HeadersOptions): void {
    let flags = (endStream ? FLAG.END_STREAM : 0) | (options?.endHeaders === false ? 0 : FLAG.END_HEADERS);
    if (options?.padLength === undefined && options?.priority === undefined) return this.#onStream(FRAME.HEADERS, flags, streamId, block);
    if (options.padLength !== undefined) flags |= FLAG.PADDED;
    if (options.priority !== undefined) flags |= FLAG.PRIORITY;
    this.#onStream(FRAME.HEADERS, flags, streamId, padded(block, options.padLength, options.priority));
  }

  continuation(streamId: number, fragment: Buffer, endHeaders: boolean): void {
    this.#onStream(FRAME.CONTINUATION, endHeaders ? FLAG.END_HEADERS : 0, streamId, fragment);
  }

  priority(streamId: number, priority: Priority): void {
    this.#onStream(FRAME.PRIORITY, 0, streamId, priorityFields(priority));
  }

  rstStream(streamId: number, errorCode: number): void {
    this.#onStream(FRAME.RST_STREAM, 0, streamId, word(errorCode));
  }

  settings(settings: ReadonlyArray<Setting>): void {
    const payload = Buffer.alloc(SETTING_SIZE * settings.length);
    settings.forEach(({ identifier, value }, index) => {
      payload.writeUInt16BE(identifier, index * SETTING_SIZE);
      payload.writeUInt32BE(value, index * SETTING_SIZE + 2);
    });
    this.frame(FRAME.SETTINGS, 0, 0, payload);
  }

  settingsAck(): void {
    this.frame(FRAME.SETTINGS, FLAG.ACK, 0, undefined);
  }

  ping(opaque: Buffer, ack: boolean): void {
    if (opaque.length !== PING_SIZE) throw new RangeError(`a PING of ${opaque.length} octets: PING carries ${PING_SIZE}`);
    this.frame(FRAME.PING, ack ? FLAG.ACK : 0, 0, opaque);
  }

  goAway(lastStreamId: number, errorCode: number, debugData: Buffer = EMPTY): void {
    const payload = Buffer.alloc(GOAWAY_MIN_SIZE + debugData.length);
    payload.writeUInt32BE(lastStreamId & MAX_STREAM_ID, 0);
    payload.writeUInt32BE(errorCode, WORD_SIZE);
    debugData.copy(payload, GOAWAY_MIN_SIZE);
    this.frame(FRAME.GOAWAY, 0, 0, payload);
  }

  windowUpdate(streamId: number, increment: number): void {
    if (!(increment >= 1 && increment <= MAX_WINDOW)) throw new RangeError(`a WINDOW_UPDATE of ${increment}: increments are 1 to ${MAX_WINDOW}`);
    this.frame(FRAME.WINDOW_UPDATE, 0, streamId, word(increment));
  }

  /** The frames queued since the last call, as one buffer (undefined when there are none), and the queue emptied. */
  take(): Buffer | undefined {
    if (this.#size === 0) return undefined;
    const bytes = Buffer.allocUnsafe(this.#size);
    let at = 0;
    for (let index = 0; index < this.#payloads.length; index++) {
      const payload = this.#payloads[index];
      const length = payload?.length ?? 0;
      const streamId = this.#headers[3 * index + 2]!;
      bytes[at] = length >>> 16;
      bytes[at + 1] = (length >>> 8) & 0xff;
      bytes[at + 2] = length & 0xff;
      bytes[at + 3] = this.#headers[3 * index]!;
      bytes[at + 4] = this.#headers[3 * index + 1]!;
      bytes[at + 5] = streamId >>> 24;
      bytes[at + 6] = (streamId >>> 16) & 0xff;
      bytes[at + 7] = (streamId >>> 8) & 0xff;
      bytes[at + 8] = streamId & 0xff;
      if (payload !== undefined) payload.copy(bytes, at + FRAME_HEADER_SIZE);
      at += FRAME_HEADER_SIZE + length;
    }
    this.#headers.length = 0;
    this.#payloads.length = 0;
    this.#size = 0;
    return bytes;
  }

  /** A frame that belongs on a stream, its payload within the peer's SETTINGS_MAX_FRAME_SIZE. */
  #onStream(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (!(streamId > 0 && streamId <= MAX_STREAM_ID) || payload.length > this.maxFrameSize) throw unwritable(type, streamId, payload.length, this.maxFrameSize);
    this.#queue(type, flags, streamId, payload, payload.length);
  }

  #queue(type: number, flags: number, streamId: number, payload: Buffer | undefined, length: number): void {
    if (this.#size === 0) this.onFirstQueued?.();
    this.#headers.push(type, flags, streamId);
    this.#payloads.push(payload);
    this.#size += FRAME_HEADER_SIZE + length;
  }
}

/** Why a frame cannot be written: its stream, or its length against `maxLength`. */
function unwritable(type: number, streamId: number, length: number, maxLength: number): RangeError {
  const name = frameTypeName(type);
  if (!(streamId >= 0 && streamId <= MAX_STREAM_ID)) return new RangeError(`a ${name} frame on stream ${streamId}: streams are 0 to ${MAX_STREAM_ID}`);
  if (streamId === 0) return new RangeError(`a ${name} frame on stream 0: it belongs on a stream`);
  return new RangeError(`a ${name} frame of ${length} octets: expected at most ${maxLength}`);
}

function word(value: number): Buffer {
  const payload = Buffer.alloc(WORD_SIZE);
  payload.writeUInt32BE(value, 0);
  return payload;
}

function priorityFields({ dependency, exclusive, weight }: Priority): Buffer {
  if (!(weight >= 1 && weight <= 256)) throw new RangeError(`a priority of weight ${weight}: weights are 1 to 256`);
  const fields = Buffer.alloc(PRIORITY_SIZE);
  fields.writeUInt32BE(((exclusive ? 0x80000000 : 0) + (dependency & MAX_STREAM_ID)) >>> 0, 0);
  fields[WORD_SIZE] = weight - 1;
  return fields;
}

/** A DATA or HEADERS payload with its Pad Length, priority and padding (zeros, RFC 9113 section 6.1). */
function padded(content: Buffer, padLength: number | undefined, priority: Priority | undefined): Buffer {
  if (padLength !== undefined && !(Number.isInteger(padLength) && padLength >= 0 && padLength <= MAX_PADDING)) {
    throw new RangeError(`padding of ${padLength} octets: the Pad Length field carries 0 to ${MAX_PADDING}`);
  }
  const prefix = padLength === undefined ? EMPTY : Buffer.from([padLength]);
  const fields = priority === undefined ? EMPTY : priorityFields(priority);
  return Buffer.concat([prefix, fields, content, Buffer.alloc(padLength ?? 0)]);
}
