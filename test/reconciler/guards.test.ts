import { describe, expect, it } from "vitest";
import type { LoadedDocument } from "../../src/desired/load.js";
import type { DriftInput } from "../../src/reconcile/drift.js";
import { DesiredMemory, FightTracker, FindingMemory } from "../../src/reconciler/guards.js";

function desired(count: number, fingerprint: string): DriftInput {
  const document = { document: { kind: "RegionOptIn", ensure: "present", spec: { region: "ap-east-1", enabled: true } }, source: { file: "a.yaml", line: 1, column: 1 } } as unknown as LoadedDocument;
  return { documents: Array.from({ length: count }, () => document), fingerprint };
}

const broken = { ok: false as const, message: "desired state is not valid", problems: [{ file: "routes.yaml", line: 3, column: 1, path: "spec", message: "bad" }] };

describe("the desired state's memory", () => {
  it("takes a set that loads, and says it is settled only when it reads the same as the cycle before", () => {
    const memory = new DesiredMemory();
    expect(memory.settle({ ok: true, desired: desired(4, "a") }, 1, false)).toMatchObject({ fresh: true, since: 1, settled: false });
    expect(memory.settle({ ok: true, desired: desired(4, "a") }, 2, false)).toMatchObject({ fresh: true, since: 2, settled: true });
    expect(memory.settle({ ok: true, desired: desired(4, "b") }, 3, false)).toMatchObject({ settled: false });
    expect(memory.settle({ ok: true, desired: desired(4, "b") }, 4, false)).toMatchObject({ settled: true });
  });

  it("keeps the last good set in force when a load fails, and needs two good reads again before a delete", () => {
    const memory = new DesiredMemory();
    memory.settle({ ok: true, desired: desired(4, "a") }, 1, false);
    const failed = memory.settle(broken, 2, false);
    expect(failed).toMatchObject({ fresh: false, since: 1, settled: false, refusal: { guard: "desired-state", problems: broken.problems } });
    expect(failed.desired?.fingerprint).toBe("a");
    expect(memory.settle({ ok: true, desired: desired(4, "a") }, 3, false).settled).toBe(false);
    expect(memory.settle({ ok: true, desired: desired(4, "a") }, 4, false).settled).toBe(true);
  });

  it("refuses a set less than half the last good one, unless shrinking is allowed", () => {
    const memory = new DesiredMemory();
    memory.settle({ ok: true, desired: desired(10, "a") }, 1, false);
    expect(memory.settle({ ok: true, desired: desired(5, "b") }, 2, false).refusal).toBeUndefined();
    const shrunk = memory.settle({ ok: true, desired: desired(2, "c") }, 3, false);
    expect(shrunk).toMatchObject({ fresh: false, since: 2, refusal: { guard: "shrink" } });
    expect(shrunk.refusal!.message).toContain("shrank from 5 to 2 documents");
    expect(memory.settle({ ok: true, desired: desired(2, "c") }, 4, true)).toMatchObject({ fresh: true, since: 4 });
  });

  it("has nothing in force before any set loaded", () => {
    expect(new DesiredMemory().settle(broken, 1, false)).toMatchObject({ desired: undefined, since: undefined, refusal: { guard: "desired-state" } });
  });
});

describe("fights", () => {
  it("finds a fight at the set number of corrections within the window, and not across a longer span", () => {
    const fights = new FightTracker({ corrections: 3, cycles: 5 });
    expect(fights.corrected("Route/a/GET /x", 1, ["authorizationScopes"], "d")).toBeUndefined();
    expect(fights.corrected("Route/a/GET /x", 4, ["authorizationScopes"], "d")).toBeUndefined();
    expect(fights.corrected("Route/a/GET /x", 9, ["target"], "d")).toBeUndefined();
    expect(fights.corrected("Route/a/GET /x", 10, ["target"], "d")).toBeUndefined();
    expect(fights.corrected("Route/a/GET /x", 11, ["target"], "d")).toMatchObject({ corrections: 3, cycles: 5, fields: ["target"], since: 11 });
    expect(fights.fightOf("Route/a/GET /x", "d")).toMatchObject({ corrections: 3 });
  });

  it("ends a fight when the document changes or the resource is found in sync", () => {
    const fights = new FightTracker({ corrections: 2, cycles: 10 });
    fights.corrected("A", 1, ["name"], "d");
    expect(fights.corrected("A", 2, ["name"], "d")).toBeDefined();
    expect(fights.fightOf("A", "d2")).toBeUndefined();
    expect(fights.fightOf("A", "d2")).toBeUndefined();
    fights.corrected("A", 3, ["name"], "d2");
    fights.corrected("A", 4, ["name"], "d2");
    fights.inSync("A");
    expect(fights.fightOf("A", "d2")).toBeUndefined();
    expect(fights.fighting).toBe(0);
  });

  it("does not count the first create of a resource, only one of a resource seen before", () => {
    const fights = new FightTracker({ corrections: 2, cycles: 10 });
    expect(fights.corrected("A", 1, ["name"], "d", true)).toBeUndefined();
    expect(fights.corrected("A", 2, ["name"], "d", true)).toBeUndefined();
    expect(fights.corrected("A", 3, ["name"], "d", true)).toMatchObject({ corrections: 2 });
  });
});

describe("findings", () => {
  it("says a finding is new once per change of its detail", () => {
    const findings = new FindingMemory();
    findings.begin();
    expect(findings.report("protection:A", "x")).toBe(true);
    findings.end();
    findings.begin();
    expect(findings.report("protection:A", "x")).toBe(false);
    expect(findings.report("protection:B", "x")).toBe(true);
    findings.end();
    findings.begin();
    expect(findings.report("protection:A", "y")).toBe(true);
    findings.end();
    findings.begin();
    findings.end();
    findings.begin();
    expect(findings.report("protection:A", "y")).toBe(true);
  });
});
