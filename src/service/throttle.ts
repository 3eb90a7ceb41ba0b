/** Token-bucket limits per identity and operation. */
export interface ThrottleConfig {
  readonly ratePerSecond: number;
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Decides whether a call may proceed now; when not, how long until it could. */
export class Throttle {
  readonly #config: ThrottleConfig | undefined;
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  constructor(config: ThrottleConfig | undefined, now: () => number = () => performance.now()) {
    this.#config = config;
    this.#now = now;
  }

  /** Takes one token; returns 0 when allowed, else the milliseconds until a token is available. */
  take(identityKey: string, operation: string): number {
    const config = this.#config;
    if (!config) return 0;
    const key = `${identityKey}\u0000${operation}`;
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { tokens: config.burst, updatedAt: now };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(config.burst, bucket.tokens + ((now - bucket.updatedAt) * config.ratePerSecond) / 1000);
    bucket.updatedAt = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return ((1 - bucket.tokens) * 1000) / config.ratePerSecond;
  }
}
