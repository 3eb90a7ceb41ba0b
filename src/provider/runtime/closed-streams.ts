/**
 * How a stream was closed, which decides what RFC 9113 section 5.1 makes of a frame arriving on it
 * after: once the server sent RST_STREAM, anything the client had already sent (ignored); once both
 * sides sent END_STREAM, only WINDOW_UPDATE, RST_STREAM and PRIORITY (anything else is a connection
 * error STREAM_CLOSED); once the client sent RST_STREAM, only PRIORITY (anything else is a stream
 * error STREAM_CLOSED). UNKNOWN: closed longer ago than remembered, or never opened (an identifier
 * the client skipped, section 5.1.1).
 */
export const CLOSED = { UNKNOWN: 0, SERVER_RESET: 1, BOTH_ENDED: 2, CLIENT_RESET: 3 } as const;
export type HowClosed = (typeof CLOSED)[keyof typeof CLOSED];

/**
 * The last `capacity` streams closed and how, in a ring of two typed arrays: nothing allocated per
 * stream, and a look-up (newest first) only for a frame on a stream that is no longer open.
 */
export class ClosedStreams {
  readonly #ids: Int32Array;
  readonly #how: Uint8Array;
  #next = 0;

  constructor(capacity: number) {
    this.#ids = new Int32Array(capacity);
    this.#how = new Uint8Array(capacity);
  }

  add(streamId: number, how: HowClosed): void {
    this.#ids[this.#next] = streamId;
    this.#how[this.#next] = how;
    this.#next = this.#next + 1 === this.#ids.length ? 0 : this.#next + 1;
  }

  /** How `streamId` was closed last, UNKNOWN when it is not among the streams remembered. */
  howClosed(streamId: number): HowClosed {
    const capacity = this.#ids.length;
    for (let step = 1; step <= capacity; step++) {
      const index = (this.#next - step + capacity) % capacity;
      if (this.#ids[index] === streamId && this.#how[index] !== CLOSED.UNKNOWN) return this.#how[index] as HowClosed;
    }
    return CLOSED.UNKNOWN;
  }
}
