import type { LiveApi } from "../../src/reconcile/model.js";

/** A live API for tests: the fields given, every child collection not given empty (a new collection is added here alone). */
export function liveApi<A extends Pick<LiveApi, "apiId"> & Partial<LiveApi>>(api: A): LiveApi & A {
  return { routes: [], integrations: [], ...api };
}
