import { describe, expect, it } from "vitest";
import { firstWait, nextWait } from "../../src/reconciler/schedule.js";

const OPTIONS = { intervalMs: 60_000, jitter: 0.1, retryMs: 5000 };
const ok = { failed: false, throttled: false, retryAfterMs: 0 };
const failed = { failed: true, throttled: false, retryAfterMs: 0 };

describe("when the next cycle starts", () => {
  it.each([
    ["the interval after a cycle that did not fail (random 0.5: no jitter)", ok, 0, 0.5, 60_000, 0],
    ["the interval less 10 % at the low end of the jitter", ok, 0, 0, 54_000, 0],
    ["the interval plus 10 % at the high end of the jitter", ok, 0, 1, 66_000, 0],
    ["half the first retry at least after a first failure", failed, 0, 0, 2500, 1],
    ["the first retry at most after a first failure", failed, 0, 1, 5000, 1],
    ["twice as long after a second failure", failed, 1, 1, 10_000, 2],
    ["four times as long after a third", failed, 2, 1, 20_000, 3],
    ["never longer than the interval, however many failures", failed, 40, 1, 60_000, 41],
    ["the interval again once a cycle succeeds, forgetting the failures before", ok, 7, 0.5, 60_000, 0],
    ["at least the interval when the endpoint throttled, never sooner", { failed: true, throttled: true, retryAfterMs: 0 }, 0, 0.5, 60_000, 1],
    ["what the endpoint asked when that is longer than the interval", { failed: false, throttled: true, retryAfterMs: 90_000 }, 3, 0.5, 90_000, 0],
  ])("waits %s", (_name, timing, failuresBefore, random, waitMs, failures) => {
    expect(nextWait(timing, failuresBefore, OPTIONS, () => random)).toEqual({ waitMs, failures });
  });

  it("spreads the first cycle over [0, interval × jitter], and starts at once without jitter", () => {
    expect(firstWait(OPTIONS, () => 0)).toBe(0);
    expect(firstWait(OPTIONS, () => 0.999)).toBe(5994);
    expect(firstWait({ intervalMs: 60_000, jitter: 0 }, () => 0.7)).toBe(0);
  });
});
