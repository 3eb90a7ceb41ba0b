import type { Document, Kind } from "../../desired/schema.js";
import type { ActionRequest, LiveNeed } from "../model.js";
import { alternateContactEngine } from "./alternate-contact.js";
import { apiEngine } from "./api.js";
import { integrationEngine } from "./integration.js";
import type { KindEngine } from "./kind-engine.js";
import { regionOptInEngine } from "./region-opt-in.js";
import { routeEngine } from "./route.js";

/**
 * The engine half of every resource kind (the model half: src/desired/kinds/registry.ts). Adding a
 * kind: its schema, a model and an engine file, one line in each registry (README, "Adding a kind").
 */
export const KIND_ENGINES = {
  AlternateContact: alternateContactEngine,
  Integration: integrationEngine,
  Route: routeEngine,
  RegionOptIn: regionOptInEngine,
  Api: apiEngine,
} as const satisfies { [K in Kind]: KindEngine<Extract<Document, { kind: K }>> };

/** The engine of a document's kind (typed loosely: callers pass documents of that kind). */
export function engineOf(kind: Kind): KindEngine {
  return KIND_ENGINES[kind] as unknown as KindEngine;
}

/** The reads a document needs. */
export function needsOfDocument(document: Document): LiveNeed[] {
  const engine = engineOf(document.kind);
  return engine.needs ? engine.needs(document) : [engine.model.readKey(document)];
}

/** The engine that executes an action request. */
export function engineForOp(op: ActionRequest["op"]): KindEngine | undefined {
  return (Object.values(KIND_ENGINES) as unknown as KindEngine[]).find((engine) => engine.ops.includes(op));
}

/** Kinds in planning order. */
export function kindsInPlanOrder(): Kind[] {
  return (Object.keys(KIND_ENGINES) as Kind[]).sort((a, b) => KIND_ENGINES[a].planOrder - KIND_ENGINES[b].planOrder);
}
