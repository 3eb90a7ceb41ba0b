import { connect as connectTcp, type Socket } from "node:net";
import { CLIENT_PREFACE, FRAME, FrameReader, FrameWriter, MAX_FRAME_SIZE_LIMIT, type Frame, type Setting } from "../../../src/provider/runtime/http2-framer.js";
import type { GrpcServer } from "../../../src/provider/runtime/grpc-server.js";

/** A frame the client received, kept (the reader's own frame is valid until its next read). */
export interface ReceivedFrame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly errorCode: number;
  readonly lastStreamId: number;
  readonly increment: number;
  readonly settings: ReadonlyArray<Setting>;
  readonly payload: Buffer;
}

export interface RawClientOptions {
  /** Send the client's preface (its octets, then a SETTINGS frame with `settings`). @default true */
  readonly preface?: boolean;
  readonly settings?: ReadonlyArray<Setting>;
}

/**
 * An HTTP/2 client of bare frames over TCP, written and read with the runtime's framer: what it
 * sends and when, to the octet, and every frame the server sends, in order. It reads the server's
 * frames with the framer's checks (the server's preface first), so a server that broke a rule would
 * fail the test that reads it.
 */
export class RawClient {
  readonly frames: ReceivedFrame[] = [];
  /** Resolved when the server ends the connection. */
  readonly ended: Promise<void>;
  readonly #reader = new FrameReader({ preface: "server", maxFrameSize: MAX_FRAME_SIZE_LIMIT });
  readonly #writer = new FrameWriter();
  readonly #taken = new Set<ReceivedFrame>();
  #waiting: Array<() => void> = [];

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.#reader.push(chunk);
      for (let frame = this.#reader.read(); frame !== undefined; frame = this.#reader.read()) this.frames.push(kept(frame));
      this.#wake();
    });
    this.ended = new Promise((resolve) => socket.once("end", resolve));
    socket.once("close", () => this.#wake());
  }

  static async connect(target: GrpcServer, options: RawClientOptions = {}): Promise<RawClient> {
    const address = target.address;
    if (address.network !== "tcp") throw new Error("expected a TCP address");
    const socket = connectTcp(address.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const client = new RawClient(socket);
    if (options.preface ?? true) {
      socket.write(CLIENT_PREFACE);
      client.send((writer) => writer.settings(options.settings ?? []));
    }
    return client;
  }

  /** Sends in one write the frames `write` queues on the client's framer. */
  send(write: (writer: FrameWriter) => void): void {
    write(this.#writer);
    const bytes = this.#writer.take();
    if (bytes !== undefined) this.socket.write(bytes);
  }

  /** Sends octets as they are. */
  sendBytes(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** The first frame received (now or later) that `matches` and no earlier call took. */
  async frame(matches: (frame: ReceivedFrame) => boolean): Promise<ReceivedFrame> {
    for (;;) {
      const found = this.frames.find((frame) => !this.#taken.has(frame) && matches(frame));
      if (found !== undefined) {
        this.#taken.add(found);
        return found;
      }
      if (this.socket.destroyed) throw new Error(`the connection closed before the frame expected; received ${this.frames.map(({ type }) => type).join(", ")}`);
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  goAway(): Promise<ReceivedFrame> {
    return this.frame((frame) => frame.type === FRAME.GOAWAY);
  }

  /** The server's answer to a PING sent now: every frame it sent before that answer has arrived by then. */
  async roundTrip(): Promise<void> {
    const opaque = Buffer.from(String(Math.random()).slice(2, 10).padEnd(8, "0"));
    this.send((writer) => writer.ping(opaque, false));
    await this.frame((frame) => frame.type === FRAME.PING && frame.payload.equals(opaque));
  }

  close(): void {
    this.socket.destroy();
  }

  #wake(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }
}

function kept(frame: Frame): ReceivedFrame {
  return {
    type: frame.type,
    flags: frame.flags,
    streamId: frame.streamId,
    errorCode: frame.errorCode,
    lastStreamId: frame.lastStreamId,
    increment: frame.increment,
    settings: Array.from({ length: frame.settingCount }, (_, index) => frame.setting(index)),
    payload: Buffer.from(frame.payload()),
  };
}
