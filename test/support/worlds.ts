import type { WorldInput } from "../../src/service/index.js";

/**
 * The world most service tests boot: an organization (management 111…, members 222… and 333…,
 * delegated admin 333…), a standalone account 444…, and identities of every kind.
 */
export function testWorld(overrides: Partial<WorldInput> = {}): WorldInput {
  return {
    organization: {
      managementAccountId: "111111111111",
      memberAccountIds: ["222222222222", "333333333333"],
      delegatedAdminAccountIds: ["333333333333"],
      allFeaturesEnabled: true,
      trustedAccess: true,
    },
    accounts: ["111111111111", "222222222222", "333333333333", "444444444444"],
    identities: [
      { token: "admin-token", accountId: "111111111111", allow: ["*"] },
      { token: "member-token", accountId: "222222222222", allow: ["*"] },
      { token: "delegated-token", accountId: "333333333333", allow: ["account:*"] },
      { token: "standalone-token", accountId: "444444444444", allow: ["*"] },
      { token: "reader-token", accountId: "222222222222", allow: ["account:ListRegions", "account:Get*", "apigateway:Get*"] },
      { token: "nothing-token", accountId: "111111111111", allow: [] },
    ],
    regions: regionCatalog({
      "us-east-1": "ENABLED_BY_DEFAULT",
      "us-west-2": "ENABLED_BY_DEFAULT",
      "eu-west-1": "ENABLED_BY_DEFAULT",
      "ap-east-1": "DISABLED",
      "af-south-1": "DISABLED",
      "me-south-1": "ENABLED",
      "eu-south-1": "ENABLING",
      "ap-south-2": "DISABLING",
    }),
    regionTransitionMs: 200,
    ...overrides,
  };
}

/** `world` with more identities allowed everything in the management account 111111111111, one per token. */
export function withAdministrators(world: WorldInput, tokens: ReadonlyArray<string>): WorldInput {
  return { ...world, identities: [...(world.identities ?? []), ...tokens.map((token) => ({ token, accountId: "111111111111", allow: ["*"] }))] };
}

/** A Region's opt status, as a world's catalog sets it. */
export type OptStatus = "ENABLED" | "ENABLING" | "DISABLING" | "DISABLED" | "ENABLED_BY_DEFAULT";

/** A world's Region catalog written as `{regionName: optStatus}`, in that order. */
export function regionCatalog(statuses: Readonly<Record<string, OptStatus>>): Array<{ regionName: string; optStatus: OptStatus }> {
  return Object.entries(statuses).map(([regionName, optStatus]) => ({ regionName, optStatus }));
}
