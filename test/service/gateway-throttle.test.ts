import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi, createIntegration, createRoute, expectGatewayError, integrationBody } from "../support/gateway.js";
import { call, type CallOptions, type CallResult } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld, withAdministrators } from "../support/worlds.js";

/**
 * Request-rate limits (docs/manual/embedded-service.md: throttling): with a world throttle of 1 request per second and a
 * burst of 2 per identity and operation, the third rapid call of every gateway operation answers
 * 429 LimitExceededException with limitType "RequestRate" and Retry-After.
 */

/** An identity of its own for the per-identity checks. */
const OTHER_TOKEN = "other-token";
/** Setup identities: each makes at most one call per operation, so that setup is never throttled. */
const SETUP_TOKENS = Array.from({ length: 6 }, (_, i) => `setup-token-${i}`);
const { service } = useWorld({ world: withAdministrators(testWorld({ throttle: { ratePerSecond: 1, burst: 2 } }), [OTHER_TOKEN, ...SETUP_TOKENS]) });
let apiId: string;
let integrationId: string;
let routeIds: string[];
let integrationIds: string[];

beforeAll(async () => {
  // setup runs under identities of its own, so that the tested identity's buckets start full
  apiId = (await createApi(service, "HTTP", { token: SETUP_TOKENS[0] })).apiId;
  integrationId = (await createIntegration(service, apiId, "HTTP", {}, SETUP_TOKENS[0])).integrationId;
  routeIds = [];
  for (let i = 0; i < 3; i += 1) routeIds.push((await createRoute(service, apiId, { routeKey: `GET /r${i}` }, SETUP_TOKENS[i])).routeId);
  integrationIds = [];
  for (let i = 0; i < 3; i += 1) integrationIds.push((await createIntegration(service, apiId, "HTTP", {}, SETUP_TOKENS[i + 1])).integrationId);
});

function expectThrottled(result: CallResult): void {
  expectGatewayError(result, 429, "LimitExceededException", { limitType: "RequestRate" });
  expect(result.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
}

/** Every gateway operation; `nth` gives the request of the nth rapid call (DeleteRoute needs a fresh route each time). */
const OPERATIONS: ReadonlyArray<{ operation: string; nth: (n: number) => { path: string; options: CallOptions } }> = [
  { operation: "GetRoute", nth: () => ({ path: `/v2/apis/${apiId}/routes/${routeIds[0]}`, options: { method: "GET" } }) },
  { operation: "DeleteRoute", nth: (n) => ({ path: `/v2/apis/${apiId}/routes/${routeIds[n]}`, options: { method: "DELETE" } }) },
  { operation: "UpdateRoute", nth: () => ({ path: `/v2/apis/${apiId}/routes/${routeIds[2]}`, options: { method: "PATCH", body: { operationName: "x" } } }) },
  { operation: "GetIntegrations", nth: () => ({ path: `/v2/apis/${apiId}/integrations`, options: { method: "GET" } }) },
  { operation: "CreateIntegration", nth: () => ({ path: `/v2/apis/${apiId}/integrations`, options: { method: "POST", body: integrationBody("HTTP") } }) },
  { operation: "CreateApi", nth: (n) => ({ path: "/v2/apis", options: { method: "POST", body: { name: `t${n}`, protocolType: "HTTP" } } }) },
  { operation: "GetApis", nth: () => ({ path: "/v2/apis", options: { method: "GET" } }) },
  { operation: "GetApi", nth: () => ({ path: `/v2/apis/${apiId}`, options: { method: "GET" } }) },
  { operation: "CreateRoute", nth: (n) => ({ path: `/v2/apis/${apiId}/routes`, options: { method: "POST", body: { routeKey: `GET /new${n}` } } }) },
  { operation: "GetRoutes", nth: () => ({ path: `/v2/apis/${apiId}/routes`, options: { method: "GET" } }) },
  { operation: "GetIntegration", nth: () => ({ path: `/v2/apis/${apiId}/integrations/${integrationId}`, options: { method: "GET" } }) },
  { operation: "UpdateIntegration", nth: () => ({ path: `/v2/apis/${apiId}/integrations/${integrationId}`, options: { method: "PATCH", body: { description: "x" } } }) },
  { operation: "DeleteIntegration", nth: (n) => ({ path: `/v2/apis/${apiId}/integrations/${integrationIds[n]}`, options: { method: "DELETE" } }) },
];

describe("request rate", () => {
  it.each(OPERATIONS)("rejects the third rapid $operation with 429 LimitExceededException, limitType and Retry-After", async ({ nth }) => {
    const answers: CallResult[] = [];
    for (let n = 0; n < 3; n += 1) {
      const { path, options } = nth(n);
      answers.push(await call(service, path, options));
    }
    for (const answer of answers.slice(0, 2)) expect(answer.status, answer.text).toBeLessThan(300);
    expectThrottled(answers[2]!);
  });

  it("throttles per identity and per operation", async () => {
    const routePath = `/v2/apis/${apiId}/routes/${routeIds[2]}`;
    const answers: CallResult[] = [];
    for (let n = 0; n < 3; n += 1) answers.push(await call(service, routePath, { method: "GET", token: OTHER_TOKEN }));
    expectThrottled(answers[2]!);
    // the same identity's other operations, and the same operation for another identity, still answer
    expect((await call(service, `/v2/apis/${apiId}/routes?maxResults=1`, { method: "GET", token: OTHER_TOKEN })).status).toBe(200);
    expect((await call(service, routePath, { method: "GET", token: SETUP_TOKENS[5] })).status).toBe(200);
  });

  it("answers again once Retry-After has passed", async () => {
    const path = `/v2/apis/${apiId}/routes/${routeIds[2]}`;
    let throttled: CallResult | undefined;
    for (let n = 0; n < 4 && !throttled; n += 1) {
      const answer = await call(service, path, { method: "GET", token: OTHER_TOKEN });
      if (answer.status === 429) throttled = answer;
    }
    expect(throttled).toBeDefined();
    expectThrottled(throttled!);
    const retryAfterMs = Number(throttled!.headers["x-svc-retry-after-ms"] ?? Number(throttled!.headers["retry-after"]) * 1000);
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(Number(throttled!.headers["retry-after"]) * 1000);
    await sleep(retryAfterMs + 20);
    expect((await call(service, path, { method: "GET", token: OTHER_TOKEN })).status).toBe(200);
  });
});
