import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { contactBody, expectAccountError, expectEmptySuccess } from "../support/account-expect.js";
import { accountCall, call } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld } from "../support/worlds.js";

const MANAGEMENT = "111111111111";
const MEMBER = "222222222222";
const DELEGATED_ADMIN = "333333333333";
const STANDALONE = "444444444444";

const ORGANIZATION = {
  managementAccountId: MANAGEMENT,
  memberAccountIds: [MEMBER, DELEGATED_ADMIN],
  delegatedAdminAccountIds: [DELEGATED_ADMIN],
  allFeaturesEnabled: true,
  trustedAccess: true,
};

const { service } = useWorld();
const { service: withoutAllFeatures } = useWorld({ world: testWorld({ organization: { ...ORGANIZATION, allFeaturesEnabled: false } }) });
const { service: withoutTrustedAccess } = useWorld({ world: testWorld({ organization: { ...ORGANIZATION, trustedAccess: false } }) });

/** One request per operation, aimed at `accountId` when given (the cross-account form). */
function operationBodies(accountId?: string): Array<[string, Record<string, unknown>]> {
  const target = accountId === undefined ? {} : { AccountId: accountId };
  return [
    ["PutAlternateContact", contactBody({ ...target, AlternateContactType: "BILLING" })],
    ["GetAlternateContact", { ...target, AlternateContactType: "BILLING" }],
    ["DeleteAlternateContact", { ...target, AlternateContactType: "BILLING" }],
    ["ListRegions", { ...target }],
    ["GetRegionOptStatus", { ...target, RegionName: "ap-east-1" }],
    ["EnableRegion", { ...target, RegionName: "ap-east-1" }],
    ["DisableRegion", { ...target, RegionName: "me-south-1" }],
  ];
}

async function clearContact(target: RunningService, type: string, token: string): Promise<void> {
  const result = await accountCall(target, "DeleteAlternateContact", { AlternateContactType: type }, token);
  expect([200, 404]).toContain(result.status);
}

describe("default target account", () => {
  it("acts on the caller's own account when AccountId is omitted", async () => {
    await clearContact(service, "SECURITY", "member-token");
    const body = contactBody({ AlternateContactType: "SECURITY", Name: "Management's own" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    expect((await accountCall(service, "GetAlternateContact", { AlternateContactType: "SECURITY" })).json).toEqual({ AlternateContact: body });
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "SECURITY" }, "member-token"), 404, "ResourceNotFoundException");
    expectAccountError(await accountCall(service, "GetAlternateContact", { AccountId: MEMBER, AlternateContactType: "SECURITY" }), 404, "ResourceNotFoundException");
  });

  it("lets a standalone account act on itself without AccountId", async () => {
    const body = contactBody({ AlternateContactType: "OPERATIONS", Name: "Standalone ops" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body, "standalone-token"));
    expect((await accountCall(service, "GetAlternateContact", { AlternateContactType: "OPERATIONS" }, "standalone-token")).json).toEqual({ AlternateContact: body });
    const list = await accountCall(service, "ListRegions", {}, "standalone-token");
    expect(list.status).toBe(200);
    expect(list.json.Regions.length).toBe(8);
  });

  it.each(operationBodies(STANDALONE))("refuses %s from a standalone account passing its own AccountId", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "standalone-token"), 403, "AccessDeniedException");
  });

  it.each(operationBodies(MEMBER))("refuses %s from a standalone account passing an organization member's AccountId", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "standalone-token"), 403, "AccessDeniedException");
  });
});

describe("acting on a member account", () => {
  it("lets the management account put, read and delete a member's contact", async () => {
    await clearContact(service, "BILLING", "member-token");
    const body = contactBody({ AccountId: MEMBER, AlternateContactType: "BILLING", Name: "Set by management" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    const { AccountId: _target, ...stored } = body;
    expect((await accountCall(service, "GetAlternateContact", { AlternateContactType: "BILLING" }, "member-token")).json).toEqual({ AlternateContact: stored });
    expect((await accountCall(service, "GetAlternateContact", { AccountId: MEMBER, AlternateContactType: "BILLING" })).json).toEqual({ AlternateContact: stored });
    expectEmptySuccess(await accountCall(service, "DeleteAlternateContact", { AccountId: MEMBER, AlternateContactType: "BILLING" }));
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "BILLING" }, "member-token"), 404, "ResourceNotFoundException");
  });

  it("lets the management account list and change a member's Regions", async () => {
    const list = await accountCall(service, "ListRegions", { AccountId: MEMBER });
    expect(list.status).toBe(200);
    expect(list.json.Regions).toContainEqual({ RegionName: "af-south-1", RegionOptStatus: "DISABLED" });
    expectEmptySuccess(await accountCall(service, "EnableRegion", { AccountId: MEMBER, RegionName: "af-south-1" }));
    const status = await accountCall(service, "GetRegionOptStatus", { RegionName: "af-south-1" }, "member-token");
    expect(status.json.RegionOptStatus).toMatch(/^ENABL(ING|ED)$/);
  });

  it("lets the delegated administrator put a member's contact", async () => {
    await clearContact(service, "OPERATIONS", "member-token");
    const body = contactBody({ AccountId: MEMBER, AlternateContactType: "OPERATIONS", Name: "Set by delegated admin" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body, "delegated-token"));
    const { AccountId: _target, ...stored } = body;
    expect((await accountCall(service, "GetAlternateContact", { AlternateContactType: "OPERATIONS" }, "member-token")).json).toEqual({ AlternateContact: stored });
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "OPERATIONS" }, "delegated-token"), 404, "ResourceNotFoundException");
  });

  it.each(operationBodies(MEMBER))("lets the delegated administrator call %s on a member account", async (operation, body) => {
    if (operation === "GetAlternateContact" || operation === "DeleteAlternateContact") {
      expectEmptySuccess(await accountCall(service, "PutAlternateContact", contactBody({ AccountId: MEMBER, AlternateContactType: "BILLING" }), "delegated-token"));
    }
    const result = await accountCall(service, operation, body, "delegated-token");
    expect({ status: result.status, errorType: result.errorType }).toEqual({ status: 200, errorType: undefined });
  });

  it.each(operationBodies(DELEGATED_ADMIN))("refuses %s from a member that is not a delegated administrator passing another member's AccountId", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "member-token"), 403, "AccessDeniedException");
  });

  it.each(operationBodies(MEMBER))("refuses %s from a member that is not a delegated administrator passing its own AccountId", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "member-token"), 403, "AccessDeniedException");
  });

  it.each(operationBodies(MANAGEMENT))("refuses %s from the management account passing its own AccountId", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body), 403, "AccessDeniedException");
  });

  it.each(operationBodies(MANAGEMENT))("refuses %s from the delegated administrator aimed at the management account", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "delegated-token"), 403, "AccessDeniedException");
  });

  it.each<[string, string, string]>([
    ["the management account", "admin-token", STANDALONE],
    ["the delegated administrator", "delegated-token", STANDALONE],
    ["the management account", "admin-token", "999999999999"],
  ])("refuses %s targeting account %s outside the organization", async (_who, token, accountId) => {
    for (const [operation, body] of operationBodies(accountId)) {
      expectAccountError(await accountCall(service, operation, body, token), 403, "AccessDeniedException");
    }
  });

  it("writes nothing when a cross-account put is refused", async () => {
    await clearContact(service, "SECURITY", "delegated-token");
    const refused = await accountCall(service, "PutAlternateContact", contactBody({ AccountId: DELEGATED_ADMIN, AlternateContactType: "SECURITY" }), "member-token");
    expectAccountError(refused, 403, "AccessDeniedException");
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "SECURITY" }, "delegated-token"), 404, "ResourceNotFoundException");
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "SECURITY" }, "member-token"), 404, "ResourceNotFoundException");
  });
});

describe.each<[string, () => RunningService]>([
  ["an organization without all features enabled", () => withoutAllFeatures],
  ["an organization without trusted access", () => withoutTrustedAccess],
])("%s", (_label, target) => {
  it.each(operationBodies(MEMBER))("refuses %s from the management account on a member", async (operation, body) => {
    expectAccountError(await accountCall(target(), operation, body), 403, "AccessDeniedException");
  });

  it.each(operationBodies(MEMBER))("refuses %s from the delegated administrator on a member", async (operation, body) => {
    expectAccountError(await accountCall(target(), operation, body, "delegated-token"), 403, "AccessDeniedException");
  });

  it.each<[string, string]>([
    ["the management account", "admin-token"],
    ["a member account", "member-token"],
    ["the delegated administrator", "delegated-token"],
  ])("still lets %s act on itself", async (_who, token) => {
    const body = contactBody({ AlternateContactType: "SECURITY", Name: `self ${token}` });
    expectEmptySuccess(await accountCall(target(), "PutAlternateContact", body, token));
    expect((await accountCall(target(), "GetAlternateContact", { AlternateContactType: "SECURITY" }, token)).json).toEqual({ AlternateContact: body });
    const list = await accountCall(target(), "ListRegions", { MaxResults: 2 }, token);
    expect(list.status).toBe(200);
    expect(list.json.Regions).toHaveLength(2);
  });
});

describe("permissions", () => {
  it.each(operationBodies())("refuses %s from an identity with no permissions", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "nothing-token"), 403, "AccessDeniedException");
  });

  it.each([
    ["PutAlternateContact", contactBody()],
    ["DeleteAlternateContact", { AlternateContactType: "SECURITY" }],
    ["EnableRegion", { RegionName: "ap-east-1" }],
    ["DisableRegion", { RegionName: "me-south-1" }],
  ])("refuses %s from a read-only identity", async (operation, body) => {
    expectAccountError(await accountCall(service, operation, body, "reader-token"), 403, "AccessDeniedException");
  });

  it("refuses a read-only identity's put without writing it", async () => {
    await clearContact(service, "SECURITY", "member-token");
    expectAccountError(await accountCall(service, "PutAlternateContact", contactBody(), "reader-token"), 403, "AccessDeniedException");
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "SECURITY" }, "reader-token"), 404, "ResourceNotFoundException");
  });

  it.each<[string, Record<string, unknown>, number]>([
    ["ListRegions", {}, 200],
    ["GetRegionOptStatus", { RegionName: "us-east-1" }, 200],
  ])("lets a read-only identity call %s", async (operation, body, status) => {
    expect((await accountCall(service, operation, body, "reader-token")).status).toBe(status);
  });

  it("lets a read-only identity read its account's contact", async () => {
    const body = contactBody({ AlternateContactType: "BILLING", Name: "Readable" });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body, "member-token"));
    expect((await accountCall(service, "GetAlternateContact", { AlternateContactType: "BILLING" }, "reader-token")).json).toEqual({ AlternateContact: body });
  });
});

describe("authentication", () => {
  it.each<[string, Record<string, string>]>([
    ["a missing Authorization header", {}],
    ["a Basic Authorization header", { authorization: "Basic x" }],
    ["a Bearer scheme without a token", { authorization: "Bearer" }],
    ["a token without the Bearer scheme", { authorization: "admin-token" }],
    ["an unknown token", { authorization: "Bearer no-such-token" }],
    ["a token that differs in case", { authorization: "Bearer ADMIN-TOKEN" }],
  ])("refuses a request with %s", async (_label, headers) => {
    for (const [operation, body] of operationBodies()) {
      const path = `/${operation[0]!.toLowerCase()}${operation.slice(1)}`;
      expectAccountError(await call(service, path, { token: null, headers, body }), 403, "AccessDeniedException");
    }
  });
});
