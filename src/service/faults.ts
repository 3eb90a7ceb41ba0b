import type { CallSelector, FaultEffect, FaultRule as FaultRuleView, FaultRuleRequest, JournalFault } from "../contract/control.js";
import { ServiceError, accountDialect, accountErrors, gatewayErrors, type ErrorDialect } from "./service-error.js";

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

/** A request as fault rules see it, where it is dispatched: before its operation runs. */
export interface FaultTarget {
  readonly world: string;
  readonly operation: string;
  readonly write: boolean;
  /** The caller's identity and account, when its token names one. */
  readonly identity: string | undefined;
  readonly account: string | undefined;
}

/** What the rules decided for one request before its operation runs. */
export interface FaultDecision {
  /** How long to wait first. */
  readonly latencyMs: number;
  /** The error to answer instead of running the operation. */
  readonly error: FaultRule | undefined;
  /** Run the operation, then close the connection without an answer. */
  readonly dropAnswer: boolean;
  /** What the journal records. */
  readonly fault: JournalFault;
}

/** When a rule is asked: before the operation runs, or after a write succeeded (`afterWrite`). */
type Stage = "before" | "afterWrite";

/** One rule: what it matches, which of the matching calls it acts on, and what it does. */
export class FaultRule {
  readonly id: string;
  readonly source: "control" | "world";
  readonly request: FaultRuleRequest & { readonly calls: CallSelector };
  readonly stage: Stage;
  readonly #acts: (matched: number) => boolean;
  matched = 0;
  fired = 0;

  constructor(id: string, source: "control" | "world", request: FaultRuleRequest & { readonly calls: CallSelector }, random?: () => number) {
    this.id = id;
    this.source = source;
    this.request = request;
    this.stage = request.effect.afterWrite ? "afterWrite" : "before";
    this.#acts = selector(request.calls, random);
  }

  get effect(): FaultEffect {
    return this.request.effect;
  }

  matches(target: FaultTarget): boolean {
    const rule = this.request;
    return (rule.operation === undefined || rule.operation === target.operation)
      && (rule.world === undefined || rule.world === target.world)
      && (rule.account === undefined || rule.account === target.account)
      && (rule.identity === undefined || rule.identity === target.identity)
      && (!rule.writesOnly || target.write);
  }

  /** Counts a matching call; whether the rule acts on it. */
  take(): boolean {
    this.matched += 1;
    return this.#acts(this.matched);
  }

  /** The error this rule answers, in the service's own shape. */
  error(dialect: ErrorDialect, operation: string): ServiceError {
    const effect = this.effect;
    const status = effect.status!;
    const message = effect.message ?? `injected fault (rule ${this.id}): ${operation} answered ${status} as the rule asks`;
    const retryAfterMs = effect.retryAfterSeconds === undefined ? undefined : effect.retryAfterSeconds * 1000;
    const natural = naturalError(dialect, status, message, retryAfterMs ?? 1000);
    const errorType = effect.errorType ?? natural?.errorType;
    if (errorType === undefined) {
      return new ServiceError(status, `Http${status}Exception`, message, {}, retryHeaders(retryAfterMs));
    }
    const headers = effect.retryAfterSeconds !== undefined ? retryHeaders(retryAfterMs) : natural?.headers ?? {};
    return new ServiceError(status, errorType, message, natural?.errorType === errorType ? natural.fields : {}, headers);
  }

  view(): FaultRuleView {
    const { calls, effect, ...match } = this.request;
    return { id: this.id, source: this.source, ...match, calls: { ...calls }, effect: { ...effect }, matched: this.matched, fired: this.fired };
  }
}

/**
 * The rules of every world, evaluated where a request is dispatched (before its operation runs, or
 * for `afterWrite`, after its write succeeded), in order: the world file's rules of the request's
 * world first, then the rules added at run time. Every matching rule counts the call; the first rule
 * that acts with an error or a dropped answer decides the answer, and the delays of the others add up.
 */
export class FaultRules {
  readonly #worldRules = new Map<string, ReadonlyArray<FaultRule>>();
  #rules: FaultRule[] = [];
  #nextId = 1;

  /** Adds a rule; its ID is `f1`, `f2`, … in the order rules are added. */
  add(request: FaultRuleRequest & { readonly calls: CallSelector }): FaultRule {
    const rule = new FaultRule(`f${this.#nextId++}`, "control", request);
    this.#rules.push(rule);
    return rule;
  }

  /**
   * (Re)sets the rules of a world's `faults` (docs/manual/embedded-service.md): `errorRate` answers
   * that share of requests 500 before anything, `latencyMs` delays every request, and
   * `dropAfterWriteRate` answers that share of successful writes 500 after applying them. The three
   * share one seeded die, as before they were rules.
   */
  setWorldFile(world: string, config: FaultConfig): void {
    const random = mulberry32(config.seed ?? Math.floor(Math.random() * 2 ** 32));
    const probability = (rate: number): CallSelector => (config.seed === undefined ? { probability: rate } : { probability: rate, seed: config.seed });
    const rules: FaultRule[] = [];
    if (config.errorRate > 0) {
      rules.push(new FaultRule(`${world}-errorRate`, "world", {
        world, calls: probability(config.errorRate),
        effect: { status: 500, errorType: "InternalServerException", message: "injected fault: the service failed before handling the request; retry later" },
      }, random));
    }
    if (config.latencyMs > 0) {
      rules.push(new FaultRule(`${world}-latencyMs`, "world", { world, calls: { every: true }, effect: { latencyMs: config.latencyMs } }));
    }
    if (config.dropAfterWriteRate > 0) {
      rules.push(new FaultRule(`${world}-dropAfterWriteRate`, "world", {
        world, writesOnly: true, calls: probability(config.dropAfterWriteRate),
        effect: {
          status: 500, errorType: "InternalServerException", afterWrite: true,
          message: "injected fault: the service failed after applying the write; read before you retry a create",
        },
      }, random));
    }
    if (rules.length > 0) this.#worldRules.set(world, rules);
    else this.#worldRules.delete(world);
  }

  list(): FaultRule[] {
    return [...[...this.#worldRules.values()].flat(), ...this.#rules];
  }

  get(id: string): FaultRule | undefined {
    return this.list().find((rule) => rule.id === id);
  }

  /** Removes the rule; whether there was one. */
  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((rule) => rule.id !== id);
    if (this.#rules.length !== before) return true;
    for (const [world, rules] of this.#worldRules) {
      if (rules.some((rule) => rule.id === id)) {
        this.#worldRules.set(world, rules.filter((rule) => rule.id !== id));
        return true;
      }
    }
    return false;
  }

  /** Removes every rule added at run time (of one world when given) and, for that world, its world file's rules; answers how many. */
  clear(world?: string): number {
    const removed = this.list().filter((rule) => world === undefined || rule.request.world === world);
    this.#rules = this.#rules.filter((rule) => world !== undefined && rule.request.world !== world);
    if (world === undefined) this.#worldRules.clear();
    else this.#worldRules.delete(world);
    return removed.length;
  }

  /** Decides, before the operation runs, whether a rule delays the request, answers an error or drops the answer. */
  before(target: FaultTarget): FaultDecision | undefined {
    const worldRules = this.#worldRules.get(target.world);
    if (worldRules === undefined && this.#rules.length === 0) return undefined;
    let decisive: FaultRule | undefined;
    let firstDelay: FaultRule | undefined;
    let latencyMs = 0;
    for (const rules of [worldRules ?? [], this.#rules]) {
      for (const rule of rules) {
        if (rule.stage !== "before" || !rule.matches(target) || !rule.take()) continue;
        if (rule.effect.status !== undefined || rule.effect.dropAnswer) {
          if (decisive !== undefined) continue;
          decisive = rule;
        } else {
          firstDelay ??= rule;
          latencyMs += rule.effect.latencyMs ?? 0;
        }
        rule.fired += 1;
      }
    }
    if (decisive === undefined && firstDelay === undefined) return undefined;
    if (decisive?.effect.status !== undefined) {
      return { latencyMs: decisive.effect.latencyMs ?? 0, error: decisive, dropAnswer: false, fault: { rule: decisive.id, effect: "error" } };
    }
    if (decisive !== undefined) return { latencyMs, error: undefined, dropAnswer: true, fault: { rule: decisive.id, effect: "dropAnswer" } };
    return { latencyMs, error: undefined, dropAnswer: false, fault: { rule: firstDelay!.id, effect: "latency" } };
  }

  /** After a write succeeded: the first `afterWrite` rule that acts on it, whose error is answered though the write was applied. */
  afterWrite(target: FaultTarget): FaultRule | undefined {
    const worldRules = this.#worldRules.get(target.world);
    if (worldRules === undefined && this.#rules.length === 0) return undefined;
    for (const rules of [worldRules ?? [], this.#rules]) {
      for (const rule of rules) {
        if (rule.stage === "afterWrite" && rule.matches(target) && rule.take()) {
          rule.fired += 1;
          return rule;
        }
      }
    }
    return undefined;
  }
}

/** Which of the matching calls (1, 2, …) a rule acts on. */
function selector(calls: CallSelector, random?: () => number): (matched: number) => boolean {
  if (calls.nth !== undefined) return (matched) => matched === calls.nth;
  if (calls.next !== undefined) return (matched) => matched <= calls.next!;
  if (calls.probability !== undefined) {
    const p = calls.probability;
    const dice = random ?? mulberry32(calls.seed ?? 0);
    return () => dice() < p;
  }
  return () => true;
}

/** The error a status means in the service's own dialect, when it has one: its name, fields and headers. */
function naturalError(dialect: ErrorDialect, status: number, message: string, retryAfterMs: number): ServiceError | undefined {
  switch (status) {
    case 400: return dialect.invalid(message, []);
    case 403: return dialect.accessDenied(message);
    case 404: return dialect === accountDialect ? accountErrors.notFound(message) : new ServiceError(404, "NotFoundException", message);
    case 409: return dialect === accountDialect ? accountErrors.conflict(message) : gatewayErrors.conflict(message);
    case 429: return dialect.throttled(message, retryAfterMs);
    case 500: return dialect.internal(message);
    case 503: return new ServiceError(503, "ServiceUnavailableException", message);
    default: return undefined;
  }
}

/** `Retry-After` in whole seconds (0 allowed: retry at once) and the precise wait in `x-svc-retry-after-ms`. */
function retryHeaders(retryAfterMs: number | undefined): Record<string, string> {
  if (retryAfterMs === undefined) return {};
  return { "retry-after": String(Math.ceil(retryAfterMs / 1000)), "x-svc-retry-after-ms": String(Math.ceil(retryAfterMs)) };
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
