import { beforeAll, describe, expect, it } from "vitest";
import {
  AccessDeniedException as AccountAccessDenied,
  AccountClient,
  ConflictException as AccountConflict,
  EnableRegionCommand,
  GetAlternateContactCommand,
  ListRegionsCommand,
  PutAlternateContactCommand,
  ResourceNotFoundException,
  TooManyRequestsException as AccountTooManyRequests,
  ValidationException,
} from "@aws-sdk/client-account";
import {
  AccessDeniedException as GatewayAccessDenied,
  ApiGatewayV2Client,
  BadRequestException,
  ConflictException as GatewayConflict,
  CreateApiCommand,
  CreateRouteCommand,
  GetApiCommand,
  GetRoutesCommand,
  NotFoundException,
  TooManyRequestsException as GatewayTooManyRequests,
} from "@aws-sdk/client-apigatewayv2";
import type { FinalizeRequestMiddleware, HttpRequest, MetadataBearer } from "@smithy/types";
import type { RunningService } from "../../src/service/index.js";
import { useWorld } from "../support/world.js";
import { testWorld } from "../support/worlds.js";

/**
 * The real AWS SDK v3 clients (code no one here wrote) against the embedded services: every error
 * must surface as the SDK's own exception class, with its modelled body fields filled. The SDKs
 * find the error's name in the body's `__type` (they also look at `x-amzn-ErrorType` and `code`,
 * which the services do not send).
 */

const { service } = useWorld();
const { service: throttled } = useWorld({ world: testWorld({ throttle: { ratePerSecond: 0.01, burst: 1 } }) });

/** The services authenticate with `Authorization: Bearer`: replace the SigV4 header the SDK signs with. */
function bearerToken<Input extends object, Output extends object>(token: string): FinalizeRequestMiddleware<Input, Output> {
  return (next) => async (args) => {
    (args.request as HttpRequest).headers.authorization = `Bearer ${token}`;
    return next(args);
  };
}

const AFTER_SIGNING = { relation: "after", toMiddleware: "httpSigningMiddleware", name: "convergeBearerToken" } as const;

const SDK_CONFIG = {
  region: "us-east-1",
  credentials: { accessKeyId: "unused", secretAccessKey: "unused" },
  // one attempt: a 429 must reach the test, not the SDK's retry loop
  maxAttempts: 1,
};

function accountClient(target: RunningService, token = "admin-token"): AccountClient {
  const client = new AccountClient({ ...SDK_CONFIG, endpoint: target.url });
  client.middlewareStack.addRelativeTo(bearerToken(token), AFTER_SIGNING);
  return client;
}

function gatewayClient(target: RunningService, token = "admin-token"): ApiGatewayV2Client {
  const client = new ApiGatewayV2Client({ ...SDK_CONFIG, endpoint: target.url });
  client.middlewareStack.addRelativeTo(bearerToken(token), AFTER_SIGNING);
  return client;
}

/** The rejection of `call`, which must reject. */
async function rejectionOf(call: Promise<unknown>): Promise<Error & MetadataBearer & Record<string, unknown>> {
  const outcome = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected the call to fail, it answered ${JSON.stringify(outcome.value)}`);
  return outcome.error as Error & MetadataBearer & Record<string, unknown>;
}

describe("@aws-sdk/client-account names every error of the account service", () => {
  it("succeeds with a bearer token (the middleware works)", async () => {
    const answer = await accountClient(service).send(new ListRegionsCommand({ MaxResults: 1 }));
    expect(answer.Regions).toEqual([{ RegionName: "af-south-1", RegionOptStatus: "DISABLED" }]);
  });

  it("surfaces a 404 as ResourceNotFoundException", async () => {
    const error = await rejectionOf(accountClient(service, "member-token").send(new GetAlternateContactCommand({ AlternateContactType: "BILLING" })));
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error.name).toBe("ResourceNotFoundException");
    expect(error.$metadata.httpStatusCode).toBe(404);
    expect(error.errorType).toBe("ResourceNotFoundException");
    expect(error.$fault).toBe("client");
    expect(error.message).toMatch(/\S/);
  });

  it("surfaces a 409 as ConflictException", async () => {
    // ap-south-2 is DISABLING in the test world: enabling it mid-transition conflicts
    const error = await rejectionOf(accountClient(service).send(new EnableRegionCommand({ RegionName: "ap-south-2" })));
    expect(error).toBeInstanceOf(AccountConflict);
    expect(error.name).toBe("ConflictException");
    expect(error.$metadata.httpStatusCode).toBe(409);
    expect(error.errorType).toBe("ConflictException");
    expect(error.message).toMatch(/\S/);
  });

  it("surfaces a 400 as ValidationException with reason and fieldList", async () => {
    const error = await rejectionOf(
      accountClient(service).send(
        new PutAlternateContactCommand({
          AlternateContactType: "SECURITY",
          EmailAddress: "not-an-email",
          Name: "Security Team",
          PhoneNumber: "+1 555 0100",
          Title: "CISO",
        }),
      ),
    );
    expect(error).toBeInstanceOf(ValidationException);
    const validation = error as unknown as ValidationException;
    expect(validation.name).toBe("ValidationException");
    expect(validation.$metadata.httpStatusCode).toBe(400);
    expect(validation.reason).toBe("fieldValidationFailed");
    expect(validation.fieldList?.map((field) => field.name)).toEqual(["EmailAddress"]);
    expect(validation.fieldList?.[0]?.message).toMatch(/\S/);
    expect(validation.message).toMatch(/EmailAddress/);
  });

  it("surfaces a 403 as AccessDeniedException", async () => {
    const error = await rejectionOf(
      accountClient(service, "reader-token").send(
        new PutAlternateContactCommand({ AlternateContactType: "SECURITY", EmailAddress: "a@example.com", Name: "n", PhoneNumber: "1", Title: "t" }),
      ),
    );
    expect(error).toBeInstanceOf(AccountAccessDenied);
    expect(error.name).toBe("AccessDeniedException");
    expect(error.$metadata.httpStatusCode).toBe(403);
    expect(error.errorType).toBe("AccessDeniedException");
    expect(error.message).toMatch(/PutAlternateContact/);
  });

  it("surfaces a 429 as TooManyRequestsException", async () => {
    const client = accountClient(throttled);
    await client.send(new ListRegionsCommand({}));
    const error = await rejectionOf(client.send(new ListRegionsCommand({})));
    expect(error).toBeInstanceOf(AccountTooManyRequests);
    expect(error.name).toBe("TooManyRequestsException");
    expect(error.$metadata.httpStatusCode).toBe(429);
    expect(error.errorType).toBe("TooManyRequestsException");
    expect(error.message).toMatch(/rate exceeded/);
  });
});

describe("@aws-sdk/client-apigatewayv2 names every error of the gateway service", () => {
  let apiId: string;

  beforeAll(async () => {
    const api = await gatewayClient(service).send(new CreateApiCommand({ Name: "sdk-errors", ProtocolType: "HTTP" }));
    apiId = api.ApiId!;
    await gatewayClient(service).send(new CreateRouteCommand({ ApiId: apiId, RouteKey: "GET /orders" }));
  });

  it("succeeds with a bearer token (the middleware works)", async () => {
    const routes = await gatewayClient(service).send(new GetRoutesCommand({ ApiId: apiId }));
    expect(routes.Items?.map((route) => route.RouteKey)).toEqual(["GET /orders"]);
  });

  it("surfaces a 404 as NotFoundException with ResourceType", async () => {
    const error = await rejectionOf(gatewayClient(service).send(new GetApiCommand({ ApiId: "nosuchapi0" })));
    expect(error).toBeInstanceOf(NotFoundException);
    expect(error.name).toBe("NotFoundException");
    expect(error.$metadata.httpStatusCode).toBe(404);
    expect((error as unknown as NotFoundException).ResourceType).toBe("Api");
    expect(error.message).toMatch(/nosuchapi0/);
  });

  it("surfaces a 409 as ConflictException", async () => {
    const error = await rejectionOf(gatewayClient(service).send(new CreateRouteCommand({ ApiId: apiId, RouteKey: "GET /orders" })));
    expect(error).toBeInstanceOf(GatewayConflict);
    expect(error.name).toBe("ConflictException");
    expect(error.$metadata.httpStatusCode).toBe(409);
    expect(error.message).toMatch(/GET \/orders/);
  });

  it("surfaces a 400 as BadRequestException", async () => {
    const error = await rejectionOf(gatewayClient(service).send(new CreateRouteCommand({ ApiId: apiId, RouteKey: "get /orders" })));
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.name).toBe("BadRequestException");
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.message).toMatch(/routeKey/);
  });

  it("surfaces a 403 as AccessDeniedException", async () => {
    const error = await rejectionOf(gatewayClient(service, "reader-token").send(new CreateApiCommand({ Name: "denied", ProtocolType: "HTTP" })));
    expect(error).toBeInstanceOf(GatewayAccessDenied);
    expect(error.name).toBe("AccessDeniedException");
    expect(error.$metadata.httpStatusCode).toBe(403);
    expect(error.message).toMatch(/CreateApi/);
  });

  it("surfaces a 429 (the service's LimitExceededException) as TooManyRequestsException with LimitType", async () => {
    const client = gatewayClient(throttled);
    await client.send(new GetApiCommand({ ApiId: "nosuchapi0" })).catch((error: unknown) => {
      if (!(error instanceof NotFoundException)) throw error;
    });
    const error = await rejectionOf(client.send(new GetApiCommand({ ApiId: "nosuchapi0" })));
    expect(error).toBeInstanceOf(GatewayTooManyRequests);
    expect(error.name).toBe("TooManyRequestsException");
    expect(error.$metadata.httpStatusCode).toBe(429);
    expect((error as unknown as GatewayTooManyRequests).LimitType).toBe("RequestRate");
    expect(error.message).toMatch(/rate exceeded/);
  });
});
