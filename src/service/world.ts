import { readFile } from "node:fs/promises";
import { z } from "zod";
import { AccountId, RegionOptStatus } from "../contract/account.js";
import { describeZodIssues } from "../contract/field-issues.js";
import { NestingError, parseJsonWithinDepth } from "../input-limits/nesting.js";

/**
 * The world file: who exists, who may call, what the Region catalog holds, which APIs exist at boot,
 * and how the service misbehaves on purpose. Every key is optional (docs/manual/embedded-service.md, "World file").
 */
export const WorldFile = z.strictObject({
  organization: z.strictObject({
    managementAccountId: AccountId,
    memberAccountIds: z.array(AccountId).default([]),
    delegatedAdminAccountIds: z.array(AccountId).default([]),
    allFeaturesEnabled: z.boolean().default(true),
    trustedAccess: z.boolean().default(true),
  }).optional(),
  accounts: z.array(AccountId).default([]),
  identities: z.array(z.strictObject({
    token: z.string().min(1, { error: "expected a non-empty token" }),
    accountId: AccountId,
    allow: z.array(z.string().min(1)).default(["*"]),
    /** How the journal and fault rules name the identity; `identities[N]` when absent. */
    name: z.string().regex(/^[A-Za-z0-9._:@-]{1,100}$/, { error: "expected 1 to 100 letters, digits, '.', '_', ':', '@' or '-'" }).optional(),
  })).default([]),
  regions: z.array(z.strictObject({ regionName: z.string().min(1).max(50), optStatus: RegionOptStatus })).default([]),
  regionTransitionMs: z.number().int().min(0).default(2000),
  apis: z.array(z.strictObject({
    apiId: z.string().regex(/^[a-z0-9]{10}$/, { error: "expected 10 lower-case letters or digits" }).optional(),
    accountId: AccountId.optional(),
    name: z.string().min(1).max(128),
    protocolType: z.enum(["HTTP", "WEBSOCKET"]),
    routeSelectionExpression: z.string().optional(),
    target: z.string().optional(),
  })).default([]),
  throttle: z.strictObject({ ratePerSecond: z.number().positive(), burst: z.number().min(1) }).optional(),
  faults: z.strictObject({
    errorRate: z.number().min(0).max(1).default(0),
    latencyMs: z.number().min(0).default(0),
    dropAfterWriteRate: z.number().min(0).max(1).default(0),
    seed: z.number().int().optional(),
    stateFile: z.strictObject({
      failAfterWrites: z.number().int().min(0),
      failingWrites: z.number().int().min(1),
      failure: z.enum(["write", "sync"]).default("write"),
    }).optional(),
  }).default({ errorRate: 0, latencyMs: 0, dropAfterWriteRate: 0 }),
});
/** A world as written in a file (defaults not yet applied). */
export type WorldInput = z.input<typeof WorldFile>;
/** A world with every default applied. */
export type World = z.output<typeof WorldFile>;

export class WorldFileError extends Error {
  readonly code = "CONVERGE_WORLD_INVALID";
  constructor(source: string, details: ReadonlyArray<string>) {
    super(`world ${source} is not valid:\n${details.map((d) => `  - ${d}`).join("\n")}`);
    this.name = "WorldFileError";
  }
}

/** Validates a world and applies its defaults; reports every invalid field at once. */
export function parseWorld(input: unknown, source = "(inline)"): World {
  const result = WorldFile.safeParse(input);
  if (!result.success) throw new WorldFileError(source, describeZodIssues(result.error.issues, input).map((issue) => issue.message));
  const world = result.data;
  const problems = crossCheckWorld(world);
  if (problems.length > 0) throw new WorldFileError(source, problems);
  return world;
}

export async function loadWorldFile(path: string): Promise<World> {
  const text = await readFile(path, "utf8");
  let json: unknown;
  try {
    json = parseJsonWithinDepth(text);
  } catch (error) {
    throw new WorldFileError(path, [error instanceof NestingError ? error.message : `not valid JSON: ${(error as Error).message}`]);
  }
  return parseWorld(json, path);
}

/** What a world's schema cannot say: repeated tokens, names and IDs, and rules between fields; each message begins with the field's path. */
export function crossCheckWorld(world: World): string[] {
  const problems: string[] = [];
  const tokens = new Set<string>();
  const names = new Set<string>();
  world.identities.forEach((identity, index) => {
    if (tokens.has(identity.token)) problems.push(`identities[${index}].token repeats the token of an earlier identity`);
    tokens.add(identity.token);
    if (identity.name !== undefined && names.has(identity.name)) problems.push(`identities[${index}].name ${JSON.stringify(identity.name)} appears twice`);
    if (identity.name !== undefined) names.add(identity.name);
  });
  const regionNames = new Set<string>();
  world.regions.forEach((region, index) => {
    if (regionNames.has(region.regionName)) problems.push(`regions[${index}].regionName ${JSON.stringify(region.regionName)} appears twice`);
    regionNames.add(region.regionName);
  });
  const apiIds = new Set<string>();
  world.apis.forEach((api, index) => {
    if (api.apiId && apiIds.has(api.apiId)) problems.push(`apis[${index}].apiId ${JSON.stringify(api.apiId)} appears twice`);
    if (api.apiId) apiIds.add(api.apiId);
    if (api.target !== undefined && api.protocolType !== "HTTP") {
      problems.push(`apis[${index}].target: quick create (target) is for HTTP APIs only, received protocolType ${JSON.stringify(api.protocolType)}`);
    }
    if (api.protocolType === "WEBSOCKET" && !api.routeSelectionExpression) {
      problems.push(`apis[${index}].routeSelectionExpression is required for a WEBSOCKET API (e.g. "$request.body.action")`);
    }
  });
  const org = world.organization;
  if (org?.memberAccountIds.includes(org.managementAccountId)) {
    problems.push(`organization.memberAccountIds lists the management account ${org.managementAccountId}`);
  }
  for (const admin of org?.delegatedAdminAccountIds ?? []) {
    if (!org?.memberAccountIds.includes(admin)) problems.push(`organization.delegatedAdminAccountIds: ${admin} is not a member account`);
  }
  return problems;
}


/** The account that owns the world's `apis` entries without an `accountId`. */
export function defaultApiOwner(world: World): string | undefined {
  return world.organization?.managementAccountId ?? world.accounts[0] ?? world.identities[0]?.accountId;
}

/**
 * The demo world `converge serve` boots without `--world` (docs/manual/embedded-service.md, "Demo world"). Its tokens are
 * demo credentials, printed at start so that a newcomer can call the service.
 */
export const DEMO_WORLD: WorldInput = {
  organization: {
    managementAccountId: "111111111111",
    memberAccountIds: ["222222222222", "333333333333"],
    delegatedAdminAccountIds: ["333333333333"],
    allFeaturesEnabled: true,
    trustedAccess: true,
  },
  accounts: ["111111111111", "222222222222", "333333333333", "444444444444"],
  identities: [
    { token: "demo-admin-token", accountId: "111111111111", allow: ["*"] },
    { token: "demo-security-token", accountId: "333333333333", allow: ["account:*"] },
    { token: "demo-reader-token", accountId: "111111111111", allow: ["account:Get*", "account:ListRegions", "apigateway:Get*"] },
    { token: "demo-standalone-token", accountId: "444444444444", allow: ["*"] },
  ],
  regions: [
    ...["ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-south-1", "ap-southeast-1", "ap-southeast-2",
      "ca-central-1", "eu-central-1", "eu-north-1", "eu-west-1", "eu-west-2", "eu-west-3", "sa-east-1",
      "us-east-1", "us-east-2", "us-west-1", "us-west-2"]
      .map((regionName) => ({ regionName, optStatus: "ENABLED_BY_DEFAULT" as const })),
    ...["af-south-1", "ap-east-1", "ap-south-2", "ap-southeast-3", "ap-southeast-4", "ca-west-1", "eu-central-2",
      "eu-south-1", "eu-south-2", "il-central-1", "me-central-1", "me-south-1", "mx-central-1"]
      .map((regionName) => ({ regionName, optStatus: "DISABLED" as const })),
  ],
  regionTransitionMs: 1500,
  apis: [
    { apiId: "a1b2c3d4e5", name: "orders", protocolType: "HTTP", target: "https://orders.internal.example/api" },
    { apiId: "w5s0ck3t01", name: "chat", protocolType: "WEBSOCKET", routeSelectionExpression: "$request.body.action" },
  ],
  throttle: { ratePerSecond: 100, burst: 200 },
};
