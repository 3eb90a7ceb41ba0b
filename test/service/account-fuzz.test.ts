import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_OPERATIONS, type AccountOperationName } from "../../src/contract/account.js";
import { accountCall, call, type CallResult } from "../support/http.js";
import { useWorld } from "../support/world.js";

/**
 * Property: whatever arrives at an account operation (any JSON, any bytes, any content type, extra
 * headers, any X-Svc-Target, any credentials), the service with fault injection off never answers
 * 5xx, every error carries `x-svc-ErrorType` and a JSON body with a string `message` in the shape of
 * docs/manual/embedded-service.md (errors), and the service keeps answering.
 */

/** FUZZ_RUNS raises it for a longer local session. */
const RUNS_PER_PROPERTY = Number(process.env.FUZZ_RUNS ?? 500);
const OPERATIONS = Object.keys(ACCOUNT_OPERATIONS) as AccountOperationName[];
const READS = new Set<AccountOperationName>(["GetAlternateContact", "ListRegions", "GetRegionOptStatus"]);
const ERROR_TYPES_WITH_BODY_FIELD = new Set(["AccessDeniedException", "InternalServerException", "TooManyRequestsException", "ResourceNotFoundException"]);

const { service } = useWorld();
/** A NextToken the service really issued, so that edited copies of it reach the token check. */
let issuedNextToken: string;

beforeAll(async () => {
  const page = await accountCall(service, "ListRegions", { MaxResults: 1 });
  expect(page.status).toBe(200);
  issuedNextToken = page.json.NextToken;
  expect(typeof issuedNextToken).toBe("string");
});

// ---- values ---------------------------------------------------------------------------------

const printable = fc.string({ unit: "grapheme-ascii", maxLength: 40 });
const anyString = fc.oneof(
  printable,
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom("", " ", "\u0000", "\ud800", "null", "__proto__", "constructor", "a".repeat(1001), "😀".repeat(30)),
);

const WORLD_ACCOUNTS = ["111111111111", "222222222222", "333333333333", "444444444444"];
const accountId = fc.oneof(
  fc.constantFrom(...WORLD_ACCOUNTS),
  fc.stringMatching(/^\d{12}$/),
  fc.stringMatching(/^\d{0,14}$/),
  fc.constantFrom(" 222222222222", "222222222222\n", "２２２２２２２２２２２２"),
  anyString,
);
const contactType = fc.oneof(fc.constantFrom("BILLING", "OPERATIONS", "SECURITY", "billing", "Security", "BILLING "), anyString);
const email = fc.oneof(fc.emailAddress(), fc.constantFrom("a@b.c", " a@b.co ", "no-at-sign", `${"x".repeat(250)}@b.co`), anyString);
const phone = fc.oneof(fc.stringMatching(/^[\s0-9()+-]{1,30}$/), anyString);
const regionName = fc.oneof(
  fc.constantFrom("us-east-1", "us-west-2", "eu-west-1", "ap-east-1", "af-south-1", "me-south-1", "eu-south-1", "ap-south-2", "nowhere-1"),
  anyString,
);
const optStatus = fc.oneof(fc.constantFrom("ENABLED", "ENABLING", "DISABLING", "DISABLED", "ENABLED_BY_DEFAULT", "enabled"), anyString);
const maxResults = fc.oneof(fc.integer({ min: -5, max: 60 }), fc.double(), fc.constantFrom(0, 1, 50, 51, 1.5, -0, 1e308, "10", null));
/** A token the service issued, cut, extended or with one character replaced. */
const nextToken = fc.oneof(
  fc.constant(null).map(() => issuedNextToken),
  fc.tuple(fc.nat(), fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 })).map(([at, c]) => {
    const i = at % Math.max(1, issuedNextToken.length);
    return issuedNextToken.slice(0, i) + c + issuedNextToken.slice(i + 1);
  }),
  fc.nat().map((n) => issuedNextToken.slice(0, n % (issuedNextToken.length + 1))),
  fc.constant(null).map(() => `${issuedNextToken}.${issuedNextToken}`),
  anyString,
);

/** Some JSON value; deep enough to matter, small enough to stay fast. */
const jsonValue = fc.jsonValue({ maxDepth: 4 });
/** A real field value or anything at all. */
const field = <T>(plausible: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: jsonValue });

const FIELDS = {
  AccountId: field(accountId),
  AlternateContactType: field(contactType),
  EmailAddress: field(email),
  Name: field(anyString),
  PhoneNumber: field(phone),
  Title: field(anyString),
  MaxResults: field(maxResults),
  NextToken: field(nextToken),
  RegionOptStatusContains: field(fc.array(optStatus, { maxLength: 6 })),
  RegionName: field(regionName),
};

const FIELDS_OF: Record<AccountOperationName, ReadonlyArray<keyof typeof FIELDS>> = {
  PutAlternateContact: ["AccountId", "AlternateContactType", "EmailAddress", "Name", "PhoneNumber", "Title"],
  GetAlternateContact: ["AccountId", "AlternateContactType"],
  DeleteAlternateContact: ["AccountId", "AlternateContactType"],
  ListRegions: ["AccountId", "MaxResults", "NextToken", "RegionOptStatusContains"],
  GetRegionOptStatus: ["AccountId", "RegionName"],
  EnableRegion: ["AccountId", "RegionName"],
  DisableRegion: ["AccountId", "RegionName"],
};

/** An object with the operation's real field names (some missing), plus stray keys now and then. */
function fieldBody(operation: AccountOperationName): fc.Arbitrary<unknown> {
  const own = Object.fromEntries(FIELDS_OF[operation].map((name) => [name, FIELDS[name]]));
  return fc.tuple(
    fc.record(own, { requiredKeys: [] }),
    fc.dictionary(fc.oneof(fc.constantFrom(...Object.keys(FIELDS), "__proto__", "constructor", "toString", ""), printable), jsonValue, { maxKeys: 3 }),
    fc.boolean(),
  ).map(([known, stray, withStray]) => (withStray ? { ...stray, ...known } : known));
}

/** Arrays or objects nested `depth` deep around a 1, as JSON text. */
function nestedJson(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** Nesting deep enough to overflow recursive code that walks a parsed body: the whole body, or one of its fields. */
const deeplyNested = (operation: AccountOperationName) => fc.tuple(
  fc.constantFrom(10_000, 100_000),
  fc.constantFrom("array" as const, "object" as const),
  fc.option(fc.constantFrom(...FIELDS_OF[operation]), { nil: undefined }),
).map(([depth, kind, field]) => (field === undefined ? nestedJson(depth, kind) : `{"${field}":${nestedJson(depth, kind)}}`));

interface Payload {
  /** What is sent; undefined sends no body. */
  readonly raw: string | Buffer | undefined;
  readonly description: string;
}

/** Makes fast-check print a payload by its short description, not by its (possibly huge) bytes. */
function describedPayload(raw: string | Buffer | undefined, description: string): Payload {
  return { raw, description, [fc.toStringMethod]: () => description } as Payload;
}

function payload(operation: AccountOperationName): fc.Arbitrary<Payload> {
  const json = (value: unknown): Payload => {
    const text = JSON.stringify(value);
    return describedPayload(text, `json ${text === undefined ? "(nothing)" : text.slice(0, 300)}`);
  };
  return fc.oneof(
    { weight: 4, arbitrary: fieldBody(operation).map(json) },
    { weight: 2, arbitrary: fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }).map(json) },
    { weight: 1, arbitrary: jsonValue.map(json) },
    {
      weight: 1,
      arbitrary: fc.tuple(fieldBody(operation), fc.nat()).map(([value, cut]) => {
        const text = JSON.stringify(value);
        const raw = text.slice(0, cut % (text.length + 1));
        return describedPayload(raw, `truncated json ${raw.slice(0, 300)}`);
      }),
    },
    { weight: 1, arbitrary: anyString.map((raw) => describedPayload(raw, `string ${JSON.stringify(raw.slice(0, 300))}`)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => describedPayload(Buffer.from(bytes), `bytes ${Buffer.from(bytes).toString("hex").slice(0, 300)}`)) },
    { weight: 1, arbitrary: deeplyNested(operation).map((raw) => describedPayload(raw, `nested ${raw.slice(0, 20)}…${raw.slice(-12)} (${raw.length} chars)`)) },
    { weight: 1, arbitrary: fc.constant(describedPayload(undefined, "no body")) },
  );
}

/** Mostly JSON media types, so that most bodies reach the parser and the operation; else anything or none. */
const contentType = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/x-amz-json-1.1", "application/problem+json", "application/json; charset=latin1"),
  },
  { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", ";", "json", "application/jsonx") },
  { weight: 1, arbitrary: printable },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** Header names the service or the HTTP stack might look at, or random ones. */
const headerName = fc.oneof(
  fc.constantFrom("x-svc-target", "accept", "accept-encoding", "content-encoding", "x-amz-target", "x-forwarded-for", "x-svc-request-id", "cookie", "origin", "range", "x-http-method-override"),
  fc.stringMatching(/^x-[a-z0-9-]{1,16}$/),
);
const headerValue = fc.oneof(printable, fc.string({ unit: fc.constantFrom(..."abc \t\u0080\u00ff"), maxLength: 20 }));
const extraHeaders = fc.dictionary(headerName, headerValue, { maxKeys: 4 });

const WORLD_TOKENS = ["admin-token", "member-token", "delegated-token", "standalone-token", "reader-token", "nothing-token"];
/** The Authorization header, or undefined to send none. */
const authorization = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...WORLD_TOKENS).map((token) => `Bearer ${token}`) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      printable.map((token) => `Bearer ${token}`),
      fc.constantFrom(...WORLD_TOKENS).map((token) => `bearer   ${token}  `),
      fc.constantFrom(...WORLD_TOKENS).map((token) => `Basic ${token}`),
      fc.constantFrom("Bearer", "Bearer ", "", "Bearer admin-token extra"),
      printable,
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** X-Svc-Target values for form B: the real one, near misses, and noise. */
function svcTarget(operation: AccountOperationName): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(`AccountService_20210201.${operation}`) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        printable.map((prefix) => `${prefix}20210201.${operation}`),
        printable.map((prefix) => `${prefix}.${operation}`),
        fc.constantFrom(...OPERATIONS, "constructor", "__proto__", "hasOwnProperty", "").map((name) => `AccountService_20210201.${name}`),
        fc.constant(`AccountService_20210201.${operation.toLowerCase()}`),
        fc.constant(`AccountService_20210201.${operation}.`),
        fc.constantFrom("20210201", "20210201.", `.${operation}`, operation, "", "."),
        printable,
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** A query string or trailing slash after the path, which must not change the outcome's shape. */
const pathSuffix = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.oneof(fc.constant("/"), fc.constant("?"), printable.map((q) => `?${encodeURIComponent(q)}=${encodeURIComponent(q)}`)) },
);

interface FuzzRequest {
  /** The operation the request names: its own, or the one its X-Svc-Target names. */
  readonly operation: AccountOperationName;
  readonly path: string;
  readonly payload: Payload;
  readonly headers: Record<string, string>;
}

function request(operation: AccountOperationName, form: "A" | "B"): fc.Arbitrary<FuzzRequest> {
  const base = form === "A" ? ACCOUNT_OPERATIONS[operation].path : "/";
  return fc.record({
    suffix: pathSuffix,
    payload: payload(operation),
    contentType,
    extra: extraHeaders,
    authorization,
    target: form === "B" ? svcTarget(operation) : fc.constant(undefined),
  }).map(({ suffix, payload, contentType, extra, authorization, target }) => {
    const headers: Record<string, string> = { ...extra };
    if (form === "B") delete headers["x-svc-target"];
    if (contentType !== undefined) headers["content-type"] = contentType;
    if (authorization !== undefined) headers.authorization = authorization;
    if (target !== undefined) headers["x-svc-target"] = target;
    return { operation: namedOperation(target) ?? operation, path: base + suffix, payload, headers };
  });
}

/** The operation an X-Svc-Target `<prefix>.<Operation>` names, when it names one. */
function namedOperation(target: string | undefined): AccountOperationName | undefined {
  const name = target?.slice(target.lastIndexOf(".") + 1);
  return OPERATIONS.find((operation) => operation === name);
}

// ---- the property ---------------------------------------------------------------------------

/** Every way the answer breaks the error contract; empty when it keeps it. */
function contractBreaches(operation: AccountOperationName, answer: CallResult): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status} with fault injection off`);
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.status !== 200) problems.push(`success status ${answer.status}: expected 200`);
    if (READS.has(operation) && (typeof answer.json !== "object" || answer.json === null)) problems.push(`a ${operation} success must have a JSON object body, got ${JSON.stringify(answer.text.slice(0, 200))}`);
    if (!READS.has(operation) && answer.text !== "") problems.push(`a ${operation} success must have an empty body, got ${JSON.stringify(answer.text.slice(0, 200))}`);
    return problems;
  }
  if (answer.status < 400) {
    problems.push(`unexpected status ${answer.status}`);
    return problems;
  }
  if (!answer.errorType) problems.push("error without an x-svc-ErrorType header");
  const body = answer.json as Record<string, unknown> | undefined;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    problems.push(`error body is not a JSON object: ${JSON.stringify(answer.text.slice(0, 200))}`);
    return problems;
  }
  if (typeof body.message !== "string") problems.push(`error body has no string message: ${answer.text.slice(0, 200)}`);
  if (answer.errorType === "ValidationException") {
    if (answer.status !== 400) problems.push(`ValidationException with status ${answer.status}`);
    if (body.reason !== "fieldValidationFailed" && body.reason !== "invalidRegionOptTarget") problems.push(`ValidationException reason ${JSON.stringify(body.reason)}`);
    const fields = body.fieldList;
    if (!Array.isArray(fields) || fields.length === 0 || !fields.every((f) => typeof f?.name === "string" && typeof f?.message === "string")) {
      problems.push(`ValidationException fieldList is not a non-empty list of {name, message}: ${JSON.stringify(fields)}`);
    }
  } else if (answer.errorType !== undefined && ERROR_TYPES_WITH_BODY_FIELD.has(answer.errorType) && body.errorType !== answer.errorType) {
    problems.push(`body errorType ${JSON.stringify(body.errorType)} differs from the header ${answer.errorType}`);
  }
  return problems;
}

async function send(fuzz: FuzzRequest): Promise<CallResult> {
  return call(service, fuzz.path, { token: null, headers: fuzz.headers, ...(fuzz.payload.raw !== undefined ? { raw: fuzz.payload.raw } : {}) });
}

describe("account service under fuzzed requests", () => {
  for (const operation of OPERATIONS) {
    for (const form of ["A", "B"] as const) {
      it(`never answers 5xx and always answers errors in the contract's shape: ${operation}, form ${form}`, async () => {
        await fc.assert(
          fc.asyncProperty(request(operation, form), async (fuzz) => {
            const answer = await send(fuzz);
            const problems = contractBreaches(fuzz.operation, answer);
            if (problems.length > 0) {
              throw new Error(`POST ${fuzz.path} headers ${JSON.stringify(fuzz.headers)} body ${fuzz.payload.description}\n` +
                `answered ${answer.status} ${answer.errorType ?? ""} ${answer.text.slice(0, 300)}\n  - ${problems.join("\n  - ")}`);
            }
          }),
          { numRuns: RUNS_PER_PROPERTY },
        );
      });
    }
  }

  // The same inputs as the property's deeply nested payloads, as fixed cases, so that a failure names them.
  for (const operation of OPERATIONS) {
    it(`rejects a body nested 10,000 arrays deep with a 400, not a 500: ${operation}`, async () => {
      const answer = await call(service, ACCOUNT_OPERATIONS[operation].path, { raw: nestedJson(10_000, "array"), headers: { "content-type": "application/json" } });
      expect({ status: answer.status, errorType: answer.errorType }).toEqual({ status: 400, errorType: "ValidationException" });
      expect(answer.json.fieldList).toEqual([expect.objectContaining({ name: "(body)" })]);
    });
  }

  it("rejects a field nested 10,000 arrays deep with a 400 naming the field, not a 500", async () => {
    const answer = await call(service, "/listRegions", { raw: `{"MaxResults":${nestedJson(10_000, "array")}}`, headers: { "content-type": "application/json" } });
    expect({ status: answer.status, errorType: answer.errorType }).toEqual({ status: 400, errorType: "ValidationException" });
    expect(answer.json.fieldList).toEqual([expect.objectContaining({ name: "MaxResults" })]);
  });

  it("still answers a valid ListRegions after the fuzzing", async () => {
    const answer = await accountCall(service, "ListRegions", { MaxResults: 50 });
    expect(answer.status).toBe(200);
    expect(answer.json.Regions.map((r: { RegionName: string }) => r.RegionName)).toEqual(
      ["af-south-1", "ap-east-1", "ap-south-2", "eu-south-1", "eu-west-1", "me-south-1", "us-east-1", "us-west-2"],
    );
  });
});
