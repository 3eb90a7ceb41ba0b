import { describe, expect, it } from "vitest";
import { contactBody, expectAccountError, expectEmptySuccess, expectValidation } from "../support/account-expect.js";
import { accountCall, accountCallFormB, call, type CallResult } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { regionCatalog, testWorld } from "../support/worlds.js";

type Form = "A" | "B";

const CATALOG = regionCatalog({
  "ap-east-1": "DISABLED",
  "af-south-1": "DISABLED",
  "me-south-1": "ENABLED",
  "me-central-1": "ENABLED",
  "eu-south-1": "ENABLING",
  "us-east-1": "ENABLED_BY_DEFAULT",
});

/** Each form works on its own contact type and Regions, so that the two never see each other's writes. */
const FIXTURES: Record<Form, { type: string; enable: string; disable: string }> = {
  A: { type: "BILLING", enable: "ap-east-1", disable: "me-south-1" },
  B: { type: "OPERATIONS", enable: "af-south-1", disable: "me-central-1" },
};

const { service } = useWorld({ world: testWorld({ regions: CATALOG, regionTransitionMs: 600_000 }) });

function send(form: Form, operation: string, body: unknown, token = "admin-token"): Promise<CallResult> {
  return form === "A" ? accountCall(service, operation, body, token) : accountCallFormB(service, operation, body, token);
}

describe.each<Form>(["A", "B"])("form %s", (form) => {
  const { type, enable, disable } = FIXTURES[form];

  it("serves PutAlternateContact", async () => {
    const body = contactBody({ AlternateContactType: type, Name: `put via form ${form}` });
    expectEmptySuccess(await send(form, "PutAlternateContact", body));
    expect((await accountCall(service, "GetAlternateContact", { AlternateContactType: type })).json).toEqual({ AlternateContact: body });
  });

  it("serves GetAlternateContact", async () => {
    const body = contactBody({ AlternateContactType: type, Name: `read via form ${form}` });
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", body));
    const result = await send(form, "GetAlternateContact", { AlternateContactType: type });
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(result.json).toEqual({ AlternateContact: body });
  });

  it("serves DeleteAlternateContact", async () => {
    expectEmptySuccess(await accountCall(service, "PutAlternateContact", contactBody({ AlternateContactType: type })));
    expectEmptySuccess(await send(form, "DeleteAlternateContact", { AlternateContactType: type }));
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: type }), 404, "ResourceNotFoundException");
  });

  it("serves ListRegions", async () => {
    const result = await send(form, "ListRegions", { MaxResults: 10 });
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(result.json.NextToken).toBeUndefined();
    expect(result.json.Regions.map((r: { RegionName: string }) => r.RegionName)).toEqual(CATALOG.map((r) => r.regionName).sort());
    // The standalone account's Regions never change in this file, so its filtered listing is fixed.
    const paged = await send(form, "ListRegions", { MaxResults: 1, RegionOptStatusContains: ["ENABLED_BY_DEFAULT", "ENABLING"] }, "standalone-token");
    expect(paged.json.Regions).toEqual([{ RegionName: "eu-south-1", RegionOptStatus: "ENABLING" }]);
    const next = await send(form, "ListRegions", { MaxResults: 1, RegionOptStatusContains: ["ENABLED_BY_DEFAULT", "ENABLING"], NextToken: paged.json.NextToken }, "standalone-token");
    expect(next.json).toEqual({ Regions: [{ RegionName: "us-east-1", RegionOptStatus: "ENABLED_BY_DEFAULT" }] });
  });

  it("serves GetRegionOptStatus", async () => {
    const result = await send(form, "GetRegionOptStatus", { RegionName: "us-east-1" });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ RegionName: "us-east-1", RegionOptStatus: "ENABLED_BY_DEFAULT" });
  });

  it("serves EnableRegion", async () => {
    expectEmptySuccess(await send(form, "EnableRegion", { RegionName: enable }));
    expect((await accountCall(service, "GetRegionOptStatus", { RegionName: enable })).json.RegionOptStatus).toBe("ENABLING");
  });

  it("serves DisableRegion", async () => {
    expectEmptySuccess(await send(form, "DisableRegion", { RegionName: disable }));
    expect((await accountCall(service, "GetRegionOptStatus", { RegionName: disable })).json.RegionOptStatus).toBe("DISABLING");
  });
});

describe("errors are the same in both forms", () => {
  it.each<[string, string, Record<string, unknown>, string, number, string]>([
    ["an invalid field", "PutAlternateContact", contactBody({ AlternateContactType: "Security" }), "admin-token", 400, "ValidationException"],
    ["an ENABLED_BY_DEFAULT Region", "EnableRegion", { RegionName: "us-east-1" }, "admin-token", 400, "ValidationException"],
    ["a missing contact", "GetAlternateContact", { AlternateContactType: "SECURITY" }, "standalone-token", 404, "ResourceNotFoundException"],
    ["a missing permission", "ListRegions", {}, "nothing-token", 403, "AccessDeniedException"],
    ["a foreign AccountId", "ListRegions", { AccountId: "444444444444" }, "admin-token", 403, "AccessDeniedException"],
    ["a Region mid-transition", "DisableRegion", { RegionName: "eu-south-1" }, "admin-token", 409, "ConflictException"],
  ])("refuses %s (%s) identically in both forms", async (_label, operation, body, token, status, errorType) => {
    const formA = await accountCall(service, operation, body, token);
    const formB = await accountCallFormB(service, operation, body, token);
    for (const result of [formA, formB]) expect({ status: result.status, errorType: result.errorType }).toEqual({ status, errorType });
    expect({ ...formB.json, message: undefined }).toEqual({ ...formA.json, message: undefined });
  });
});

describe("form B target header", () => {
  it.each([
    ["AccountService_20210201"],
    ["Foo_20210201"],
    ["20210201"],
    ["com.example.AccountService_20210201"],
    ["v20210201beta"],
  ])("accepts the prefix %s", async (prefix) => {
    const result = await accountCallFormB(service, "GetRegionOptStatus", { RegionName: "us-east-1" }, "admin-token", prefix);
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ RegionName: "us-east-1", RegionOptStatus: "ENABLED_BY_DEFAULT" });
  });

  it.each([
    ["a prefix with another date", "AccountService_20200101.ListRegions"],
    ["a prefix without a date", "AccountService.ListRegions"],
    ["a target without a prefix", "ListRegions"],
    ["an empty prefix", ".ListRegions"],
    ["an unknown operation", "AccountService_20210201.UnknownOperation"],
    ["an operation name in the wrong case", "AccountService_20210201.listRegions"],
    ["no operation name", "AccountService_20210201."],
    ["an empty header", ""],
  ])("rejects %s (%j) with a ValidationException naming X-Svc-Target", async (_label, target) => {
    const result = await call(service, "/", { body: {}, headers: { "x-svc-target": target } });
    expectValidation(result, ["X-Svc-Target"]);
  });

  it("rejects POST / without X-Svc-Target", async () => {
    expectValidation(await call(service, "/", { body: {} }), ["X-Svc-Target"]);
  });

  it("does not run the operation of a rejected target", async () => {
    await accountCall(service, "DeleteAlternateContact", { AlternateContactType: "SECURITY" });
    const result = await call(service, "/", { body: contactBody(), headers: { "x-svc-target": "AccountService_19990101.PutAlternateContact" } });
    expectValidation(result, ["X-Svc-Target"]);
    expectAccountError(await accountCall(service, "GetAlternateContact", { AlternateContactType: "SECURITY" }), 404, "ResourceNotFoundException");
  });

  it("accepts a form B body sent as application/x-amz-json-1.1", async () => {
    const result = await call(service, "/", {
      raw: JSON.stringify({ RegionName: "us-east-1" }),
      headers: { "x-svc-target": "AccountService_20210201.GetRegionOptStatus", "content-type": "application/x-amz-json-1.1" },
    });
    expect(result.status).toBe(200);
    expect(result.json.RegionOptStatus).toBe("ENABLED_BY_DEFAULT");
  });
});

describe("routing", () => {
  it.each<[string, "GET" | "POST" | "PUT" | "DELETE", string, Record<string, string>]>([
    ["POST /unknownOperation", "POST", "/unknownOperation", {}],
    ["GET /listRegions", "GET", "/listRegions", {}],
    ["PUT /putAlternateContact", "PUT", "/putAlternateContact", {}],
    ["DELETE /deleteAlternateContact", "DELETE", "/deleteAlternateContact", {}],
    ["POST /ListRegions (path in the wrong case)", "POST", "/ListRegions", {}],
    ["POST /listRegions/extra", "POST", "/listRegions/extra", {}],
    ["GET / with a valid X-Svc-Target", "GET", "/", { "x-svc-target": "AccountService_20210201.ListRegions" }],
  ])("rejects %s with a ValidationException", async (_label, method, path, headers) => {
    const result = await call(service, path, { method, headers, ...(method === "GET" ? {} : { body: {} }) });
    expectValidation(result, ["(path)"]);
  });
});
