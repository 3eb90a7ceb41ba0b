import { stringify } from "yaml";
import type { WorldInput } from "../../../src/service/index.js";

/**
 * A generated estate for the shard tests: 20 accounts (a management account and 19 members) with
 * two contacts and two Region opt-ins each, and 8 APIs with 6 integrations and 6 routes each; APIs
 * 0, 1, 3 and 6 are owned by `Api` documents (API 3 is quick-created: a managed pair), APIs 6 and 7
 * are referenced by name. `unknownFiles` adds documents that cannot be compared.
 */
export const SHARD_TOKEN = "shard-token";
export const MANAGEMENT = "100000000000";
/** May read everything but the list of APIs (GetApis): documents that name their API cannot be resolved. */
export const NO_LISTING_TOKEN = "no-listing-token";
/** May read everything but routes: every API's read fails, the accounts' reads succeed. */
export const NO_ROUTES_TOKEN = "no-routes-token";
export const SHARD_ACCOUNTS = Array.from({ length: 20 }, (_, i) => String(100_000_000_000 + i));
export const SHARD_APIS = Array.from({ length: 8 }, (_, i) => ({
  apiId: `shardapi0${i}`,
  name: `api-${i}`,
  protocolType: i === 2 || i === 7 ? ("WEBSOCKET" as const) : ("HTTP" as const),
  byName: i >= 6,
  owned: [0, 1, 3, 6].includes(i),
  quickCreated: i === 3,
}));
export const PER_API = 6;
const CONTACT_TYPES = ["BILLING", "SECURITY"] as const;

export function shardWorld(): WorldInput {
  return {
    organization: { managementAccountId: MANAGEMENT, memberAccountIds: SHARD_ACCOUNTS.slice(1), allFeaturesEnabled: true, trustedAccess: true },
    accounts: [...SHARD_ACCOUNTS, "999999999999"],
    identities: [
      { token: SHARD_TOKEN, accountId: MANAGEMENT, allow: ["*"] },
      { token: NO_LISTING_TOKEN, accountId: MANAGEMENT, allow: ["account:*", "apigateway:GetApi", "apigateway:GetRoutes", "apigateway:GetIntegrations"] },
      { token: NO_ROUTES_TOKEN, accountId: MANAGEMENT, allow: ["account:*", "apigateway:GetApi", "apigateway:GetApis", "apigateway:GetIntegrations"] },
    ],
    regions: [
      { regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" },
      { regionName: "af-south-1", optStatus: "DISABLED" },
      { regionName: "ap-east-1", optStatus: "DISABLED" },
    ],
    regionTransitionMs: 0,
    apis: SHARD_APIS.map(({ apiId, name, protocolType, quickCreated }) => ({
      apiId,
      name,
      protocolType,
      ...(protocolType === "WEBSOCKET" ? { routeSelectionExpression: "$request.body.action" } : {}),
      ...(quickCreated ? { target: "https://quick.example/api" } : {}),
    })),
  };
}

const account = (id: string) => (id === MANAGEMENT ? {} : { account: id });

/** The estate's desired-state files (name → YAML text). */
export function shardEstateFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  files["accounts.yaml"] = toYaml(SHARD_ACCOUNTS.flatMap((id, a) => [
    ...CONTACT_TYPES.map((type) => ({
      kind: "AlternateContact",
      ...account(id),
      spec: { type, name: `${type.toLowerCase()} ${a}`, title: "lead", emailAddress: `${type.toLowerCase()}-${a}@example.com`, phoneNumber: "+1 555 0100" },
    })),
    { kind: "RegionOptIn", ...account(id), spec: { region: "af-south-1", enabled: true } },
    { kind: "RegionOptIn", ...account(id), spec: { region: "ap-east-1", enabled: false } },
  ]));
  for (const [index, api] of SHARD_APIS.entries()) {
    const ref = api.byName ? { name: api.name } : api.apiId;
    const documents: unknown[] = api.owned ? [{ kind: "Api", api: ref, spec: { protocolType: api.protocolType } }] : [];
    for (let i = 0; i < PER_API; i += 1) {
      documents.push({
        kind: "Integration",
        name: `backend-${i}`,
        api: ref,
        spec: api.protocolType === "HTTP"
          ? { integrationType: "HTTP_PROXY", integrationUri: `https://svc-${index}-${i}.example/api`, integrationMethod: "ANY", payloadFormatVersion: "1.0", timeoutInMillis: 5000 + i }
          : { integrationType: "HTTP_PROXY", integrationUri: `https://ws-${index}-${i}.example/events`, integrationMethod: "POST" },
      });
      documents.push({
        kind: "Route",
        api: ref,
        spec: { routeKey: api.protocolType === "HTTP" ? `GET /resource-${i}` : `action-${i}`, target: { integration: `backend-${i}` } },
      });
    }
    files[`api-${index}.yaml`] = toYaml(documents);
  }
  return files;
}

/** Documents that cannot be compared: an API that does not exist (by ID and by name), a contact of an account outside the organization. */
export function unknownFiles(): Record<string, string> {
  return {
    "unknown.yaml": toYaml([
      { kind: "Route", api: "shardnone0", spec: { routeKey: "GET /nowhere" } },
      { kind: "Integration", name: "ghost", api: { name: "ghost" }, spec: { integrationType: "HTTP_PROXY", integrationUri: "https://ghost.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" } },
      { kind: "AlternateContact", account: "999999999999", spec: { type: "BILLING", name: "outsider", title: "lead", emailAddress: "outsider@example.com", phoneNumber: "+1 555 0100" } },
    ]),
  };
}

function toYaml(documents: ReadonlyArray<unknown>): string {
  return documents.map((document) => stringify(document)).join("---\n");
}
