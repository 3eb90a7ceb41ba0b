import { describe, expect, it } from "vitest";
import { membersOnceSet, sharedSuite, type Filling } from "./shared-suite.js";

interface Members {
  readonly service: string;
  readonly home: string;
}

describe("membersOnceSet", () => {
  it("reads each member through to the values as the setup fills them in", () => {
    const values: Filling<Members> = {};
    const view = membersOnceSet<Members>("the suite", values, ["service", "home"]);
    values.service = "http://127.0.0.1:1";
    expect(view.service).toBe("http://127.0.0.1:1");
    values.home = "/tmp/home";
    expect(view.home).toBe("/tmp/home");
  });

  it("refuses a member read before the setup set it, naming the suite and the member", () => {
    const view = membersOnceSet<Members>(`the terraform suite "x"`, { service: "set" }, ["service", "home"]);
    expect(() => view.home).toThrow(`the terraform suite "x" has no home yet: read it in a hook or a test, after the suite's beforeAll has run`);
  });
});

describe("sharedSuite", () => {
  const order: string[] = [];
  const suite = sharedSuite<Members>("the suite", ["service", "home"], {
    setup: async (values) => {
      order.push("setup");
      values.service = "service";
      values.home = "home";
    },
    teardown: async () => void order.push("teardown"),
    timeoutMs: 1_000,
  });

  it("has run its setup before the tests, and hands them what it set", () => {
    expect(order).toEqual(["setup"]);
    expect([suite.service, suite.home]).toEqual(["service", "home"]);
  });
});
