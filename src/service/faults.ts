/** Fault injection of the world file: errors before anything happens, latency, and writes whose answer is lost. */
export interface FaultConfig {
  /** Share of requests answered 500 before doing anything. */
  readonly errorRate: number;
  /** Delay added to every request, in milliseconds. */
  readonly latencyMs: number;
  /** Share of successful writes answered 500 after the write was applied. */
  readonly dropAfterWriteRate: number;
  /** Seed of the fault dice, for repeatable chaos runs. */
  readonly seed?: number | undefined;
}

/** Seeded dice for the faults; a fresh seed per service unless the world fixes one. */
export class FaultInjector {
  readonly config: FaultConfig;
  readonly #random: () => number;

  constructor(config: FaultConfig) {
    this.config = config;
    this.#random = mulberry32(config.seed ?? Math.floor(Math.random() * 2 ** 32));
  }

  get active(): boolean {
    return this.config.errorRate > 0 || this.config.latencyMs > 0 || this.config.dropAfterWriteRate > 0;
  }

  failBeforeRequest(): boolean {
    return this.config.errorRate > 0 && this.#random() < this.config.errorRate;
  }

  dropAfterWrite(): boolean {
    return this.config.dropAfterWriteRate > 0 && this.#random() < this.config.dropAfterWriteRate;
  }
}

/** A small, fast, seedable PRNG (public domain, Tommy Ettinger). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
