import { describe, expect, it } from "vitest";
import type { CallSelector, FaultEffect } from "../../src/contract/control.js";
import { FaultRules, mulberry32, type FaultTarget } from "../../src/service/faults.js";
import { DIALECTS } from "../../src/service/service-error.js";

/**
 * The fault-rule engine where requests are dispatched (src/service/faults.ts): which calls each
 * selector acts on, how rules combine, the world file's faults as rules, and the errors they answer.
 */

const CREATE_ROUTE: FaultTarget = { world: "default", operation: "CreateRoute", write: true, identity: "identities[0]", account: "111111111111" };
const GET_ROUTE: FaultTarget = { ...CREATE_ROUTE, operation: "GetRoute", write: false };
const THROTTLED: FaultEffect = { status: 429, errorType: "TooManyRequestsException", retryAfterSeconds: 1 };

/** Which of `calls` calls of CreateRoute (1-based) a rule with `selector` acted on. */
function actedOn(selector: CallSelector, calls: number): number[] {
  const rules = new FaultRules();
  rules.add({ operation: "CreateRoute", calls: selector, effect: THROTTLED });
  const acted: number[] = [];
  for (let call = 1; call <= calls; call += 1) if (rules.before(CREATE_ROUTE)?.error) acted.push(call);
  return acted;
}

describe("call selectors", () => {
  it.each<[string, CallSelector, number[]]>([
    ["nth: 2 acts on the second matching call only", { nth: 2 }, [2]],
    ["next: 3 acts on the next three matching calls", { next: 3 }, [1, 2, 3]],
    ["every: true acts on every matching call", { every: true }, [1, 2, 3, 4, 5, 6, 7, 8]],
  ])("%s", (_label, selector, expected) => {
    expect(actedOn(selector, 8)).toEqual(expected);
  });

  it("probability with a seed acts on the same calls in every run, and about as often as asked", () => {
    const first = actedOn({ probability: 0.3, seed: 42 }, 1000);
    expect(actedOn({ probability: 0.3, seed: 42 }, 1000)).toEqual(first);
    expect(first.length).toBeGreaterThan(240);
    expect(first.length).toBeLessThan(360);
    expect(actedOn({ probability: 0.3, seed: 43 }, 1000)).not.toEqual(first);
    // without a seed, seed 0: still the same in every run
    expect(actedOn({ probability: 0.5 }, 50)).toEqual(actedOn({ probability: 0.5, seed: 0 }, 50));
  });

  it("counts only the calls a rule matches: another operation, world, account or identity does not count", () => {
    const rules = new FaultRules();
    const rule = rules.add({ operation: "CreateRoute", world: "default", account: "111111111111", identity: "identities[0]", calls: { nth: 2 }, effect: THROTTLED });
    expect(rules.before(GET_ROUTE)).toBeUndefined();
    expect(rules.before({ ...CREATE_ROUTE, world: "w-1" })).toBeUndefined();
    expect(rules.before({ ...CREATE_ROUTE, account: "222222222222" })).toBeUndefined();
    expect(rules.before({ ...CREATE_ROUTE, identity: "identities[1]" })).toBeUndefined();
    expect(rules.before({ ...CREATE_ROUTE, identity: undefined, account: undefined })).toBeUndefined();
    expect(rule.matched).toBe(0);
    expect(rules.before(CREATE_ROUTE)).toBeUndefined();
    expect(rules.before(CREATE_ROUTE)?.error).toBe(rule);
    expect({ matched: rule.matched, fired: rule.fired }).toEqual({ matched: 2, fired: 1 });
  });
});

describe("effects", () => {
  it("answers an error in the operation's dialect: status, error name, Retry-After, the account body's errorType", () => {
    const rules = new FaultRules();
    const rule = rules.add({ calls: { every: true }, effect: THROTTLED });
    const error = rule.error(DIALECTS.account, "PutAlternateContact");
    expect({ status: error.status, errorType: error.errorType, headers: error.headers }).toEqual({
      status: 429, errorType: "TooManyRequestsException", headers: { "retry-after": "1", "x-svc-retry-after-ms": "1000" },
    });
    expect(DIALECTS.account.body(error)).toMatchObject({ __type: "TooManyRequestsException", errorType: "TooManyRequestsException", message: expect.stringContaining("rule f1") });
  });

  it.each<[string, FaultEffect, keyof typeof DIALECTS, { status: number; errorType: string; fields: Record<string, unknown> }]>([
    ["a gateway 429 without a name is the gateway's own LimitExceededException", { status: 429 }, "apigateway", { status: 429, errorType: "LimitExceededException", fields: { limitType: "RequestRate" } }],
    ["an account 400 is a ValidationException with its reason", { status: 400 }, "account", { status: 400, errorType: "ValidationException", fields: { reason: "fieldValidationFailed", fieldList: [] } }],
    ["a gateway 404 is NotFoundException", { status: 404 }, "apigateway", { status: 404, errorType: "NotFoundException", fields: {} }],
    ["a 503 is ServiceUnavailableException", { status: 503 }, "account", { status: 503, errorType: "ServiceUnavailableException", fields: {} }],
    ["a status without a natural name takes the name given", { status: 502, errorType: "BadGatewayException" }, "apigateway", { status: 502, errorType: "BadGatewayException", fields: {} }],
  ])("%s", (_label, effect, service, expected) => {
    const rules = new FaultRules();
    const error = rules.add({ calls: { every: true }, effect }).error(DIALECTS[service], "GetRoute");
    expect({ status: error.status, errorType: error.errorType, fields: error.fields }).toEqual(expected);
  });

  it("adds the delays of every acting latency rule; an error answers after its own delay only; the first error or drop decides", () => {
    const rules = new FaultRules();
    rules.add({ calls: { every: true }, effect: { latencyMs: 30 } });
    rules.add({ operation: "CreateRoute", calls: { every: true }, effect: { latencyMs: 20 } });
    expect(rules.before(CREATE_ROUTE)).toMatchObject({ latencyMs: 50, error: undefined, dropAnswer: false, fault: { rule: "f1", effect: "latency" } });
    const drop = rules.add({ operation: "CreateRoute", calls: { nth: 1 }, effect: { dropAnswer: true } });
    const error = rules.add({ operation: "CreateRoute", calls: { every: true }, effect: { status: 500, latencyMs: 5 } });
    expect(rules.before(CREATE_ROUTE)).toMatchObject({ latencyMs: 50, dropAnswer: true, fault: { rule: drop.id, effect: "dropAnswer" } });
    expect(rules.before(CREATE_ROUTE)).toMatchObject({ latencyMs: 5, error, dropAnswer: false, fault: { rule: error.id, effect: "error" } });
  });

  it("asks an afterWrite rule only after a write succeeded, never before the operation", () => {
    const rules = new FaultRules();
    const rule = rules.add({ writesOnly: true, calls: { nth: 1 }, effect: { status: 500, afterWrite: true } });
    expect(rules.before(CREATE_ROUTE)).toBeUndefined();
    expect(rules.afterWrite(GET_ROUTE)).toBeUndefined();
    expect(rules.afterWrite(CREATE_ROUTE)).toBe(rule);
    expect(rules.afterWrite(CREATE_ROUTE)).toBeUndefined();
  });
});

describe("the world file's faults as rules", () => {
  it("keeps one seeded die for errorRate and dropAfterWriteRate, as the service did before they were rules", () => {
    const rules = new FaultRules();
    rules.setWorldFile("default", { errorRate: 0.3, latencyMs: 0, dropAfterWriteRate: 0.5, seed: 7 });
    const dice = mulberry32(7);
    for (let call = 0; call < 200; call += 1) {
      const failedBefore = dice() < 0.3;
      const decision = rules.before(CREATE_ROUTE);
      expect(decision?.error !== undefined, `call ${call}`).toBe(failedBefore);
      if (failedBefore) continue;
      expect(rules.afterWrite(CREATE_ROUTE) !== undefined, `call ${call} after its write`).toBe(dice() < 0.5);
    }
  });

  it("lists them with source world, and they answer the service's documented messages", () => {
    const rules = new FaultRules();
    rules.setWorldFile("default", { errorRate: 1, latencyMs: 25, dropAfterWriteRate: 1 });
    expect(rules.list().map((rule) => rule.view())).toEqual([
      expect.objectContaining({ id: "default-errorRate", source: "world", world: "default", calls: { probability: 1 }, effect: expect.objectContaining({ status: 500 }) }),
      expect.objectContaining({ id: "default-latencyMs", source: "world", calls: { every: true }, effect: { latencyMs: 25 } }),
      expect.objectContaining({ id: "default-dropAfterWriteRate", source: "world", writesOnly: true, effect: expect.objectContaining({ afterWrite: true }) }),
    ]);
    const decision = rules.before(CREATE_ROUTE)!;
    expect(decision.latencyMs).toBe(0);
    expect(decision.error!.error(DIALECTS.apigateway, "CreateRoute").message).toBe("injected fault: the service failed before handling the request; retry later");
    expect(rules.before({ ...CREATE_ROUTE, world: "w-other" })).toBeUndefined();
  });

  it("removes one rule by ID, or every rule of a world, or all", () => {
    const rules = new FaultRules();
    rules.setWorldFile("default", { errorRate: 0.1, latencyMs: 0, dropAfterWriteRate: 0 });
    rules.add({ world: "w-a", calls: { every: true }, effect: THROTTLED });
    rules.add({ calls: { every: true }, effect: THROTTLED });
    expect(rules.remove("default-errorRate")).toBe(true);
    expect(rules.remove("default-errorRate")).toBe(false);
    expect(rules.clear("w-a")).toBe(1);
    expect(rules.list().map((rule) => rule.id)).toEqual(["f2"]);
    expect(rules.clear()).toBe(1);
    expect(rules.list()).toEqual([]);
  });
});
