import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ClockRequest, ResetRequest, type ClockAnswer, type WorldGrant, type WorldSummary } from "../../contract/control.js";
import { invalidFields } from "../operation.js";
import { accountDialect, accountErrors } from "../service-error.js";
import { WorldFile, crossCheckWorld, type World, type WorldInput } from "../world.js";
import type { LiveWorld } from "../live-world.js";
import { MAX_WORLDS } from "../worlds.js";
import { controlInput, resetWorld, worldNamed, type ControlContext, type ControlOperation } from "./control-call.js";

/** What `POST /_converge/worlds` takes: `{}`, or a world file of the world's own (identities' tokens optional: made when absent). */
const CreateWorldBody = z.strictObject({ world: WorldFile.optional() });

/** Readiness, reset, the clock, and isolated worlds (docs/manual/testing.md). */
export const WORLD_OPERATIONS: ReadonlyArray<ControlOperation> = [
  {
    method: "GET", path: "health", open: true,
    handle: (context) => ({ status: context.stopping() ? 503 : 200, body: { status: context.stopping() ? "stopping" : "ready", version: context.version } }),
  },
  {
    method: "POST", path: "reset",
    async handle(context, call) {
      const input = controlInput(ResetRequest, call.body);
      const worlds = input.world === undefined ? context.worlds.all() : [worldNamed(context, input.world)];
      if (input.world === undefined) {
        context.faults.clear();
        context.journal.clear();
      }
      for (const world of worlds) await resetWorld(context, world);
      return { status: 200, body: { worlds: worlds.map((world) => world.id) } };
    },
  },
  {
    method: "POST", path: "clock",
    async handle(context, call) {
      const input = controlInput(ClockRequest, call.body);
      const world = worldNamed(context, input.world);
      await world.advanceClock(input.advanceMs);
      return { status: 200, body: clockOf(world) };
    },
  },
  {
    method: "GET", path: "clock",
    handle: (context, call) => ({ status: 200, body: clockOf(worldNamed(context, call.query.world)) }),
  },
  { method: "POST", path: "worlds", handle: createWorld },
  { method: "GET", path: "worlds", handle: (context) => ({ status: 200, body: { worlds: context.worlds.all().map(summaryOf) } }) },
  { method: "GET", path: "worlds/:id", handle: (context, call) => ({ status: 200, body: summaryOf(worldNamed(context, call.params.id)) }) },
  {
    method: "DELETE", path: "worlds/:id",
    async handle(context, call) {
      const world = worldNamed(context, call.params.id);
      if (world === context.worlds.server) {
        throw accountErrors.validation("the server's own world cannot be dropped", [{ name: "id", message: `world ${JSON.stringify(world.id)} is the server's own world: reset it instead (POST /_converge/reset)` }]);
      }
      await context.worlds.drop(world);
      context.faults.clear(world.id);
      return { status: 204 };
    },
  },
];

/**
 * Makes an isolated world: a copy of the server's world (its seed, every identity with a token of its
 * own), or the world file given, each identity without a token given one. Tokens belong to one world.
 */
async function createWorld(context: ControlContext, call: { readonly body: unknown }) {
  if (context.worlds.made >= MAX_WORLDS) {
    throw accountErrors.conflict(`the server holds ${MAX_WORLDS} worlds made at run time, its most: drop one (DELETE /_converge/worlds/ID) first`);
  }
  const world = worldOfBody(context, call.body);
  const live = await context.worlds.create(world);
  context.faults.setWorldFile(live.id, world.faults);
  const grant: WorldGrant = {
    id: live.id,
    tokens: world.identities.map((identity, index) => ({ ...identityOf(identity, index), token: identity.token })),
  };
  return { status: 201, body: grant };
}

function worldOfBody(context: ControlContext, body: unknown): World {
  const given = body === undefined ? {} : body;
  const withTokens = isObject(given) && isObject(given.world) ? { ...given, world: withGeneratedTokens(given.world) } : given;
  const input = controlInput(CreateWorldBody, withTokens);
  const world = input.world ?? copyOfServerWorld(context.worlds.server.world);
  const problems = crossCheckWorld(world).map((problem) => ({ name: `world.${problem.split(" ", 1)[0]!.replace(/:$/, "")}`, message: problem }));
  if (world.faults.stateFile !== undefined) {
    problems.push({ name: "world.faults.stateFile", message: "world.faults.stateFile is for the server's state file (--state-file): a world made at run time lives in memory" });
  }
  if (problems.length > 0) throw invalidFields(accountDialect, problems);
  world.identities.forEach((identity, index) => {
    if (context.worlds.holds(identity.token) || identity.token === context.access.token) {
      throw accountErrors.conflict(`world.identities[${index}].token is already the token of another world's identity (or the admin token): `
        + "a token belongs to one world; leave token out and the service makes one");
    }
  });
  return world;
}

/** The server's world as a seed of another: the same accounts, Regions, APIs and faults, each identity with a token of its own. */
function copyOfServerWorld(world: World): World {
  const { stateFile: _stateFile, ...faults } = world.faults;
  return { ...world, faults, identities: world.identities.map((identity) => ({ ...identity, token: newToken() })) };
}

function withGeneratedTokens(world: Record<string, unknown>): WorldInput {
  if (!Array.isArray(world.identities)) return world as WorldInput;
  return { ...world, identities: world.identities.map((identity: unknown) => (isObject(identity) && !("token" in identity) ? { ...identity, token: newToken() } : identity)) } as WorldInput;
}

function newToken(): string {
  return `cvg-${randomBytes(18).toString("base64url")}`;
}

function identityOf(identity: World["identities"][number], index: number) {
  return { identity: identity.name ?? `identities[${index}]`, accountId: identity.accountId, allow: [...identity.allow] };
}

function summaryOf(world: LiveWorld): WorldSummary {
  return { id: world.id, identities: world.world.identities.map(identityOf), createdAt: world.createdAt.toISOString(), durable: world.durable };
}

function clockOf(world: LiveWorld): ClockAnswer {
  const offsetMs = world.clockOffsetMs;
  return { world: world.id, offsetMs, now: new Date(Date.now() + offsetMs).toISOString() };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
