import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { expectAccountError, expectEmptySuccess, expectValidation, pollUntil } from "../support/account-expect.js";
import { accountCall } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { regionCatalog, testWorld } from "../support/worlds.js";

const TRANSITION_MS = 250;

const FAST_CATALOG = regionCatalog({
  "ap-east-1": "DISABLED",
  "af-south-1": "DISABLED",
  "ap-south-1": "DISABLED",
  "il-central-1": "DISABLED",
  "me-south-1": "ENABLED",
  "me-central-1": "ENABLED",
  "eu-south-1": "ENABLING",
  "ap-south-2": "DISABLING",
  "us-east-1": "ENABLED_BY_DEFAULT",
  "eu-west-1": "ENABLED_BY_DEFAULT",
});

const SLOW_CATALOG = regionCatalog({
  "ap-east-1": "DISABLED",
  "il-central-1": "DISABLED",
  "mx-central-1": "ENABLED",
  "us-east-1": "ENABLED_BY_DEFAULT",
});

/** Regions settle after TRANSITION_MS. */
const { service: fast } = useWorld({ world: testWorld({ regions: FAST_CATALOG, regionTransitionMs: TRANSITION_MS }) });
/** Regions stay mid-transition for the whole run, so that transitional states can be asserted without racing the clock. */
const { service: slow } = useWorld({ world: testWorld({ regions: SLOW_CATALOG, regionTransitionMs: 600_000 }) });

async function statusOf(service: RunningService, regionName: string, token = "admin-token", accountId?: string): Promise<string> {
  const result = await accountCall(service, "GetRegionOptStatus", { RegionName: regionName, ...(accountId ? { AccountId: accountId } : {}) }, token);
  expect(result.status).toBe(200);
  expect(result.json.RegionName).toBe(regionName);
  return result.json.RegionOptStatus as string;
}

async function listedStatus(service: RunningService, regionName: string, body: Record<string, unknown> = {}): Promise<string | undefined> {
  const result = await accountCall(service, "ListRegions", body);
  expect(result.status).toBe(200);
  return (result.json.Regions as Array<{ RegionName: string; RegionOptStatus: string }>).find((r) => r.RegionName === regionName)?.RegionOptStatus;
}

/** Polls GetRegionOptStatus until the Region reaches `status`; returns when it was first seen there. */
async function waitForStatus(service: RunningService, regionName: string, status: string): Promise<number> {
  const { at } = await pollUntil(() => statusOf(service, regionName), (current) => current === status, { timeoutMs: 5_000 });
  return at;
}

describe("GetRegionOptStatus", () => {
  it.each(FAST_CATALOG.map((r) => [r.regionName, r.optStatus]))("returns the catalog status of %s (%s)", async (regionName, optStatus) => {
    const result = await accountCall(fast, "GetRegionOptStatus", { RegionName: regionName }, "standalone-token");
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(result.json).toEqual({ RegionName: regionName, RegionOptStatus: optStatus });
  });

  it.each<[string, Record<string, unknown>]>([
    ["an unknown Region", { RegionName: "xx-nowhere-1" }],
    ["a Region name in the wrong case", { RegionName: "US-EAST-1" }],
    ["a Region name with a trailing space", { RegionName: "us-east-1 " }],
    ["an empty RegionName", { RegionName: "" }],
    ["a RegionName of 51 characters", { RegionName: "r".repeat(51) }],
    ["a RegionName that is a number", { RegionName: 1 }],
    ["no RegionName", {}],
  ])("rejects %s naming RegionName", async (_label, body) => {
    expectValidation(await accountCall(fast, "GetRegionOptStatus", body), ["RegionName"]);
  });
});

describe("EnableRegion and DisableRegion", () => {
  it.each([
    ["a DISABLED", "ENABLING", "ENABLED", "EnableRegion", "ap-east-1"],
    ["an ENABLED", "DISABLING", "DISABLED", "DisableRegion", "me-south-1"],
  ] as const)("moves %s Region to %s, then to %s once regionTransitionMs has passed", async (_from, via, to, operation, region) => {
    const startedAt = Date.now();
    expectEmptySuccess(await accountCall(fast, operation, { RegionName: region }));
    expect(await statusOf(fast, region)).toBe(via);
    const settledAt = await waitForStatus(fast, region, to);
    expect(settledAt - startedAt).toBeGreaterThanOrEqual(TRANSITION_MS);
    expect(await listedStatus(fast, region)).toBe(to);
  });

  it("enables, disables and enables the same Region again", async () => {
    expectEmptySuccess(await accountCall(fast, "EnableRegion", { RegionName: "af-south-1" }));
    await waitForStatus(fast, "af-south-1", "ENABLED");
    expectEmptySuccess(await accountCall(fast, "DisableRegion", { RegionName: "af-south-1" }));
    expect(await statusOf(fast, "af-south-1")).toBe("DISABLING");
    await waitForStatus(fast, "af-south-1", "DISABLED");
    expectEmptySuccess(await accountCall(fast, "EnableRegion", { RegionName: "af-south-1" }));
    expect(await statusOf(fast, "af-south-1")).toBe("ENABLING");
    await waitForStatus(fast, "af-south-1", "ENABLED");
  });

  it.each<[string, string, string]>([
    ["EnableRegion", "me-central-1", "ENABLED"],
    ["EnableRegion", "eu-south-1", "ENABLING"],
    ["DisableRegion", "ap-south-1", "DISABLED"],
    ["DisableRegion", "ap-south-2", "DISABLING"],
  ])("answers %s of %s (%s) with 200 and changes nothing", async (operation, regionName, status) => {
    expectEmptySuccess(await accountCall(fast, operation, { RegionName: regionName }));
    expect(await statusOf(fast, regionName)).toBe(status);
    expect(await listedStatus(fast, regionName)).toBe(status);
  });

  it.each<[string, string, string]>([
    ["EnableRegion", "ap-south-2", "DISABLING"],
    ["DisableRegion", "eu-south-1", "ENABLING"],
  ])("refuses %s of %s while it is %s with ConflictException", async (operation, regionName, status) => {
    expectAccountError(await accountCall(fast, operation, { RegionName: regionName }), 409, "ConflictException");
    expect(await statusOf(fast, regionName)).toBe(status);
  });

  it.each<[string, string]>([
    ["EnableRegion", "us-east-1"],
    ["DisableRegion", "us-east-1"],
    ["EnableRegion", "eu-west-1"],
    ["DisableRegion", "eu-west-1"],
  ])("rejects %s of the ENABLED_BY_DEFAULT Region %s with reason invalidRegionOptTarget", async (operation, regionName) => {
    expectValidation(await accountCall(fast, operation, { RegionName: regionName }), ["RegionName"], "invalidRegionOptTarget");
    expect(await statusOf(fast, regionName)).toBe("ENABLED_BY_DEFAULT");
  });

  it.each<[string, Record<string, unknown>]>([
    ["EnableRegion", { RegionName: "xx-nowhere-1" }],
    ["DisableRegion", { RegionName: "xx-nowhere-1" }],
    ["EnableRegion", { RegionName: "AP-EAST-1" }],
    ["DisableRegion", { RegionName: "" }],
    ["EnableRegion", {}],
    ["DisableRegion", { RegionName: null }],
  ])("rejects %s of an unknown or missing Region %j with reason fieldValidationFailed", async (operation, body) => {
    expectValidation(await accountCall(fast, operation, body), ["RegionName"]);
  });

  it.each(["EnableRegion", "DisableRegion"])("rejects %s with an invalid AccountId and RegionName in one ValidationException", async (operation) => {
    expectValidation(await accountCall(fast, operation, { AccountId: "12345", RegionName: "" }), ["AccountId", "RegionName"]);
  });

  it("changes a Region on the member account only, even after it settles", async () => {
    expectEmptySuccess(await accountCall(fast, "EnableRegion", { AccountId: "222222222222", RegionName: "il-central-1" }));
    await pollUntil(() => statusOf(fast, "il-central-1", "member-token"), (status) => status === "ENABLED", { timeoutMs: 5_000 });
    expect(await statusOf(fast, "il-central-1", "admin-token", "222222222222")).toBe("ENABLED");
    expect(await statusOf(fast, "il-central-1", "admin-token")).toBe("DISABLED");
    expect(await statusOf(fast, "il-central-1", "delegated-token")).toBe("DISABLED");
    expect(await statusOf(fast, "il-central-1", "standalone-token")).toBe("DISABLED");
  });
});

describe("Regions mid-transition", () => {
  it.each([
    ["an enabling", "ENABLING", "EnableRegion", "DisableRegion", "ap-east-1", "ENABLING", "ENABLING"],
    ["a disabling", "DISABLING", "DisableRegion", "EnableRegion", "mx-central-1", "ENABLED", undefined],
  ] as const)("keeps %s Region %s on a repeated %s and refuses %s with ConflictException", async (_a, status, operation, other, region, listedAs, listed) => {
    expectEmptySuccess(await accountCall(slow, operation, { RegionName: region }));
    expect(await statusOf(slow, region)).toBe(status);
    expectEmptySuccess(await accountCall(slow, operation, { RegionName: region }));
    expect(await statusOf(slow, region)).toBe(status);
    expectAccountError(await accountCall(slow, other, { RegionName: region }), 409, "ConflictException");
    expect(await statusOf(slow, region)).toBe(status);
    expect(await listedStatus(slow, region, { RegionOptStatusContains: [listedAs] })).toBe(listed);
  });

  it("changes a Region only on the account the management account names", async () => {
    expectEmptySuccess(await accountCall(slow, "EnableRegion", { AccountId: "222222222222", RegionName: "il-central-1" }));
    expect(await statusOf(slow, "il-central-1", "member-token")).toBe("ENABLING");
    expect(await statusOf(slow, "il-central-1", "admin-token", "222222222222")).toBe("ENABLING");
    expect(await statusOf(slow, "il-central-1", "admin-token")).toBe("DISABLED");
    expect(await statusOf(slow, "il-central-1", "delegated-token")).toBe("DISABLED");
    expect(await listedStatus(slow, "il-central-1", { AccountId: "222222222222" })).toBe("ENABLING");
    expect(await listedStatus(slow, "il-central-1")).toBe("DISABLED");
  });

  it("lets the delegated administrator change a member's Region and refuses the opposite change with ConflictException", async () => {
    expectEmptySuccess(await accountCall(slow, "EnableRegion", { AccountId: "222222222222", RegionName: "ap-east-1" }, "delegated-token"));
    expect(await statusOf(slow, "ap-east-1", "member-token")).toBe("ENABLING");
    expectAccountError(await accountCall(slow, "DisableRegion", { RegionName: "ap-east-1" }, "member-token"), 409, "ConflictException");
    expect(await statusOf(slow, "ap-east-1", "delegated-token")).toBe("DISABLED");
  });
});
