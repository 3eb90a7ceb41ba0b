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
    regions: [
      { regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" },
      { regionName: "us-west-2", optStatus: "ENABLED_BY_DEFAULT" },
      { regionName: "eu-west-1", optStatus: "ENABLED_BY_DEFAULT" },
      { regionName: "ap-east-1", optStatus: "DISABLED" },
      { regionName: "af-south-1", optStatus: "DISABLED" },
      { regionName: "me-south-1", optStatus: "ENABLED" },
      { regionName: "eu-south-1", optStatus: "ENABLING" },
      { regionName: "ap-south-2", optStatus: "DISABLING" },
    ],
    regionTransitionMs: 200,
    ...overrides,
  };
}

/** `world` with more identities allowed everything in the management account 111111111111, one per token. */
export function withAdministrators(world: WorldInput, tokens: ReadonlyArray<string>): WorldInput {
  return { ...world, identities: [...(world.identities ?? []), ...tokens.map((token) => ({ token, accountId: "111111111111", allow: ["*"] }))] };
}
