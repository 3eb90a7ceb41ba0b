import type { Document, Kind } from "../../desired/schema.js";
import type { LiveNeed } from "../model.js";
import { alternateContactEngine, contactSource, type AlternateContactRequest } from "./alternate-contact.js";
import { apiEngine } from "./api.js";
import { integrationEngine } from "./integration.js";
import type { IntegrationRequest } from "./integration-request.js";
import { apiSource } from "./gateway-common.js";
import type { KindEngine, ReadKeySource } from "./kind-engine.js";
import { regionOptInEngine, regionsSource, type RegionOptInRequest } from "./region-opt-in.js";
import { routeEngine, type RouteRequest } from "./route.js";

/**
 * The engine half of every resource kind (the model half: src/desired/kinds/registry.ts). Adding a
 * kind: its schema, a model and an engine file, its import and entry in each registry (docs/manual/layout.md,
 * "Adding a kind").
 */
export const KIND_ENGINES = {
  AlternateContact: alternateContactEngine,
  Integration: integrationEngine,
  Route: routeEngine,
  RegionOptIn: regionOptInEngine,
  Api: apiEngine,
} as const satisfies { [K in Kind]: KindEngine<Extract<Document, { kind: K }>, KindRequest> };

/** How each type of read key is read (src/reconcile/live-reader.ts); the order is the order reads interleave in. */
export const READ_KEY_SOURCES = {
  api: apiSource,
  contact: contactSource,
  regions: regionsSource,
} as const satisfies { [T in LiveNeed["type"]]: ReadKeySource<Extract<LiveNeed, { type: T }>> };

/** Every request a kind's engine executes (what a planned action's `request` holds). */
export type KindRequest = AlternateContactRequest | IntegrationRequest | RouteRequest | RegionOptInRequest;

/** The engine of a document's kind (typed loosely: callers pass documents of that kind). */
export function engineOf(kind: Kind): KindEngine {
  return KIND_ENGINES[kind] as unknown as KindEngine;
}

/** Every engine, in registry order. */
export function allEngines(): KindEngine[] {
  return Object.values(KIND_ENGINES) as unknown as KindEngine[];
}

/** The reads a document needs. */
export function needsOfDocument(document: Document): LiveNeed[] {
  const engine = engineOf(document.kind);
  return engine.needs ? engine.needs(document) : [engine.model.readKey(document)];
}

const ENGINE_BY_OP = new Map<string, KindEngine>(allEngines().flatMap((engine) => engine.ops.map((op) => [op, engine] as const)));

/** The engine that executes an action request. */
export function engineForOp(op: string): KindEngine | undefined {
  return ENGINE_BY_OP.get(op);
}

/** Kinds in planning order. */
export function kindsInPlanOrder(): Kind[] {
  return (Object.keys(KIND_ENGINES) as Kind[]).sort((a, b) => KIND_ENGINES[a].planOrder - KIND_ENGINES[b].planOrder);
}

/** The engines `converge export` writes, in the order their documents stand in a file. */
export function exportingEngines(): KindEngine[] {
  return allEngines().filter((engine) => engine.exportOrder !== undefined).sort((a, b) => a.exportOrder! - b.exportOrder!);
}
