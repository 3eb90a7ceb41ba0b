import { z } from "zod";
import { ACCOUNT_OPERATIONS, AccountId } from "./account.js";
import { GATEWAY_OPERATIONS } from "./gateway.js";

/**
 * The control interface of the embedded services (docs/manual/testing.md): a third interface of the
 * same origin, under `/_converge/`, for tests that control the services while they run (readiness,
 * reset, checkpoints, scripted faults, the request journal, the clock, isolated worlds). The service
 * validates what it receives against these schemas, and the control client checks every answer
 * against them.
 */

/** Where the control interface answers: a prefix neither service uses. */
export const CONTROL_PREFIX = "/_converge/";

/** The ID of the world the server booted (its world file, or the demo world). */
export const SERVER_WORLD_ID = "default";

/** A world: the server's own (`default`) or one made at run time. */
export const WorldId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { error: 'expected a world ID such as "default" or "w-3f9a0c12b7e4"' });

/** A checkpoint's name, as it stands in its path. */
export const CheckpointName = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, { error: "expected 1 to 100 letters, digits, '.', '_' or '-'" });

/** Every operation of both services, by the names of their tables: what a fault rule and the journal name. */
export const OPERATION_NAMES = [...Object.keys(ACCOUNT_OPERATIONS), ...Object.keys(GATEWAY_OPERATIONS)] as ReadonlyArray<string>;
const OperationName = z.string().refine((name) => OPERATION_NAMES.includes(name), {
  error: `expected an operation of either service: ${OPERATION_NAMES.join(", ")}`,
});

/** `GET /_converge/health` (no token needed): ready once both services accept requests and the state is loaded. */
export const Health = z.object({ status: z.enum(["ready", "stopping"]), version: z.string() });
export type Health = z.infer<typeof Health>;

/** `POST /_converge/reset`: `{}` for everything, `{"world": ID}` for one world. */
export const ResetRequest = z.strictObject({ world: WorldId.optional() });
export const ResetAnswer = z.object({ worlds: z.array(WorldId) });
export type ResetAnswer = z.infer<typeof ResetAnswer>;

/** `PUT /_converge/checkpoints/NAME` (with a JSON body) and `POST …/NAME/restore`: which world; the server's when absent. */
export const CheckpointRequest = z.strictObject({ world: WorldId.optional() });
export const CheckpointAnswer = z.object({ name: CheckpointName, world: WorldId.nullable(), bytes: z.number().int(), savedAt: z.string() });
export type CheckpointAnswer = z.infer<typeof CheckpointAnswer>;
export const RestoreAnswer = z.object({ name: CheckpointName, world: WorldId });
export type RestoreAnswer = z.infer<typeof RestoreAnswer>;

/** Which matching calls a fault rule acts on: exactly one of `nth`, `next`, `every`, `probability` (with its `seed`). */
export const CallSelector = z.strictObject({
  nth: z.number().int().min(1).optional(),
  next: z.number().int().min(1).optional(),
  every: z.literal(true).optional(),
  probability: z.number().min(0).max(1).optional(),
  seed: z.number().int().min(0).max(2 ** 32 - 1).optional(),
}).superRefine((calls, context) => {
  const given = (["nth", "next", "every", "probability"] as const).filter((key) => calls[key] !== undefined);
  if (given.length !== 1) {
    context.addIssue({
      code: "custom",
      path: given.length === 0 ? [] : [given[1]!],
      message: `expected exactly one of nth, next, every or probability, received ${given.length === 0 ? "none" : given.join(" and ")}`,
    });
  }
  if (calls.seed !== undefined && calls.probability === undefined) {
    context.addIssue({ code: "custom", path: ["seed"], message: "seed is the seed of a probability: give it with probability" });
  }
});
export type CallSelector = z.infer<typeof CallSelector>;

/**
 * What a fault rule does: an error of the service's own shape (`status`, with `errorType`,
 * `message`, `retryAfterSeconds`; `afterWrite` applies the write first), a delay (`latencyMs`, alone
 * or before the error), or a dropped answer (`dropAnswer`: the operation runs, then the connection
 * is closed before the answer).
 */
export const FaultEffect = z.strictObject({
  status: z.number().int().min(400).max(599).optional(),
  errorType: z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,99}$/, { error: 'expected an error name such as "TooManyRequestsException"' }).optional(),
  message: z.string().min(1).max(1000).optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  afterWrite: z.literal(true).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  dropAnswer: z.literal(true).optional(),
}).superRefine((effect, context) => {
  if (effect.status === undefined && effect.latencyMs === undefined && effect.dropAnswer === undefined) {
    context.addIssue({ code: "custom", path: [], message: "expected an error (status), a delay (latencyMs) or dropAnswer, received none of them" });
  }
  if (effect.dropAnswer !== undefined && effect.status !== undefined) {
    context.addIssue({ code: "custom", path: ["dropAnswer"], message: "dropAnswer closes the connection without an answer: it cannot also answer an error (status)" });
  }
  for (const key of ["errorType", "message", "retryAfterSeconds", "afterWrite"] as const) {
    if (effect[key] !== undefined && effect.status === undefined) {
      context.addIssue({ code: "custom", path: [key], message: `${key} belongs to an error: give it with status` });
    }
  }
});
export type FaultEffect = z.infer<typeof FaultEffect>;

/** `POST /_converge/faults`: a rule; it matches every operation, world, account and identity it does not name. */
export const FaultRuleRequest = z.strictObject({
  operation: OperationName.optional(),
  world: WorldId.optional(),
  account: AccountId.optional(),
  identity: z.string().min(1).max(200).optional(),
  writesOnly: z.boolean().optional(),
  calls: CallSelector.default({ every: true }),
  effect: FaultEffect,
});
export type FaultRuleRequest = z.input<typeof FaultRuleRequest>;

/** A rule as the control interface lists it: what was asked, its ID and source, and how often it matched and acted. */
export const FaultRule = z.object({
  id: z.string(),
  source: z.enum(["control", "world"]),
  operation: z.string().optional(),
  world: WorldId.optional(),
  account: z.string().optional(),
  identity: z.string().optional(),
  writesOnly: z.boolean().optional(),
  calls: z.record(z.string(), z.union([z.number(), z.boolean()])),
  effect: z.record(z.string(), z.union([z.number(), z.boolean(), z.string()])),
  matched: z.number().int(),
  fired: z.number().int(),
});
export type FaultRule = z.infer<typeof FaultRule>;
export const FaultRules = z.object({ faults: z.array(FaultRule) });

/** How a fault shaped one request, in the journal: the rule that decided it and what it did. */
export const JournalFault = z.object({ rule: z.string(), effect: z.enum(["error", "latency", "dropAnswer", "errorAfterWrite"]) });
export type JournalFault = z.infer<typeof JournalFault>;

/** One request of either service as the journal holds it: never its token, only the identity's name. */
export const JournalEntry = z.object({
  time: z.string(),
  world: z.string(),
  service: z.string(),
  operation: z.string(),
  /** Whether the operation is a write (its table's `write`). */
  write: z.boolean(),
  identity: z.string().nullable(),
  account: z.string().nullable(),
  status: z.number().int(),
  latencyMs: z.number(),
  fault: JournalFault.nullable(),
});
export type JournalEntry = z.infer<typeof JournalEntry>;

/** `GET /_converge/requests`: the entries held, oldest first; the ring's size, and how many older entries it let go. */
export const JournalAnswer = z.object({ requests: z.array(JournalEntry), size: z.number().int(), evicted: z.number().int() });
export type JournalAnswer = z.infer<typeof JournalAnswer>;

/** The query of `GET` and `DELETE /_converge/requests`: every field narrows. */
export const JournalQuery = z.strictObject({
  operation: OperationName.optional(),
  account: AccountId.optional(),
  status: z.string().regex(/^[1-5][0-9]{2}$/, { error: "expected an HTTP status such as 429" }).optional(),
  world: WorldId.optional(),
  identity: z.string().min(1).optional(),
  fault: z.enum(["true", "false"], { error: 'expected "true" (only requests a fault shaped) or "false" (only the others)' }).optional(),
  write: z.enum(["true", "false"], { error: 'expected "true" (only writes) or "false" (only reads)' }).optional(),
});
export type JournalQuery = z.input<typeof JournalQuery>;

/** What a `DELETE` of many answers: how many it removed. */
export const RemovedAnswer = z.object({ removed: z.number().int() });

/** `POST /_converge/clock`: moves a world's clock forward (Region transitions settle by it). */
export const ClockRequest = z.strictObject({ advanceMs: z.number().int().min(0).max(10 * 365 * 24 * 3600 * 1000), world: WorldId.optional() });
export const ClockAnswer = z.object({ world: WorldId, offsetMs: z.number().int(), now: z.string() });
export type ClockAnswer = z.infer<typeof ClockAnswer>;

/** `POST /_converge/worlds`: `{}` for a copy of the server's world (its seed), or a world file of its own. */
export const CreateWorldRequest = z.strictObject({ world: z.record(z.string(), z.unknown()).optional() });

/** An identity of a world: its name (`name` of the world file, or `identities[N]`), account and allow-list. */
export const WorldIdentity = z.object({ identity: z.string(), accountId: z.string(), allow: z.array(z.string()) });
export type WorldIdentity = z.infer<typeof WorldIdentity>;
/** The answer to `POST /_converge/worlds`: the world's ID and its identities' tokens, each good for that world only. */
export const WorldGrant = z.object({ id: WorldId, tokens: z.array(WorldIdentity.extend({ token: z.string() })) });
export type WorldGrant = z.infer<typeof WorldGrant>;
export const WorldSummary = z.object({ id: WorldId, identities: z.array(WorldIdentity), createdAt: z.string(), durable: z.boolean() });
export type WorldSummary = z.infer<typeof WorldSummary>;
export const WorldList = z.object({ worlds: z.array(WorldSummary) });
