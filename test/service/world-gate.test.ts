import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { WorldGate } from "../../src/service/world-gate.js";

/** The gate that makes a world's reset atomic for its requests (src/service/world-gate.ts). */
describe("WorldGate", () => {
  it("lets requests in at once while open", () => {
    const gate = new WorldGate();
    expect(gate.enter()).toBeUndefined();
    expect(gate.enter()).toBeUndefined();
    gate.leave();
    gate.leave();
  });

  it("runs a change only after the requests inside have left, and holds new ones until it is done", async () => {
    const gate = new WorldGate();
    const events: string[] = [];
    gate.enter();
    const change = gate.exclusive(async () => {
      events.push("change starts");
      await sleep(20);
      events.push("change ends");
      return 42;
    });
    const waiting = gate.enter();
    expect(waiting).toBeInstanceOf(Promise);
    void waiting!.then(() => events.push("next request enters"));
    await sleep(20);
    expect(events).toEqual([]);
    events.push("request inside leaves");
    gate.leave();
    expect(await change).toBe(42);
    await waiting;
    expect(events).toEqual(["request inside leaves", "change starts", "change ends", "next request enters"]);
    gate.leave();
  });

  it("runs changes one at a time, in order, and opens again after a change that failed", async () => {
    const gate = new WorldGate();
    const order: number[] = [];
    const first = gate.exclusive(async () => {
      await sleep(10);
      order.push(1);
      throw new Error("the change failed");
    });
    const second = gate.exclusive(() => {
      order.push(2);
    });
    await expect(first).rejects.toThrow("the change failed");
    await second;
    expect(order).toEqual([1, 2]);
    await sleep(0);
    expect(gate.enter()).toBeUndefined();
    gate.leave();
  });
});
