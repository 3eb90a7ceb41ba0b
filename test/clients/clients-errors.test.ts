import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  AbortedError,
  AmbiguousWriteError,
  ApiError,
  collect,
  ContractViolationError,
  CredentialsError,
  isAborted,
  isAmbiguousWrite,
  isApiError,
  isConflict,
  isContractViolation,
  isConvergeError,
  isCredentialsError,
  isNotFound,
  isThrottled,
  isTransportError,
  TransportError,
  type Clients,
} from "../../src/clients/index.js";
import { answer, type ForeignServer, rejectionOf, SEEDED_API_ID, seededWorld, startForeignServer } from "./client-fixtures.js";
import { clientsFor, useWorld } from "../support/world.js";

/** Every guard applied to one value, so that a test can assert exactly which ones hold. */
function guards(value: unknown) {
  return {
    isConvergeError: isConvergeError(value),
    isApiError: isApiError(value),
    isNotFound: isNotFound(value),
    isConflict: isConflict(value),
    isThrottled: isThrottled(value),
    isAmbiguousWrite: isAmbiguousWrite(value),
    isContractViolation: isContractViolation(value),
    isTransportError: isTransportError(value),
    isAborted: isAborted(value),
    isCredentialsError: isCredentialsError(value),
  };
}

const NO_GUARD = {
  isConvergeError: false, isApiError: false, isNotFound: false, isConflict: false, isThrottled: false,
  isAmbiguousWrite: false, isContractViolation: false, isTransportError: false, isAborted: false, isCredentialsError: false,
};

/** The fields of an ApiError that tests compare. */
function apiFields(error: unknown) {
  expect(isApiError(error), String(error)).toBe(true);
  const e = error as ApiError;
  return { code: e.code, name: e.name, service: e.service, operation: e.operation, status: e.status, errorName: e.errorName };
}

describe("typed errors of the service's answers", () => {
  const { service, clients: admin } = useWorld({ world: seededWorld() });

  test("rejects an invalid PutAlternateContact with ValidationException naming every invalid field, sent once", async () => {
    const before = service.requests.count({ operation: "PutAlternateContact" });
    const error = await rejectionOf(admin.account.putAlternateContact({
      AlternateContactType: "BILLING", Name: "Billing", Title: "Accounts", EmailAddress: "not-an-email", PhoneNumber: "call me maybe",
    }));

    expect(apiFields(error)).toEqual({ code: "CONVERGE_API_ERROR", name: "ApiError", service: "account", operation: "PutAlternateContact", status: 400, errorName: "ValidationException" });
    const e = error as ApiError;
    expect(e.reason).toBe("fieldValidationFailed");
    expect(e.fieldList?.map((field) => field.name).sort()).toEqual(["EmailAddress", "PhoneNumber"]);
    for (const field of e.fieldList ?? []) expect(field.message.length).toBeGreaterThan(0);
    expect(e.serviceMessage).toMatch(/2 validation errors detected/);
    expect(e.message).toBe(`account PutAlternateContact failed: 400 ValidationException: ${e.serviceMessage}`);
    expect(e.requestId).toMatch(/^[0-9a-f]{8}-\d+$/);
    expect({ resourceType: e.resourceType, limitType: e.limitType }).toEqual({ resourceType: undefined, limitType: undefined });
    expect(guards(error)).toEqual({ ...NO_GUARD, isConvergeError: true, isApiError: true });
    expect(error).toBeInstanceOf(ApiError);
    // a validation error is never retried
    expect(service.requests.count({ operation: "PutAlternateContact" }) - before).toBe(1);
  });

  test("rejects EnableRegion of an ENABLED_BY_DEFAULT Region with reason invalidRegionOptTarget", async () => {
    const error = await rejectionOf(admin.account.enableRegion({ RegionName: "us-east-1" }));
    expect(apiFields(error)).toMatchObject({ service: "account", operation: "EnableRegion", status: 400, errorName: "ValidationException" });
    expect((error as ApiError).reason).toBe("invalidRegionOptTarget");
  });

  test("rejects EnableRegion of a Region that is DISABLING with a ConflictException (isConflict)", async () => {
    const error = await rejectionOf(admin.account.enableRegion({ RegionName: "ap-south-2" }));
    expect(apiFields(error)).toMatchObject({ service: "account", status: 409, errorName: "ConflictException" });
    expect(guards(error)).toEqual({ ...NO_GUARD, isConvergeError: true, isApiError: true, isConflict: true });
  });

  test("refuses a caller without permission with AccessDeniedException, not retried", async () => {
    const nothing = clientsFor(service, "nothing-token");
    try {
      const before = service.requests.count({ operation: "ListRegions", status: 403 });
      const error = await rejectionOf(collect(nothing.account.listRegions()));
      expect(apiFields(error)).toEqual({ code: "CONVERGE_API_ERROR", name: "ApiError", service: "account", operation: "ListRegions", status: 403, errorName: "AccessDeniedException" });
      expect((error as ApiError).serviceMessage).toMatch(/not authorized to perform account:ListRegions/);
      expect(service.requests.count({ operation: "ListRegions", status: 403 }) - before).toBe(1);

      const gatewayError = await rejectionOf(nothing.gateway.getApi(SEEDED_API_ID));
      expect(apiFields(gatewayError)).toMatchObject({ service: "apigateway", operation: "GetApi", status: 403, errorName: "AccessDeniedException" });
    } finally {
      await nothing.close();
    }
  });

  test("refuses an unknown token with AccessDeniedException", async () => {
    const stranger = clientsFor(service, "no-such-token");
    try {
      const error = await rejectionOf(stranger.gateway.getApi(SEEDED_API_ID));
      expect(apiFields(error)).toMatchObject({ status: 403, errorName: "AccessDeniedException" });
      expect((error as ApiError).serviceMessage).toBe("the security token included in the request is invalid");
    } finally {
      await stranger.close();
    }
  });

  test("rejects a listing of a missing API with NotFoundException carrying resourceType Api", async () => {
    const error = await rejectionOf(collect(admin.gateway.routes("missing000")));
    expect(apiFields(error)).toEqual({ code: "CONVERGE_API_ERROR", name: "ApiError", service: "apigateway", operation: "GetRoutes", status: 404, errorName: "NotFoundException" });
    expect((error as ApiError).resourceType).toBe("Api");
    expect(isNotFound(error)).toBe(true);
    expect(isNotFound(error, "Api")).toBe(true);
    expect(isNotFound(error, "Route")).toBe(false);
    // a single-resource read answers undefined only for its own resource; a missing parent API is an error
    const parentMissing = await rejectionOf(admin.gateway.getRoute("missing000", "route00001"));
    expect(apiFields(parentMissing)).toMatchObject({ operation: "GetRoute", status: 404 });
    expect((parentMissing as ApiError).resourceType).toBe("Api");
  });

  test("rejects an invalid CreateRoute with BadRequestException: an ApiError, not an ambiguous write, sent once", async () => {
    const before = service.requests.count({ operation: "CreateRoute" });
    const error = await rejectionOf(admin.gateway.createRoute(SEEDED_API_ID, { routeKey: "get /orders" }));
    expect(apiFields(error)).toMatchObject({ service: "apigateway", operation: "CreateRoute", status: 400, errorName: "BadRequestException" });
    expect((error as ApiError).serviceMessage).toContain("routeKey");
    expect(isAmbiguousWrite(error)).toBe(false);
    expect(service.requests.count({ operation: "CreateRoute" }) - before).toBe(1);
  });

  test("rejects a duplicate route key and the deletion of a managed integration with ConflictException", async () => {
    await admin.gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /duplicate" });
    const duplicate = await rejectionOf(admin.gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /duplicate" }));
    expect(apiFields(duplicate)).toMatchObject({ operation: "CreateRoute", status: 409, errorName: "ConflictException" });
    expect(isConflict(duplicate)).toBe(true);

    const managed = (await collect(admin.gateway.integrations(SEEDED_API_ID))).find((item) => item.apiGatewayManaged === true)!;
    const protectedDelete = await rejectionOf(admin.gateway.deleteIntegration(SEEDED_API_ID, managed.integrationId));
    expect(apiFields(protectedDelete)).toMatchObject({ operation: "DeleteIntegration", status: 409, errorName: "ConflictException" });
  });

  test("guards hold across duplicate installs (by brand and code) and never for look-alikes", () => {
    const brand = Symbol.for("converge.error");
    const fromAnotherCopy = { [brand]: true, code: "CONVERGE_API_ERROR", status: 404, resourceType: "Route" };
    expect(isApiError(fromAnotherCopy)).toBe(true);
    expect(isNotFound(fromAnotherCopy, "Route")).toBe(true);
    const lookAlike = Object.assign(new Error("api error"), { code: "CONVERGE_API_ERROR", status: 404 });
    expect(guards(lookAlike)).toEqual(NO_GUARD);
    for (const value of [undefined, null, "CONVERGE_API_ERROR", 404, {}]) expect(guards(value)).toEqual(NO_GUARD);
  });

  test("every error class has a stable code and name", () => {
    const api = new ApiError({ service: "account", operation: "GetAlternateContact", status: 404, errorName: "ResourceNotFoundException", message: "none" });
    const transport = new TransportError("apigateway", "GetRoute", "ECONNRESET", "socket hang up", true);
    const table = [
      [api, "CONVERGE_API_ERROR", "ApiError"],
      [new AmbiguousWriteError("apigateway", "CreateRoute", transport), "CONVERGE_AMBIGUOUS_WRITE", "AmbiguousWriteError"],
      [new ContractViolationError("apigateway", "GetRoute", ["routeId is required"]), "CONVERGE_CONTRACT_VIOLATION", "ContractViolationError"],
      [transport, "CONVERGE_TRANSPORT", "TransportError"],
      [new AbortedError("apigateway GetRoute"), "CONVERGE_ABORTED", "AbortedError"],
      [new CredentialsError("no token"), "CONVERGE_CREDENTIALS", "CredentialsError"],
    ] as const;
    for (const [error, code, name] of table) {
      expect({ code: error.code, name: error.name, convergeError: isConvergeError(error), isError: error instanceof Error }).toEqual({ code, name, convergeError: true, isError: true });
    }
    expect(guards(table[1][0])).toEqual({ ...NO_GUARD, isConvergeError: true, isAmbiguousWrite: true });
    expect(guards(table[2][0])).toEqual({ ...NO_GUARD, isConvergeError: true, isContractViolation: true });
    expect(guards(table[3][0])).toEqual({ ...NO_GUARD, isConvergeError: true, isTransportError: true });
    expect(guards(table[4][0])).toEqual({ ...NO_GUARD, isConvergeError: true, isAborted: true });
    expect(guards(table[5][0])).toEqual({ ...NO_GUARD, isConvergeError: true, isCredentialsError: true });
    expect(guards(api)).toEqual({ ...NO_GUARD, isConvergeError: true, isApiError: true, isNotFound: true });
  });
});

describe("throttling and server errors that outlast the retries", () => {
  const { service: throttled } = useWorld({ world: seededWorld({ throttle: { ratePerSecond: 0.5, burst: 1 } }) });
  const { service: failing } = useWorld({ world: seededWorld(), faults: { errorRate: 1 } });

  test("rejects with LimitExceededException (limitType RequestRate) and TooManyRequestsException when maxAttempts is 1", async () => {
    const clients = clientsFor(throttled, "admin-token", { retry: { maxAttempts: 1 } });
    try {
      await clients.gateway.getApi(SEEDED_API_ID);
      const gatewayError = await rejectionOf(clients.gateway.getApi(SEEDED_API_ID));
      expect(apiFields(gatewayError)).toEqual({ code: "CONVERGE_API_ERROR", name: "ApiError", service: "apigateway", operation: "GetApi", status: 429, errorName: "LimitExceededException" });
      expect((gatewayError as ApiError).limitType).toBe("RequestRate");
      expect(guards(gatewayError)).toEqual({ ...NO_GUARD, isConvergeError: true, isApiError: true, isThrottled: true });

      await clients.account.getRegionOptStatus({ RegionName: "us-east-1" });
      const accountError = await rejectionOf(clients.account.getRegionOptStatus({ RegionName: "us-east-1" }));
      expect(apiFields(accountError)).toMatchObject({ service: "account", status: 429, errorName: "TooManyRequestsException" });

      // a create answered 429 was certainly not applied: a plain ApiError, never an ambiguous write
      await clients.gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /first" });
      const createError = await rejectionOf(clients.gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /second" }));
      expect(apiFields(createError)).toMatchObject({ operation: "CreateRoute", status: 429 });
      expect(isAmbiguousWrite(createError)).toBe(false);
    } finally {
      await clients.close();
    }
  });

  test("rejects a read with the last 500 after maxAttempts attempts, and a create with AmbiguousWriteError after one", async () => {
    const clients = clientsFor(failing, "admin-token", { retry: { maxAttempts: 3, baseDelayMs: 1 } });
    try {
      const readError = await rejectionOf(clients.gateway.getApi(SEEDED_API_ID));
      expect(apiFields(readError)).toEqual({ code: "CONVERGE_API_ERROR", name: "ApiError", service: "apigateway", operation: "GetApi", status: 500, errorName: "InternalServerException" });
      expect(failing.requests.count({ status: 500, operation: "GetApi" })).toBe(3);

      const createError = await rejectionOf(clients.gateway.createApi({ name: "never", protocolType: "HTTP" }));
      expect(isAmbiguousWrite(createError)).toBe(true);
      expect(apiFields((createError as AmbiguousWriteError).underlying)).toMatchObject({ status: 500, operation: "CreateApi" });
      expect(failing.requests.count({ operation: "CreateApi" })).toBe(1);
    } finally {
      await clients.close();
    }
  });
});

describe("answers outside the contract (a foreign server)", () => {
  let foreign: ForeignServer;
  let clients: Clients;
  const validIntegration = { integrationId: "abc123", integrationType: "MOCK" };

  beforeAll(async () => {
    foreign = await startForeignServer((request, response) => {
      const route = `${request.method} ${request.url}`;
      if (route === "GET /v2/apis/api0000001/routes/r1") return answer(response, 200, { foo: 1 });
      if (route === "POST /v2/apis/api0000001/integrations") return answer(response, 200, validIntegration);
      if (route === "DELETE /v2/apis/api0000001/routes/r1") return answer(response, 200, { deleted: true });
      if (route === "GET /v2/apis/api0000001/integrations/i1") return answer(response, 200, "<html>gateway</html>");
      if (route === "POST /putAlternateContact") return answer(response, 200, {});
      if (route === "POST /listRegions") return answer(response, 200, { Regions: [{ RegionName: "us-east-1", RegionOptStatus: "SOMETIMES" }] });
      return answer(response, 500, { message: "unexpected" });
    });
    clients = clientsFor(foreign.url, "admin-token", { retry: { maxAttempts: 3, baseDelayMs: 1 } });
  });
  afterAll(async () => {
    await clients?.close();
    await foreign?.close();
  });

  test("rejects a GetRoute answer of the wrong shape, naming the missing fields, without retrying", async () => {
    const sent = foreign.received.length;
    const error = await rejectionOf(clients.gateway.getRoute("api0000001", "r1"));
    expect(guards(error)).toEqual({ ...NO_GUARD, isConvergeError: true, isContractViolation: true });
    const violation = error as ContractViolationError;
    expect({ code: violation.code, service: violation.service, operation: violation.operation }).toEqual({ code: "CONVERGE_CONTRACT_VIOLATION", service: "apigateway", operation: "GetRoute" });
    expect(violation.problems.some((problem) => /^routeKey is required/.test(problem))).toBe(true);
    expect(violation.problems.some((problem) => /^routeId is required/.test(problem))).toBe(true);
    expect(violation.message).toMatch(/^apigateway GetRoute answered outside its contract: /);
    expect(foreign.received.length - sent).toBe(1);
    expect(foreign.received.at(-1)?.headers.authorization).toBe("Bearer admin-token");
  });

  test("rejects 200 where the contract promises 201 (CreateIntegration) and 200 where it promises 204 (DeleteRoute)", async () => {
    const create = await rejectionOf(clients.gateway.createIntegration("api0000001", { integrationType: "MOCK" }));
    expect(isContractViolation(create)).toBe(true);
    expect((create as ContractViolationError).problems).toEqual(["status 200, expected 201"]);
    expect((create as ContractViolationError).operation).toBe("CreateIntegration");

    const remove = await rejectionOf(clients.gateway.deleteRoute("api0000001", "r1"));
    expect(isContractViolation(remove)).toBe(true);
    expect((remove as ContractViolationError).problems).toEqual(["status 200, expected 204"]);
  });

  test("rejects a body that is not JSON, a body where none is promised, and a value outside its enum", async () => {
    const html = await rejectionOf(clients.gateway.getIntegration("api0000001", "i1"));
    expect((html as ContractViolationError).problems).toEqual(["body is not JSON: <html>gateway</html>"]);

    const put = await rejectionOf(clients.account.putAlternateContact({ AlternateContactType: "BILLING", Name: "B", Title: "T", EmailAddress: "b@example.com", PhoneNumber: "1" }));
    expect(isContractViolation(put)).toBe(true);
    expect((put as ContractViolationError).problems).toEqual(["expected an empty body"]);

    const regions = await rejectionOf(collect(clients.account.listRegions()));
    expect(isContractViolation(regions)).toBe(true);
    expect((regions as ContractViolationError).problems).toHaveLength(1);
    expect((regions as ContractViolationError).problems[0]).toMatch(/^Regions\[0\]\.RegionOptStatus "SOMETIMES" is not valid/);
  });
});
