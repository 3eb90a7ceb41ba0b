import type { Document, Kind } from "../schema.js";
import { alternateContactModel } from "./alternate-contact.js";
import { apiModel } from "./api.js";
import { integrationModel } from "./integration.js";
import type { KindModel } from "./kind-model.js";
import { regionOptInModel } from "./region-opt-in.js";
import { routeModel } from "./route.js";

/** The model half of every resource kind (the engine half: src/reconcile/kinds/registry.ts). */
export const KIND_MODELS = {
  AlternateContact: alternateContactModel,
  Integration: integrationModel,
  Route: routeModel,
  RegionOptIn: regionOptInModel,
  Api: apiModel,
} as const satisfies { [K in Kind]: KindModel<Extract<Document, { kind: K }>> };

/** The model of a document's kind (typed loosely: callers pass documents of that kind). */
export function modelOf(kind: Kind): KindModel {
  return KIND_MODELS[kind] as unknown as KindModel;
}
