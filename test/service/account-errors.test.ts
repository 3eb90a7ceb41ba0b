import { describe, expect, it } from "vitest";
import { Readable } from "node:stream";
import { request } from "undici";
import type { RunningService } from "../../src/service/index.js";
import { contactBody, expectAccountError, expectEmptySuccess, expectValidation, pollUntil } from "../support/account-expect.js";
import { accountCall, accountCallFormB, call, type CallResult } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld } from "../support/worlds.js";

const MAX_BODY_BYTES = 1024 * 1024;

const { service } = useWorld();
const { service: throttled } = useWorld({ world: testWorld({ throttle: { ratePerSecond: 1, burst: 2 } }) });
const { service: faulty } = useWorld({ faults: { errorRate: 1 } });

/** One valid request per operation. */
const EVERY_OPERATION: Array<[string, Record<string, unknown>]> = [
  ["PutAlternateContact", contactBody()],
  ["GetAlternateContact", { AlternateContactType: "SECURITY" }],
  ["DeleteAlternateContact", { AlternateContactType: "SECURITY" }],
  ["ListRegions", {}],
  ["GetRegionOptStatus", { RegionName: "us-east-1" }],
  ["EnableRegion", { RegionName: "ap-east-1" }],
  ["DisableRegion", { RegionName: "me-south-1" }],
];

async function expectStillAnswers(target: RunningService = service): Promise<void> {
  const result = await accountCall(target, "ListRegions", { MaxResults: 1 });
  expect(result.status).toBe(200);
  expect(result.json.Regions).toEqual([{ RegionName: "af-south-1", RegionOptStatus: "DISABLED" }]);
}

/** Sends a body in chunks without Content-Length (chunked transfer encoding). */
async function callStreamed(target: RunningService, path: string, chunk: Buffer, count: number): Promise<CallResult> {
  async function* chunks() {
    for (let i = 0; i < count; i += 1) yield chunk;
  }
  const response = await request(target.url + path, {
    method: "POST",
    headers: { authorization: "Bearer admin-token", "content-type": "application/json" },
    body: Readable.from(chunks()),
  });
  const text = await response.body.text();
  const errorType = response.headers["x-svc-errortype"];
  return { status: response.statusCode, headers: response.headers, text, json: text ? JSON.parse(text) : undefined, errorType: Array.isArray(errorType) ? errorType[0] : errorType };
}

describe("errors of spec section 7", () => {
  it.each<[string, () => Promise<CallResult>]>([
    ["a missing permission", () => accountCall(service, "ListRegions", {}, "nothing-token")],
    ["an unknown token", () => accountCall(service, "ListRegions", {}, "who-is-this")],
    ["no credentials", () => accountCall(service, "PutAlternateContact", contactBody(), null)],
    ["a forbidden AccountId", () => accountCall(service, "ListRegions", { AccountId: "444444444444" })],
  ])("refuses a call with %s: AccessDeniedException 403, errorType equal to the header", async (_label, send) => {
    const result = await send();
    expectAccountError(result, 403, "AccessDeniedException");
    expect(result.json.errorType).toBe(result.errorType);
  });

  it("rejects an invalid input with ValidationException 400 carrying message, reason and fieldList", async () => {
    const result = await accountCall(service, "PutAlternateContact", contactBody({ Title: "t".repeat(51) }));
    expectValidation(result, ["Title"]);
    expect(result.json.reason).toBe("fieldValidationFailed");
    expect(result.json.message).toContain("Title");
    expect(result.json.fieldList[0].message).toContain("Title");
  });

  it("refuses calls beyond the throttle with TooManyRequestsException 429 and Retry-After", async () => {
    const results: CallResult[] = [];
    for (let i = 0; i < 3; i += 1) results.push(await accountCall(throttled, "ListRegions", { MaxResults: 1 }));
    expect(results.map((r) => r.status)).toEqual([200, 200, 429]);
    const limited = results[2]!;
    expectAccountError(limited, 429, "TooManyRequestsException");
    expect(limited.json.errorType).toBe(limited.errorType);
    expect(limited.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(2);
  });

  it("throttles per identity and per operation", async () => {
    for (let i = 0; i < 3; i += 1) await accountCall(throttled, "GetRegionOptStatus", { RegionName: "us-east-1" }, "delegated-token");
    expectAccountError(await accountCall(throttled, "GetRegionOptStatus", { RegionName: "us-east-1" }, "delegated-token"), 429, "TooManyRequestsException");
    expect((await accountCall(throttled, "GetRegionOptStatus", { RegionName: "us-east-1" }, "standalone-token")).status).toBe(200);
    expect((await accountCall(throttled, "ListRegions", {}, "delegated-token")).status).toBe(200);
  });

  it("does not apply a throttled write, and accepts calls again once the bucket refills", async () => {
    const names = ["first", "second", "third"];
    const statuses: number[] = [];
    for (const name of names) statuses.push((await accountCall(throttled, "PutAlternateContact", contactBody({ Name: name }), "standalone-token")).status);
    expect(statuses).toEqual([200, 200, 429]);
    const read = await accountCall(throttled, "GetAlternateContact", { AlternateContactType: "SECURITY" }, "standalone-token");
    expect(read.json.AlternateContact.Name).toBe("second");
    const { value } = await pollUntil(
      () => accountCall(throttled, "PutAlternateContact", contactBody({ Name: "later" }), "standalone-token"),
      (result) => result.status !== 429,
      { timeoutMs: 5_000, intervalMs: 100 },
    );
    expectEmptySuccess(value);
  });

  it.each(EVERY_OPERATION)("refuses %s with InternalServerException 500 when the service fails", async (operation, body) => {
    const result = await accountCall(faulty, operation, body);
    expectAccountError(result, 500, "InternalServerException");
    expect(result.json.errorType).toBe(result.errorType);
  });

  it.each<[string, Record<string, unknown>]>([
    ["GetAlternateContact", { AlternateContactType: "BILLING" }],
    ["DeleteAlternateContact", { AlternateContactType: "BILLING" }],
  ])("refuses %s of a missing contact with ResourceNotFoundException 404", async (operation, body) => {
    const result = await accountCall(service, operation, body, "member-token");
    expectAccountError(result, 404, "ResourceNotFoundException");
    expect(result.json.errorType).toBe(result.errorType);
  });

  it.each<[string, string]>([
    ["EnableRegion", "ap-south-2"],
    ["DisableRegion", "eu-south-1"],
  ])("refuses %s of a Region mid-transition the other way (%s) with ConflictException 409", async (operation, regionName) => {
    const result = await accountCall(service, operation, { RegionName: regionName });
    expectAccountError(result, 409, "ConflictException");
    expect(result.json.errorType).toBe(result.errorType);
  });
});

describe("malformed request bodies", () => {
  const MALFORMED: Array<[string, string, string | undefined]> = [
    ["malformed JSON", "{", "application/json"],
    ["truncated JSON", '{"MaxResults": 5', "application/json"],
    ["single-quoted JSON", "{'MaxResults': 5}", "application/json"],
    ["JSON with a trailing comma", '{"MaxResults": 5,}', "application/json"],
    ["a JSON array", "[]", "application/json"],
    ["a JSON array of objects", '[{"MaxResults": 1}]', "application/json"],
    ["a JSON string", '"ListRegions"', "application/json"],
    ["a JSON number", "42", "application/json"],
    ["JSON true", "true", "application/json"],
    ["JSON null", "null", "application/json"],
    ["a JSON body sent as text/plain", '{"MaxResults": 5}', "text/plain"],
    ["a JSON body sent as application/xml", '{"MaxResults": 5}', "application/xml"],
    ["a form-encoded body", "MaxResults=5", "application/x-www-form-urlencoded"],
    ["a JSON body without Content-Type", '{"MaxResults": 5}', undefined],
  ];

  it.each(MALFORMED.flatMap(([label, raw, contentType]) => [
    ["/listRegions", label, raw, contentType],
    ["/putAlternateContact", label, raw, contentType],
  ] as Array<[string, string, string, string | undefined]>))("rejects POST %s with %s as a ValidationException, and keeps answering", async (path, _label, raw, contentType) => {
    const result = await call(service, path, { raw, headers: contentType === undefined ? {} : { "content-type": contentType } });
    expectValidation(result, ["(body)"]);
    await expectStillAnswers();
  });

  it.each(MALFORMED)("rejects form B with %s as a ValidationException", async (_label, raw, contentType) => {
    const headers: Record<string, string> = { "x-svc-target": "AccountService_20210201.ListRegions" };
    if (contentType !== undefined) headers["content-type"] = contentType;
    expectValidation(await call(service, "/", { raw, headers }), ["(body)"]);
  });

  it("rejects a body over 1 MiB with a Content-Length as a ValidationException, and keeps answering", async () => {
    const raw = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    raw.write('{"MaxResults": 1}');
    const result = await call(service, "/listRegions", { raw, headers: { "content-type": "application/json" } });
    expectValidation(result, ["(body)"]);
    await expectStillAnswers();
  });

  it("rejects a chunked body over 1 MiB as a ValidationException, and keeps answering", async () => {
    const result = await callStreamed(service, "/putAlternateContact", Buffer.alloc(64 * 1024, 0x20), 40);
    expectValidation(result, ["(body)"]);
    await expectStillAnswers();
  });

  it("accepts a body of exactly 1 MiB", async () => {
    const raw = Buffer.alloc(MAX_BODY_BYTES, 0x20);
    raw.write('{"MaxResults": 1}');
    const result = await call(service, "/listRegions", { raw, headers: { "content-type": "application/json" } });
    expect(result.status).toBe(200);
    expect(result.json.Regions).toHaveLength(1);
  });

  it.each<[string, () => Promise<CallResult>]>([
    ["without Content-Type", () => call(service, "/listRegions")],
    ["with Content-Type application/json", () => call(service, "/listRegions", { raw: "", headers: { "content-type": "application/json" } })],
    ["in form B", () => call(service, "/", { headers: { "x-svc-target": "AccountService_20210201.ListRegions" } })],
  ])("accepts an empty ListRegions body %s and lists every Region", async (_label, send) => {
    const result = await send();
    expect(result.status).toBe(200);
    expect(result.json.NextToken).toBeUndefined();
    expect(result.json.Regions.map((r: { RegionName: string }) => r.RegionName)).toEqual([
      "af-south-1", "ap-east-1", "ap-south-2", "eu-south-1", "eu-west-1", "me-south-1", "us-east-1", "us-west-2",
    ]);
  });

  it("rejects an empty body in form B for an operation with required fields, naming each", async () => {
    const result = await accountCallFormB(service, "GetRegionOptStatus", undefined);
    expectValidation(result, ["RegionName"]);
  });
});
