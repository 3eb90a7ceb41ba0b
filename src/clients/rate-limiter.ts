import { sleep, type Layer } from "./wire.js";

export interface RateLimit {
  readonly ratePerSecond: number;
  readonly burst: number;
}

export interface RateLimiterOptions {
  /** Limit of every operation without its own entry. @default unlimited until the service throttles */
  readonly default?: RateLimit | undefined;
  /** Limits of single operations, by operation name (e.g. "GetRoute"). */
  readonly perOperation?: Readonly<Record<string, RateLimit>>;
  /** The rate never drops below this after throttling. @default 1 */
  readonly minRatePerSecond?: number;
}

interface Bucket {
  /** Current allowed rate; Infinity while nothing limits this operation. */
  rate: number;
  /** Configured ceiling the rate recovers to. */
  readonly ceiling: number;
  burst: number;
  tokens: number;
  updatedAt: number;
  pausedUntil: number;
  lastDecreaseAt: number;
  windowStart: number;
  windowCount: number;
  observedRate: number;
}

const DECREASE_COOLDOWN_MS = 250;
const INCREASE_PER_SUCCESS = 0.01;

/**
 * A token bucket per operation that adapts: a 429 halves the operation's rate (or, while unlimited,
 * sets it to half the rate just observed) and pauses it for the Retry-After; each success raises
 * the rate a little, back up to its configured ceiling. Callers queue by reserving tokens, so waits
 * are fair and bursts never exceed the bucket.
 */
export class AdaptiveRateLimiter {
  readonly #options: RateLimiterOptions;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  constructor(options: RateLimiterOptions = {}, now: () => number = () => performance.now()) {
    this.#options = options;
    this.#now = now;
  }

  /** Waits until the operation may send one request. */
  async acquire(operation: string, signal?: AbortSignal): Promise<void> {
    const wait = this.reserve(operation);
    if (wait > 0) await sleep(wait, signal);
  }

  /**
   * Takes one token now and says how many milliseconds the caller must wait before sending (0: at
   * once). Synchronous, so that the common case costs no promise.
   */
  reserve(operation: string): number {
    const bucket = this.#bucket(operation);
    const now = this.#now();
    this.#observe(bucket, now);
    if (bucket.rate === Infinity) return bucket.pausedUntil > now ? bucket.pausedUntil - now : 0;
    bucket.tokens = Math.min(bucket.burst, bucket.tokens + ((now - bucket.updatedAt) * bucket.rate) / 1000);
    bucket.updatedAt = now;
    bucket.tokens -= 1;
    return Math.max(bucket.pausedUntil - now, bucket.tokens < 0 ? (-bucket.tokens * 1000) / bucket.rate : 0);
  }

  /** The service answered 429: slow this operation down and pause it for `retryAfterMs`. */
  onThrottled(operation: string, retryAfterMs: number | undefined): void {
    const bucket = this.#bucket(operation);
    const now = this.#now();
    if (retryAfterMs !== undefined) bucket.pausedUntil = Math.max(bucket.pausedUntil, now + retryAfterMs);
    if (now - bucket.lastDecreaseAt < DECREASE_COOLDOWN_MS) return;
    bucket.lastDecreaseAt = now;
    const floor = this.#options.minRatePerSecond ?? 1;
    const base = bucket.rate === Infinity ? Math.max(this.#sendRate(bucket, now), floor * 2) : bucket.rate;
    bucket.rate = Math.max(floor, base / 2);
    bucket.burst = Math.max(1, Math.min(bucket.burst, bucket.rate / 4));
    bucket.tokens = Math.min(bucket.tokens, 0);
    bucket.updatedAt = now;
  }

  onSuccess(operation: string): void {
    const bucket = this.#buckets.get(operation);
    if (!bucket || bucket.rate === Infinity || bucket.rate >= bucket.ceiling) return;
    bucket.rate = Math.min(bucket.ceiling, bucket.rate * (1 + INCREASE_PER_SUCCESS));
  }

  /** The current rate of an operation (Infinity when unlimited). */
  rateOf(operation: string): number {
    return this.#buckets.get(operation)?.rate ?? this.#limitOf(operation)?.ratePerSecond ?? Infinity;
  }

  #limitOf(operation: string): RateLimit | undefined {
    return this.#options.perOperation?.[operation] ?? this.#options.default;
  }

  #bucket(operation: string): Bucket {
    let bucket = this.#buckets.get(operation);
    if (!bucket) {
      const limit = this.#limitOf(operation);
      const now = this.#now();
      bucket = {
        rate: limit?.ratePerSecond ?? Infinity,
        ceiling: limit?.ratePerSecond ?? Infinity,
        burst: limit?.burst ?? 1,
        tokens: limit?.burst ?? 1,
        updatedAt: now,
        pausedUntil: 0,
        lastDecreaseAt: -Infinity,
        windowStart: now,
        windowCount: 0,
        observedRate: 0,
      };
      this.#buckets.set(operation, bucket);
    }
    return bucket;
  }

  /**
   * The send rate just observed: the last full one-second window, or the current window when it is
   * faster. The current window counts as at least a second long, so that a throttle hit in the very
   * first second starts from what was really sent (not from zero, which would collapse to the floor).
   */
  #sendRate(bucket: Bucket, now: number): number {
    const current = (bucket.windowCount * 1000) / Math.max(1000, now - bucket.windowStart);
    return Math.max(bucket.observedRate, current);
  }

  /** Tracks the send rate over one-second windows, the starting point when throttled while unlimited. */
  #observe(bucket: Bucket, now: number): void {
    bucket.windowCount += 1;
    const elapsed = now - bucket.windowStart;
    if (elapsed >= 1000) {
      bucket.observedRate = (bucket.windowCount * 1000) / elapsed;
      bucket.windowStart = now;
      bucket.windowCount = 0;
    }
  }
}

/** The layer that takes a token before each attempt and feeds 429s and successes back. */
export function rateLimitLayer(limiter: AdaptiveRateLimiter): Layer {
  return (next) => (request) => {
    const wait = limiter.reserve(request.operation);
    const answered = wait > 0 ? sleep(wait, request.signal).then(() => next(request)) : next(request);
    return answered.then((response) => {
      if (response.status === 429) limiter.onThrottled(request.operation, response.retryAfterMs);
      else if (response.status < 500) limiter.onSuccess(request.operation);
      return response;
    });
  };
}
