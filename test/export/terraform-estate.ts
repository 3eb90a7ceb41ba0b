import type { Clients } from "../../src/clients/index.js";
import type { Integration } from "../../src/contract/gateway.js";

/**
 * A live estate made through the clients for `converge export --format terraform` (its test and
 * its benchmark), on the demo world's two APIs: integrations of every type the service knows,
 * routes of several keys and authorizations, request parameters and templates whose values hold
 * `$`, `${`, `%{` and quotes, a route targeting the service-managed integration of the quick-created
 * API, contacts of two accounts, opt-in Regions; and `pairs` more integrations with a route each.
 */

/** Text that would end a string and open a resource if it were written into HCL as it is. */
export const HOSTILE_TEXT = '"\n}\nresource "converge_route" "evil" {';
/** A request parameter value that holds everything a template would read. */
export const TEMPLATE_TEXT = 'say "hi" ${not.a.reference} %{ if true }x%{ endif } $request.header.y \\ done';

/** The demo world's quick-created HTTP API and its WebSocket API. */
export const ESTATE_APIS = { http: "a1b2c3d4e5", websocket: "w5s0ck3t01" } as const;
/** The token's own account and a member account. */
export const ESTATE_ACCOUNTS = { self: "111111111111", member: "222222222222" } as const;

/** Makes the estate; answers the IDs of the integrations it made by name. */
export async function buildTerraformEstate(clients: Clients, pairs: number): Promise<Record<string, Integration>> {
  const { gateway, account } = clients;
  const http = ESTATE_APIS.http;
  const ws = ESTATE_APIS.websocket;
  let managed: Integration | undefined;
  for await (const integration of gateway.integrations(http)) if (integration.apiGatewayManaged) managed = integration;
  if (!managed) throw new Error(`the demo world's API ${http} has no managed integration`);

  const made: Record<string, Integration> = {
    proxy: await gateway.createIntegration(http, {
      integrationType: "HTTP_PROXY",
      integrationUri: "https://orders.internal.example/v2",
      integrationMethod: "GET",
      payloadFormatVersion: "1.0",
      timeoutInMillis: 12000,
      description: HOSTILE_TEXT,
      requestParameters: { "overwrite:header.x-note": TEMPLATE_TEXT, "append:querystring.q": "$request.querystring.q" },
      responseParameters: { "404": { "overwrite:statuscode": "410" } },
      tlsConfig: { serverNameToVerify: "orders.internal.example" },
    }),
    cloudProxy: await gateway.createIntegration(http, {
      integrationType: "CLOUD_PROXY",
      integrationUri: "arn:cloud:function:us-east-1:111111111111:function:orders-fn",
      payloadFormatVersion: "2.0",
    }),
    mock: await gateway.createIntegration(ws, {
      integrationType: "MOCK",
      requestTemplates: { "application/json": `{"statusCode": 200, "echo": "$input.json('$')", "literal": "\${kept} %{kept}"}` },
      templateSelectionExpression: "\\$default",
      passthroughBehavior: "NEVER",
    }),
    plainHttp: await gateway.createIntegration(ws, {
      integrationType: "HTTP",
      integrationUri: "https://chat.internal.example/send",
      integrationMethod: "POST",
      requestParameters: { "integration.request.header.x-static": "'va\"lue ${x}'" },
      contentHandlingStrategy: "CONVERT_TO_TEXT",
    }),
    cloud: await gateway.createIntegration(ws, { integrationType: "CLOUD", integrationUri: "arn:cloud:function:us-east-1:111111111111:function:chat-connect" }),
    wsProxy: await gateway.createIntegration(ws, { integrationType: "HTTP_PROXY", integrationUri: "https://chat.internal.example/fallback", integrationMethod: "ANY" }),
  };
  const target = (name: string) => `integrations/${made[name]!.integrationId}`;

  await gateway.createRoute(http, { routeKey: "GET /orders", target: target("proxy"), authorizationType: "JWT", authorizerId: "jwt0001", authorizationScopes: ["orders.read", "orders.write"] });
  await gateway.createRoute(http, { routeKey: "POST /orders", target: target("cloudProxy"), authorizationType: "CLOUD_IAM", operationName: "create ${order}" });
  await gateway.createRoute(http, { routeKey: "GET /orders/{id}", target: `integrations/${managed.integrationId}` });
  await gateway.createRoute(http, { routeKey: "DELETE /orders/{id}" });
  await gateway.createRoute(ws, { routeKey: "$connect", target: target("cloud"), authorizationType: "CUSTOM", authorizerId: "auth001" });
  await gateway.createRoute(ws, { routeKey: "$disconnect", target: target("plainHttp") });
  await gateway.createRoute(ws, {
    routeKey: "sendmessage",
    target: target("mock"),
    apiKeyRequired: true,
    requestParameters: { "route.request.header.x-id": { required: true } },
    routeResponseSelectionExpression: "$default",
  });
  await gateway.createRoute(ws, { routeKey: "$default", target: target("wsProxy") });
  Object.assign(made, await buildPairs(clients, http, pairs));

  for (const [accountId, types] of [[ESTATE_ACCOUNTS.self, ["BILLING", "OPERATIONS", "SECURITY"]], [ESTATE_ACCOUNTS.member, ["BILLING", "SECURITY"]]] as const) {
    for (const type of types) {
      await account.putAlternateContact({
        ...(accountId === ESTATE_ACCOUNTS.self ? {} : { AccountId: accountId }),
        AlternateContactType: type,
        Name: `${type.toLowerCase()} "team" \${x}`,
        Title: "Head of %{ things }",
        EmailAddress: `${type.toLowerCase()}@example.com`,
        PhoneNumber: "+1 555 0100",
      });
    }
  }
  await account.enableRegion({ RegionName: "ap-east-1" });
  await account.enableRegion({ AccountId: ESTATE_ACCOUNTS.member, RegionName: "il-central-1" });
  return made;
}

/** `count` HTTP_PROXY integrations of an HTTP API, each with a route (`GET /items-N/{id}`) targeting it. */
export async function buildPairs(clients: Clients, apiId: string, count: number, first = 0): Promise<Record<string, Integration>> {
  const made: Record<string, Integration> = {};
  for (let i = first; i < first + count; i += 1) {
    const integration = await clients.gateway.createIntegration(apiId, {
      integrationType: "HTTP_PROXY",
      integrationUri: `https://svc-${i}.internal.example/api`,
      integrationMethod: "ANY",
      payloadFormatVersion: "1.0",
    });
    made[`svc-${i}`] = integration;
    await clients.gateway.createRoute(apiId, { routeKey: `GET /items-${i}/{id}`, target: `integrations/${integration.integrationId}` });
  }
  return made;
}
