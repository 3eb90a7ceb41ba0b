import type { ConvergeSession } from "../converge-session.js";
import type { ResourceType, ResourceWithImportState, ResourceWithMoveState, Schema } from "../runtime/index.js";

/** A kind's terraform resource: the runtime's resource type, with two of its capabilities: import, and state moved from a `terraform_data` (MoveResourceState). */
export type ConvergeResourceType = ResourceType<Schema, ConvergeSession> & ResourceWithImportState<Schema, ConvergeSession> & ResourceWithMoveState<Schema>;

/** The operations of a resource type that each have a file of their own here. */
export type ResourceOperation = "plan" | "read" | "create" | "update" | "delete" | "importState" | "moveState";

/** What the runtime passes to one operation of a converge resource (`ResourceCall<"read">`: the state, the session, the signal). */
export type ResourceCall<K extends ResourceOperation> = Parameters<NonNullable<ConvergeResourceType[K]>>[0];
