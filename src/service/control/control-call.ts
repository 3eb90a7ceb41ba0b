import type { z } from "zod";
import { describeZodIssues, pinpointZodIssues } from "../../contract/field-issues.js";
import { invalidFields } from "../operation.js";
import { accountDialect, accountErrors } from "../service-error.js";
import type { Checkpoints } from "./checkpoints.js";
import type { FaultRules } from "../faults.js";
import type { LiveWorld } from "../live-world.js";
import type { RequestJournal } from "../request-journal.js";
import type { Worlds } from "../worlds.js";
import type { AdminAccess } from "./admin-access.js";

/** What the control interface's operations work on. */
export interface ControlContext {
  readonly worlds: Worlds;
  readonly faults: FaultRules;
  readonly journal: RequestJournal;
  readonly checkpoints: Checkpoints;
  readonly access: AdminAccess;
  readonly version: string;
  /** Set once the service is closing: health answers `stopping`. */
  readonly stopping: () => boolean;
}

/** One control request: path parameters, query, and its body (parsed JSON, or the raw bytes of a non-JSON body). */
export interface ControlCall {
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly raw: Buffer | undefined;
}

/** A control answer: JSON (`body`), or a text of its own type (a downloaded checkpoint). */
export interface ControlReply {
  readonly status: number;
  readonly body?: unknown;
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One operation of the control interface. */
export interface ControlOperation {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Under `/_converge/`, in find-my-way's syntax (`checkpoints/:name`). */
  readonly path: string;
  /** Whether the operation answers without the admin token (health). */
  readonly open?: boolean;
  /** Whether a body that is not JSON is taken as raw bytes (a checkpoint's upload). */
  readonly takesRaw?: boolean;
  handle(context: ControlContext, call: ControlCall): ControlReply | Promise<ControlReply>;
}

/**
 * Validates a control body or query as the services validate theirs: 400 ValidationException naming
 * every invalid field (an unknown field by its own name).
 */
export function controlInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const given = input ?? {};
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  throw invalidFields(accountDialect, describeZodIssues(pinpointZodIssues(result.error.issues), given));
}

/** The world an ID names; 404 when none does. */
export function worldNamed(context: ControlContext, id: string | undefined): LiveWorld {
  if (id === undefined) return context.worlds.server;
  const world = context.worlds.get(id);
  if (!world) throw accountErrors.notFound(`world ${JSON.stringify(id)} does not exist: take one with POST /_converge/worlds, or list them with GET /_converge/worlds`);
  return world;
}

/**
 * Brings one world back to its seed: its state, clock and throttle (atomically for its requests),
 * its world file's fault rules (their dice seeded again), the rules added for it, and its journal.
 */
export function resetWorld(context: ControlContext, world: LiveWorld): Promise<void> {
  return world.reset(() => {
    context.faults.clear(world.id);
    context.faults.setWorldFile(world.id, world.world.faults);
    context.journal.clear({ world: world.id });
  });
}
