import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { expectValidation } from "../support/account-expect.js";
import { accountCall } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld } from "../support/worlds.js";

const STATUSES = ["ENABLED", "ENABLING", "DISABLING", "DISABLED", "ENABLED_BY_DEFAULT"] as const;
type Status = (typeof STATUSES)[number];
interface Region {
  RegionName: string;
  RegionOptStatus: Status;
}

const PREFIXES = ["us", "eu", "ap", "sa", "me", "af", "ca", "il", "mx"];
/** 65 Regions, listed out of name order, 13 of each status. */
const CATALOG = Array.from({ length: 65 }, (_, i) => ({
  regionName: `${PREFIXES[i % PREFIXES.length]}-region-${(i * 37) % 65}`,
  optStatus: STATUSES[i % STATUSES.length]!,
}));
const SORTED: Region[] = CATALOG
  .map((r) => ({ RegionName: r.regionName, RegionOptStatus: r.optStatus }))
  .sort((a, b) => (a.RegionName < b.RegionName ? -1 : 1));

const { service } = useWorld({ world: testWorld({ regions: CATALOG }) });
const { service: small } = useWorld();

/** Follows NextToken from the first page to the last; fails on an error or a runaway listing. */
async function listAllPages(body: Record<string, unknown>, target: RunningService = service): Promise<Region[][]> {
  const pages: Region[][] = [];
  let nextToken: string | undefined;
  do {
    const result = await accountCall(target, "ListRegions", nextToken === undefined ? body : { ...body, NextToken: nextToken });
    expect(result.status).toBe(200);
    pages.push(result.json.Regions);
    nextToken = result.json.NextToken;
    if (nextToken !== undefined) expect(typeof nextToken).toBe("string");
    expect(pages.length).toBeLessThanOrEqual(SORTED.length + 1);
  } while (nextToken !== undefined);
  return pages;
}

async function firstToken(body: Record<string, unknown>): Promise<string> {
  const result = await accountCall(service, "ListRegions", { MaxResults: 3, ...body });
  expect(result.status).toBe(200);
  expect(typeof result.json.NextToken).toBe("string");
  return result.json.NextToken as string;
}

function replaceCharAt(text: string, index: number): string {
  const position = index < 0 ? text.length + index : index;
  const replacement = text[position] === "A" ? "B" : "A";
  return text.slice(0, position) + replacement + text.slice(position + 1);
}

describe("ListRegions without filter", () => {
  it("returns every Region sorted by name, with no NextToken, when they fit in one page", async () => {
    const result = await accountCall(small, "ListRegions", {});
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(result.json).toEqual({
      Regions: [
        { RegionName: "af-south-1", RegionOptStatus: "DISABLED" },
        { RegionName: "ap-east-1", RegionOptStatus: "DISABLED" },
        { RegionName: "ap-south-2", RegionOptStatus: "DISABLING" },
        { RegionName: "eu-south-1", RegionOptStatus: "ENABLING" },
        { RegionName: "eu-west-1", RegionOptStatus: "ENABLED_BY_DEFAULT" },
        { RegionName: "me-south-1", RegionOptStatus: "ENABLED" },
        { RegionName: "us-east-1", RegionOptStatus: "ENABLED_BY_DEFAULT" },
        { RegionName: "us-west-2", RegionOptStatus: "ENABLED_BY_DEFAULT" },
      ],
    });
  });

  it("returns 50 Regions and a NextToken without MaxResults, and the rest on the next page", async () => {
    const first = await accountCall(service, "ListRegions", {});
    expect(first.status).toBe(200);
    expect(first.json.Regions).toEqual(SORTED.slice(0, 50));
    expect(typeof first.json.NextToken).toBe("string");
    expect(first.json.NextToken.length).toBeLessThanOrEqual(1000);
    const second = await accountCall(service, "ListRegions", { NextToken: first.json.NextToken });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ Regions: SORTED.slice(50) });
  });

  it.each(Array.from({ length: 50 }, (_, i) => i + 1))(
    "pages through all 65 Regions exactly once with MaxResults %i",
    async (maxResults) => {
      const pages = await listAllPages({ MaxResults: maxResults });
      expect(pages).toHaveLength(Math.ceil(SORTED.length / maxResults));
      for (const page of pages.slice(0, -1)) expect(page).toHaveLength(maxResults);
      expect(pages.flat()).toEqual(SORTED);
    },
  );

  it("starts from the beginning when NextToken is an empty string", async () => {
    const withEmptyToken = await accountCall(service, "ListRegions", { MaxResults: 10, NextToken: "" });
    const withoutToken = await accountCall(service, "ListRegions", { MaxResults: 10 });
    expect(withEmptyToken.status).toBe(200);
    expect(withEmptyToken.json.Regions).toEqual(SORTED.slice(0, 10));
    expect(withEmptyToken.json.Regions).toEqual(withoutToken.json.Regions);
    expect(typeof withEmptyToken.json.NextToken).toBe("string");
  });

  it.each([1, 50])("accepts MaxResults %i (the limits)", async (maxResults) => {
    const result = await accountCall(service, "ListRegions", { MaxResults: maxResults });
    expect(result.status).toBe(200);
    expect(result.json.Regions).toEqual(SORTED.slice(0, maxResults));
    expect(typeof result.json.NextToken).toBe("string");
  });
});

describe("ListRegions with RegionOptStatusContains", () => {
  it.each(STATUSES)("accepts %s and returns only the Regions in that status, sorted", async (status) => {
    const result = await accountCall(service, "ListRegions", { RegionOptStatusContains: [status] });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ Regions: SORTED.filter((r) => r.RegionOptStatus === status) });
    expect(result.json.Regions).toHaveLength(13);
  });

  it.each<[Status[]]>([
    [["ENABLED", "DISABLED"]],
    [["ENABLING", "DISABLING", "ENABLED_BY_DEFAULT"]],
    [["DISABLED", "DISABLED"]],
  ])("returns the Regions in any of several statuses %j", async (statuses) => {
    const pages = await listAllPages({ RegionOptStatusContains: statuses });
    expect(pages.flat()).toEqual(SORTED.filter((r) => statuses.includes(r.RegionOptStatus)));
  });

  it("returns every Region when the filter names every status", async () => {
    const pages = await listAllPages({ RegionOptStatusContains: [...STATUSES] });
    expect(pages.flat()).toEqual(SORTED);
  });

  it.each([1, 4, 7, 26])("paginates a filtered listing with MaxResults %i", async (maxResults) => {
    const statuses: Status[] = ["DISABLED", "ENABLING"];
    const expected = SORTED.filter((r) => statuses.includes(r.RegionOptStatus));
    const pages = await listAllPages({ MaxResults: maxResults, RegionOptStatusContains: statuses });
    expect(pages).toHaveLength(Math.ceil(expected.length / maxResults));
    for (const page of pages.slice(0, -1)) expect(page).toHaveLength(maxResults);
    expect(pages.flat()).toEqual(expected);
  });

  it("accepts a NextToken with the same filter listed in another order", async () => {
    const token = await firstToken({ RegionOptStatusContains: ["ENABLED", "DISABLED"] });
    const next = await accountCall(service, "ListRegions", { MaxResults: 3, NextToken: token, RegionOptStatusContains: ["DISABLED", "ENABLED"] });
    expect(next.status).toBe(200);
    expect(next.json.Regions).toEqual(SORTED.filter((r) => r.RegionOptStatus === "ENABLED" || r.RegionOptStatus === "DISABLED").slice(3, 6));
  });
});

describe("ListRegions validation", () => {
  it.each<[string, unknown]>([
    ["0", 0],
    ["51", 51],
    ["-1", -1],
    ["1.5 (not an integer)", 1.5],
    ['the string "5"', "5"],
    ["null", null],
    ["true", true],
  ])("rejects MaxResults %s", async (_label, maxResults) => {
    expectValidation(await accountCall(service, "ListRegions", { MaxResults: maxResults }), ["MaxResults"]);
  });

  // MaxResults 0 is invalid on purpose: the fieldList then shows whether NextToken passed its length check.
  it.each<[string, string, string[]]>([
    ["1000 characters", "x".repeat(1000), ["MaxResults"]],
    ["1000 emoji (1000 code points)", "😀".repeat(1000), ["MaxResults"]],
    ["1001 characters", "x".repeat(1001), ["MaxResults", "NextToken"]],
    ["1001 emoji", "😀".repeat(1001), ["MaxResults", "NextToken"]],
  ])("checks a NextToken of %s against the 1000-character limit", async (_label, nextToken, fields) => {
    expectValidation(await accountCall(service, "ListRegions", { MaxResults: 0, NextToken: nextToken }), fields);
  });

  it.each<[string, unknown]>([
    ["of 1001 characters", "x".repeat(1001)],
    ["of 1000 characters that no listing issued", "x".repeat(1000)],
    ["that is a number", 12345],
  ])("rejects a NextToken %s", async (_label, nextToken) => {
    expectValidation(await accountCall(service, "ListRegions", { NextToken: nextToken }), ["NextToken"]);
  });

  it.each<[string, unknown, string[]]>([
    ["an unknown status", ["PENDING"], ["RegionOptStatusContains[0]"]],
    ["a lower-case status", ["enabled"], ["RegionOptStatusContains[0]"]],
    ["an unknown status after a valid one", ["ENABLED", "BOGUS"], ["RegionOptStatusContains[1]"]],
    ["two unknown statuses", ["X", "ENABLED", "Y"], ["RegionOptStatusContains[0]", "RegionOptStatusContains[2]"]],
    ["a number", [1], ["RegionOptStatusContains[0]"]],
    ["a string instead of a list", "ENABLED", ["RegionOptStatusContains"]],
    ["null", null, ["RegionOptStatusContains"]],
  ])("rejects RegionOptStatusContains with %s", async (_label, filter, fields) => {
    expectValidation(await accountCall(service, "ListRegions", { RegionOptStatusContains: filter }), fields);
  });

  it.each([["22222222222"], ["2222222222222"], ["22222222222x"]])("rejects AccountId %s", async (accountId) => {
    expectValidation(await accountCall(service, "ListRegions", { AccountId: accountId }), ["AccountId"]);
  });

  it("rejects every invalid field of one request in one ValidationException", async () => {
    const result = await accountCall(service, "ListRegions", {
      AccountId: "1",
      MaxResults: 51,
      NextToken: "t".repeat(1001),
      RegionOptStatusContains: ["NOPE"],
    });
    expectValidation(result, ["AccountId", "MaxResults", "NextToken", "RegionOptStatusContains[0]"]);
  });
});

describe("ListRegions NextToken integrity", () => {
  it.each<[string, (token: string) => string]>([
    ["its first character changed", (token) => replaceCharAt(token, 0)],
    ["its last character changed", (token) => replaceCharAt(token, -1)],
    ["a middle character changed", (token) => replaceCharAt(token, Math.floor(token.length / 2))],
    ["a character appended", (token) => `${token}A`],
    ["its last character removed", (token) => token.slice(0, -1)],
    ["a space appended", (token) => `${token} `],
    ["a character outside base64url inserted", (token) => `${token.slice(0, -1)}!${token.slice(-1)}`],
  ])("rejects a NextToken with %s", async (_label, tamper) => {
    const token = await firstToken({});
    const tampered = tamper(token);
    expect(tampered).not.toBe(token);
    const result = await accountCall(service, "ListRegions", { MaxResults: 3, NextToken: tampered });
    expectValidation(result, ["NextToken"]);
  });

  it.each([["not-a-token"], ["abc.def"], ["eHgtcmVnaW9uLTk5"], ["."], ["a.b.c"]])("rejects the made-up NextToken %j", async (token) => {
    expectValidation(await accountCall(service, "ListRegions", { NextToken: token }), ["NextToken"]);
  });

  it("rejects a NextToken issued for another account", async () => {
    const memberToken = await firstToken({ AccountId: "222222222222" });
    expectValidation(await accountCall(service, "ListRegions", { NextToken: memberToken }), ["NextToken"]);
    const ownToken = await firstToken({});
    expectValidation(await accountCall(service, "ListRegions", { AccountId: "222222222222", NextToken: ownToken }), ["NextToken"]);
  });

  it("rejects a NextToken issued for another filter", async () => {
    const filtered = await firstToken({ RegionOptStatusContains: ["DISABLED"] });
    expectValidation(await accountCall(service, "ListRegions", { NextToken: filtered }), ["NextToken"]);
    expectValidation(await accountCall(service, "ListRegions", { NextToken: filtered, RegionOptStatusContains: ["ENABLED"] }), ["NextToken"]);
    expectValidation(await accountCall(service, "ListRegions", { NextToken: filtered, RegionOptStatusContains: ["DISABLED", "ENABLED"] }), ["NextToken"]);
    const unfiltered = await firstToken({});
    expectValidation(await accountCall(service, "ListRegions", { NextToken: unfiltered, RegionOptStatusContains: ["DISABLED"] }), ["NextToken"]);
  });

  it("rejects a NextToken issued by another service instance", async () => {
    const result = await accountCall(small, "ListRegions", { MaxResults: 1 });
    expect(typeof result.json.NextToken).toBe("string");
    expectValidation(await accountCall(service, "ListRegions", { NextToken: result.json.NextToken }), ["NextToken"]);
  });

  it("still accepts the untampered NextToken after rejecting altered ones", async () => {
    const token = await firstToken({});
    expectValidation(await accountCall(service, "ListRegions", { MaxResults: 3, NextToken: replaceCharAt(token, 0) }), ["NextToken"]);
    const next = await accountCall(service, "ListRegions", { MaxResults: 3, NextToken: token });
    expect(next.status).toBe(200);
    expect(next.json.Regions).toEqual(SORTED.slice(3, 6));
  });
});
