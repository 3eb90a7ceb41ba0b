import { describe, expect, it } from "vitest";
import { CLOSED, ClosedStreams } from "../../../src/provider/runtime/closed-streams.js";

describe("closed streams", () => {
  it("tells how each of the last streams closed, UNKNOWN for one never added", () => {
    const closed = new ClosedStreams(4);
    closed.add(1, CLOSED.BOTH_ENDED);
    closed.add(3, CLOSED.SERVER_RESET);
    closed.add(5, CLOSED.CLIENT_RESET);
    expect([1, 3, 5, 7].map((streamId) => closed.howClosed(streamId))).toEqual([CLOSED.BOTH_ENDED, CLOSED.SERVER_RESET, CLOSED.CLIENT_RESET, CLOSED.UNKNOWN]);
  });

  it("forgets the oldest once full, and answers a stream's newest record", () => {
    const closed = new ClosedStreams(3);
    for (const streamId of [1, 3, 5, 7]) closed.add(streamId, CLOSED.BOTH_ENDED);
    closed.add(7, CLOSED.SERVER_RESET);
    expect([1, 3, 5, 7].map((streamId) => closed.howClosed(streamId))).toEqual([CLOSED.UNKNOWN, CLOSED.UNKNOWN, CLOSED.BOTH_ENDED, CLOSED.SERVER_RESET]);
  });

  it("answers UNKNOWN for stream 0 before any stream closed (its empty slots hold 0)", () => {
    expect(new ClosedStreams(2).howClosed(0)).toBe(CLOSED.UNKNOWN);
  });
});
