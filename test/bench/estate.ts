import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { WorldInput } from "../../src/service/index.js";
import { DEMO_WORLD } from "../../src/service/index.js";

/**
 * A generated estate for the reconcile benchmarks: 200 accounts (the management account and 199
 * members) with 3 alternate contacts and 4 Region opt-ins each, and 40 APIs (30 HTTP, 10 WebSocket)
 * with 50 integrations and 50 routes each: 600 + 800 + 4,000 resources, plus 40 `Api` documents.
 */
export const ESTATE_TOKEN = "estate-token";
export const MANAGEMENT = "100000000000";
export const ACCOUNTS = Array.from({ length: 200 }, (_, i) => String(100_000_000_000 + i));
export const APIS = Array.from({ length: 40 }, (_, i) => ({ apiId: `estate${String(i).padStart(4, "0")}`, protocolType: i < 30 ? "HTTP" as const : "WEBSOCKET" as const }));
export const PER_API = 50;
export const CONTACT_TYPES = ["BILLING", "OPERATIONS", "SECURITY"] as const;
/** Per account: two opt-ins to enable, one to keep disabled, one default Region (a no-op). */
export const OPT_INS = [
  { region: "af-south-1", enabled: true },
  { region: "ap-east-1", enabled: false },
  { region: "me-south-1", enabled: true },
  { region: "eu-west-1", enabled: true },
] as const;

export function estateWorld(options: { latencyMs: number; throttle?: { ratePerSecond: number; burst: number } }): WorldInput {
  return {
    organization: { managementAccountId: MANAGEMENT, memberAccountIds: ACCOUNTS.slice(1), allFeaturesEnabled: true, trustedAccess: true },
    accounts: ACCOUNTS,
    identities: [{ token: ESTATE_TOKEN, accountId: MANAGEMENT, allow: ["*"] }],
    regions: DEMO_WORLD.regions ?? [],
    regionTransitionMs: 0,
    apis: APIS.map(({ apiId, protocolType }) => ({
      apiId,
      name: apiId,
      protocolType,
      ...(protocolType === "WEBSOCKET" ? { routeSelectionExpression: "$request.body.action" } : {}),
    })),
    ...(options.throttle ? { throttle: options.throttle } : {}),
    faults: { errorRate: 0, latencyMs: options.latencyMs, dropAfterWriteRate: 0 },
  };
}

const accountField = (account: string) => (account === MANAGEMENT ? "" : `account: "${account}"\n`);

function contactsYaml(accounts: ReadonlyArray<string> = ACCOUNTS): string {
  return accounts.flatMap((account, a) => CONTACT_TYPES.map((type) => `kind: AlternateContact
${accountField(account)}spec:
  type: ${type}
  name: ${type.toLowerCase()} team ${a}
  title: ${type.toLowerCase()} lead
  emailAddress: ${type.toLowerCase()}-${a}@example.com
  phoneNumber: "+1 555 ${String(a).padStart(4, "0")}"
`)).join("---\n");
}

function regionsYaml(): string {
  return ACCOUNTS.flatMap((account) => OPT_INS.map(({ region, enabled }) => `kind: RegionOptIn
${accountField(account)}spec: {region: ${region}, enabled: ${enabled}}
`)).join("---\n");
}

function apiYaml(apiId: string, protocolType: "HTTP" | "WEBSOCKET", index: number): string {
  const documents = [`kind: Api\napi: ${apiId}\nspec: {protocolType: ${protocolType}}\n`];
  for (let i = 0; i < PER_API; i += 1) {
    documents.push(protocolType === "HTTP"
      ? `kind: Integration
name: backend-${i}
api: ${apiId}
spec:
  integrationType: HTTP_PROXY
  integrationUri: https://svc-${index}-${i}.internal.example/api
  integrationMethod: ANY
  payloadFormatVersion: "1.0"
  timeoutInMillis: ${5000 + i}
  requestParameters: {"overwrite:header.x-tenant": "$context.authorizer.claims.tenant"}
`
      : `kind: Integration
name: handler-${i}
api: ${apiId}
spec:
  integrationType: CLOUD_PROXY
  integrationUri: arn:cloud:function:us-east-1:${MANAGEMENT}:function:handler-${index}-${i}
  integrationMethod: POST
  contentHandlingStrategy: CONVERT_TO_TEXT
`);
    documents.push(protocolType === "HTTP"
      ? `kind: Route
api: ${apiId}
spec:
  routeKey: GET /resource-${i}/{id}
  target: {integration: backend-${i}}
  authorizationType: JWT
  authorizerId: jwt${index}
  authorizationScopes: [read-${i}]
`
      : `kind: Route
api: ${apiId}
spec:
  routeKey: action-${i}
  target: {integration: handler-${i}}
  routeResponseSelectionExpression: $default
`);
  }
  return documents.join("---\n");
}

/** Writes the estate's desired-state files into `directory`; returns how many documents they hold. */
export async function writeEstate(directory: string): Promise<number> {
  await mkdir(join(directory, "apis"), { recursive: true });
  await writeFile(join(directory, "contacts.yaml"), contactsYaml());
  await writeFile(join(directory, "regions.yaml"), regionsYaml());
  await Promise.all(APIS.map(({ apiId, protocolType }, index) => writeFile(join(directory, "apis", `${apiId}.yaml`), apiYaml(apiId, protocolType, index))));
  return ACCOUNTS.length * (CONTACT_TYPES.length + OPT_INS.length) + APIS.length * (1 + 2 * PER_API);
}

/**
 * The estate's contacts and APIs without the Region opt-ins, `scale` times over (scale 1: 600
 * contacts over 200 accounts and 40 APIs × (50 integrations + 50 routes) + 40 Api documents, 4,640
 * documents; scale 10: 46,400): for measuring loading alone.
 */
export async function writeScaledEstate(directory: string, scale: number): Promise<number> {
  const accounts = Array.from({ length: ACCOUNTS.length * scale }, (_, i) => String(100_000_000_000 + i));
  const apis = Array.from({ length: APIS.length * scale }, (_, i) => ({ apiId: `estate${String(i).padStart(4, "0")}`, protocolType: i % 4 === 3 ? "WEBSOCKET" as const : "HTTP" as const }));
  await mkdir(join(directory, "apis"), { recursive: true });
  await writeFile(join(directory, "contacts.yaml"), contactsYaml(accounts));
  await Promise.all(apis.map(({ apiId, protocolType }, index) => writeFile(join(directory, "apis", `${apiId}.yaml`), apiYaml(apiId, protocolType, index))));
  return accounts.length * CONTACT_TYPES.length + apis.length * (1 + 2 * PER_API);
}

/** The fewest calls a no-change plan can make: one listing per API per collection, one read per contact, one ListRegions per account. */
export const LOWER_BOUND_CALLS = APIS.length * 2 + ACCOUNTS.length * CONTACT_TYPES.length + ACCOUNTS.length;
