import { describe, expect, it } from "vitest";
import { RequestJournal, journalEntry, type JournalRecord } from "../../src/service/request-journal.js";

/** The request journal's ring (src/service/request-journal.ts): bounded, oldest first, filtered, cleared. */

function record(index: number, overrides: Partial<JournalRecord> = {}): JournalRecord {
  return {
    time: Date.UTC(2026, 0, 1) + index, world: "default", service: "apigateway", operation: index % 2 === 0 ? "GetRoute" : "CreateRoute", write: index % 2 === 1,
    identity: "identities[0]", account: "111111111111", status: 200, latencyMs: 1, fault: undefined, ...overrides,
  };
}

describe("RequestJournal", () => {
  it("holds the last `size` records, oldest first, and counts those it let go", () => {
    const journal = new RequestJournal(5);
    for (let i = 0; i < 12; i += 1) journal.add(record(i));
    expect(journal.held).toBe(5);
    expect(journal.evicted).toBe(7);
    expect(journal.records().map((r) => r.time - Date.UTC(2026, 0, 1))).toEqual([7, 8, 9, 10, 11]);
  });

  it("holds nothing with size 0 (the journal off)", () => {
    const journal = new RequestJournal(0);
    journal.add(record(1));
    expect({ held: journal.held, records: journal.records(), evicted: journal.evicted }).toEqual({ held: 0, records: [], evicted: 0 });
  });

  it("filters by operation, account, status, world, identity and fault, every field given", () => {
    const journal = new RequestJournal(100);
    journal.add(record(0));
    journal.add(record(1, { status: 429, fault: { rule: "f1", effect: "error" } }));
    journal.add(record(3, { world: "w-a", account: "222222222222", identity: "ops" }));
    expect(journal.records({ operation: "CreateRoute" })).toHaveLength(2);
    expect(journal.records({ operation: "CreateRoute", status: 429 })).toHaveLength(1);
    expect(journal.records({ fault: true }).map((r) => r.status)).toEqual([429]);
    expect(journal.records({ fault: false })).toHaveLength(2);
    expect(journal.records({ world: "w-a", account: "222222222222", identity: "ops" })).toHaveLength(1);
    expect(journal.records({ account: "333333333333" })).toEqual([]);
    expect(journal.records({ write: true }).map((r) => r.operation)).toEqual(["CreateRoute", "CreateRoute"]);
    expect(journal.records({ write: false }).map((r) => r.operation)).toEqual(["GetRoute"]);
  });

  it("clears what matches and keeps the order of the rest, then fills the ring again from there", () => {
    const journal = new RequestJournal(4);
    for (let i = 0; i < 6; i += 1) journal.add(record(i, { world: i % 2 === 0 ? "a" : "b" }));
    expect(journal.clear({ world: "a" })).toBe(2);
    expect(journal.records().map((r) => r.time - Date.UTC(2026, 0, 1))).toEqual([3, 5]);
    for (let i = 6; i < 9; i += 1) journal.add(record(i));
    expect(journal.records().map((r) => r.time - Date.UTC(2026, 0, 1))).toEqual([5, 6, 7, 8]);
    expect(journal.clear()).toBe(4);
    expect({ held: journal.held, evicted: journal.evicted }).toEqual({ held: 0, evicted: 0 });
  });

  it("answers an entry with an ISO time, and null for what a request had none of", () => {
    expect(journalEntry(record(0, { identity: undefined, account: undefined }))).toEqual({
      time: "2026-01-01T00:00:00.000Z", world: "default", service: "apigateway", operation: "GetRoute", write: false, identity: null, account: null, status: 200, latencyMs: 1, fault: null,
    });
  });
});
