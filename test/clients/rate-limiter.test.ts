import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { AdaptiveRateLimiter, rateLimitLayer, type RateLimiterOptions } from "../../src/clients/rate-limiter.js";
import type { WireRequest, WireResponse } from "../../src/clients/wire.js";

/** The limiter's injected clock and the timers its waits use advance together. */
let now = 0;
const clock = () => now;

async function advance(ms: number): Promise<void> {
  now += ms;
  await vi.advanceTimersByTimeAsync(ms);
}

/** Whether a promise has settled yet (read after letting timers and microtasks run). */
function track(pending: Promise<unknown>) {
  const state: { done: boolean; error: unknown } = { done: false, error: undefined };
  pending.then(() => (state.done = true), (error: unknown) => (state.error = error));
  return state;
}

function limiter(options: RateLimiterOptions = {}) {
  return new AdaptiveRateLimiter(options, clock);
}

/** Acquires `count` times for `operation`, `spacingMs` apart, each without waiting. */
async function sendAtPace(subject: AdaptiveRateLimiter, operation: string, count: number, spacingMs: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const acquired = track(subject.acquire(operation));
    await advance(0);
    expect(acquired.done).toBe(true);
    if (spacingMs > 0) await advance(spacingMs);
  }
}

beforeEach(() => {
  now = 1_000;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("AdaptiveRateLimiter", () => {
  test("an operation without a limit never waits, and its rate is Infinity", async () => {
    const subject = limiter();
    await sendAtPace(subject, "GetRoute", 1000, 0);
    expect(subject.rateOf("GetRoute")).toBe(Infinity);
  });

  test.each([
    { ratePerSecond: 10, burst: 3, expectedWaits: [0, 0, 0, 100, 200, 300] },
    { ratePerSecond: 4, burst: 1, expectedWaits: [0, 250, 500, 750] },
    { ratePerSecond: 50, burst: 5, expectedWaits: [0, 0, 0, 0, 0, 20, 40] },
  ])("a limit of $ratePerSecond/s with burst $burst lets the burst through, then queues callers fairly", async ({ ratePerSecond, burst, expectedWaits }) => {
    const subject = limiter({ default: { ratePerSecond, burst } });
    const started = now;
    const admittedAfter: number[] = expectedWaits.map(() => -1);
    expectedWaits.forEach((_, index) => void subject.acquire("GetRoute").then(() => (admittedAfter[index] = now - started)));
    await advance(0);
    for (let elapsed = 1; elapsed <= Math.max(...expectedWaits); elapsed += 1) await advance(1);
    expect(admittedAfter).toEqual(expectedWaits);
    expect(subject.rateOf("GetRoute")).toBe(ratePerSecond);
  });

  test("per-operation limits are independent of each other and of the default", async () => {
    const subject = limiter({ default: { ratePerSecond: 1000, burst: 100 }, perOperation: { CreateRoute: { ratePerSecond: 1, burst: 1 } } });
    await sendAtPace(subject, "CreateRoute", 1, 0);
    const second = track(subject.acquire("CreateRoute"));
    await sendAtPace(subject, "GetRoute", 50, 0);
    await advance(999);
    expect(second.done).toBe(false);
    await advance(1);
    expect(second.done).toBe(true);
    expect({ create: subject.rateOf("CreateRoute"), read: subject.rateOf("GetRoute"), other: subject.rateOf("ListRegions") }).toEqual({ create: 1, read: 1000, other: 1000 });
  });

  test("a 429 halves the rate, at most once per 250 ms, never below the floor", async () => {
    const subject = limiter({ default: { ratePerSecond: 16, burst: 4 }, minRatePerSecond: 1.5 });
    await sendAtPace(subject, "GetRoute", 1, 0);
    const rates: number[] = [];
    subject.onThrottled("GetRoute", undefined);
    rates.push(subject.rateOf("GetRoute"));
    subject.onThrottled("GetRoute", undefined);
    rates.push(subject.rateOf("GetRoute"));
    for (let step = 0; step < 4; step += 1) {
      await advance(250);
      subject.onThrottled("GetRoute", undefined);
      rates.push(subject.rateOf("GetRoute"));
    }
    expect(rates).toEqual([8, 8, 4, 2, 1.5, 1.5]);
  });

  test("a 429 pauses the operation for its Retry-After, longer than its pace would", async () => {
    const subject = limiter({ default: { ratePerSecond: 100, burst: 10 } });
    await sendAtPace(subject, "GetRoute", 1, 0);
    subject.onThrottled("GetRoute", 300);
    const next = track(subject.acquire("GetRoute"));
    const unaffected = track(subject.acquire("ListRegions"));
    await advance(299);
    expect({ next: next.done, unaffected: unaffected.done }).toEqual({ next: false, unaffected: true });
    await advance(1);
    expect(next.done).toBe(true);
  });

  test("throttled while unlimited in its first second, the rate starts from half of what was sent (not from the floor)", async () => {
    const subject = limiter();
    // 40 requests within 200 ms, then the service pushes back
    await sendAtPace(subject, "GetRoute", 40, 5);
    subject.onThrottled("GetRoute", 50);
    expect(subject.rateOf("GetRoute")).toBe(20);
  });

  test("throttled while unlimited after full windows, the rate starts from half the rate observed", async () => {
    const subject = limiter();
    // 100 requests a second for 2.5 s
    await sendAtPace(subject, "GetRoute", 250, 10);
    subject.onThrottled("GetRoute", undefined);
    expect(subject.rateOf("GetRoute")).toBeCloseTo(50, 0);
  });

  test("successes raise the rate by 1% each, back up to the configured ceiling and no further", async () => {
    const subject = limiter({ default: { ratePerSecond: 10, burst: 1 } });
    await sendAtPace(subject, "GetRoute", 1, 0);
    subject.onThrottled("GetRoute", undefined);
    expect(subject.rateOf("GetRoute")).toBe(5);
    for (let index = 0; index < 10; index += 1) subject.onSuccess("GetRoute");
    expect(subject.rateOf("GetRoute")).toBeCloseTo(5 * 1.01 ** 10, 10);
    for (let index = 0; index < 200; index += 1) subject.onSuccess("GetRoute");
    expect(subject.rateOf("GetRoute")).toBe(10);
  });

  test("rejects a waiting acquire when its signal aborts", async () => {
    const subject = limiter({ default: { ratePerSecond: 1, burst: 1 } });
    await sendAtPace(subject, "GetRoute", 1, 0);
    const controller = new AbortController();
    const waiting = track(subject.acquire("GetRoute", controller.signal));
    await advance(100);
    controller.abort(new Error("stop waiting"));
    await advance(0);
    expect(waiting.done).toBe(false);
    expect((waiting.error as Error).message).toBe("stop waiting");
  });
});

describe("rateLimitLayer", () => {
  const request: WireRequest = { service: "apigateway", operation: "GetRoute", method: "GET", path: "/v2/apis/a/routes/r", headers: {}, idempotent: true };
  const response = (status: number, retryAfterMs?: number): WireResponse => ({ status, text: "", errorType: undefined, requestId: undefined, retryAfterMs });

  test.each([
    { status: 200, retryAfterMs: undefined, rate: 10 * 1.01, pausedFor: 0 },
    { status: 404, retryAfterMs: undefined, rate: 10 * 1.01, pausedFor: 0 },
    { status: 500, retryAfterMs: undefined, rate: 10, pausedFor: 0 },
    { status: 429, retryAfterMs: 400, rate: 10 / 2, pausedFor: 400 },
  ])("feeds a $status answer back to the limiter (rate $rate, paused $pausedFor ms)", async ({ status, retryAfterMs, rate, pausedFor }) => {
    const subject = limiter({ default: { ratePerSecond: 20, burst: 100 } });
    // bring the rate below its ceiling first so that a success can raise it
    await sendAtPace(subject, "GetRoute", 1, 0);
    subject.onThrottled("GetRoute", undefined);
    await advance(250);
    const send = rateLimitLayer(subject)(async () => response(status, retryAfterMs));
    const answer = await send(request);
    expect(answer.status).toBe(status);
    expect(subject.rateOf("GetRoute")).toBeCloseTo(rate, 10);

    const next = track(subject.acquire("GetRoute"));
    await advance(0);
    if (pausedFor > 0) {
      await advance(pausedFor - 1);
      expect(next.done).toBe(false);
      await advance(1);
    }
    expect(next.done).toBe(true);
  });
});
