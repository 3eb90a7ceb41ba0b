import type { Document, Kind } from "../../desired/schema.js";
import type { ActionRequest } from "../model.js";
import { alternateContactHandler } from "./alternate-contact.js";
import { apiHandler } from "./api.js";
import { integrationHandler } from "./integration.js";
import type { KindHandler } from "./kind-handler.js";
import { regionOptInHandler } from "./region-opt-in.js";
import { routeHandler } from "./route.js";

/** Every resource kind converge reconciles. Adding a kind: one handler file, one schema, one line here. */
export const KIND_HANDLERS = {
  AlternateContact: alternateContactHandler,
  Integration: integrationHandler,
  Route: routeHandler,
  RegionOptIn: regionOptInHandler,
  Api: apiHandler,
} as const satisfies { [K in Kind]: KindHandler<Extract<Document, { kind: K }>> };

/** The handler of a document's kind (typed loosely: callers pass documents of that kind). */
export function handlerOf(kind: Kind): KindHandler {
  return KIND_HANDLERS[kind] as unknown as KindHandler;
}

/** The handler that executes an action request. */
export function handlerForOp(op: ActionRequest["op"]): KindHandler | undefined {
  return (Object.values(KIND_HANDLERS) as unknown as KindHandler[]).find((handler) => handler.ops.includes(op));
}

/** Kinds in planning order. */
export function kindsInPlanOrder(): Kind[] {
  return (Object.keys(KIND_HANDLERS) as Kind[]).sort((a, b) => KIND_HANDLERS[a].planOrder - KIND_HANDLERS[b].planOrder);
}
