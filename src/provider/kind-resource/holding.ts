import type { LoadedDocument } from "../../desired/load.js";
import { planDocument, type ConvergeSession, type OnePlan } from "../converge-session.js";
import { hasHolding, type KindBinding, type Values } from "./binding.js";
import { needsOf } from "./document-check.js";

/** Notes the live resource a state holds, so that no new resource of this command adopts it (kinds with `BindingWithHolding` only). */
export function hold<Live>(binding: KindBinding<Live>, session: ConvergeSession, state: Values | null): void {
  if (state === null || !hasHolding(binding)) return;
  const key = binding.holding.heldKey(state);
  if (key !== undefined) session.held.add(key);
}

/**
 * Plans a new resource as the engine does; for a kind with `BindingWithHolding`, adopting only a live
 * resource that is as declared (a no-op), was live before the command (never what another
 * resource of it just created), and no state seen holds; else it plans a create. One that
 * differs may belong to a resource terraform does not call the provider for (it calls it only for
 * the resources it changes): adopting it would make two resources fight over one live resource.
 */
export async function planNew<Live>(binding: KindBinding<Live>, session: ConvergeSession, loaded: LoadedDocument, values: Values, signal: AbortSignal): Promise<OnePlan> {
  if (!hasHolding(binding)) return planDocument(session, loaded, { signal });
  const { holding } = binding;
  const needs = await needsOf(binding, values);
  const before = new Set(holding.matches(await session.cache.firstRead(needs, signal), loaded.document));
  for (const key of holding.matches(await session.cache.read(needs, signal), loaded.document)) {
    if (!before.has(key) || session.held.has(key)) continue;
    const planned = await planDocument(session, loaded, { signal, live: (live) => holding.only(live, loaded.document, key) });
    if (!("action" in planned) || planned.action.type === "no-op") return planned;
  }
  return planDocument(session, loaded, { signal, live: (live) => holding.only(live, loaded.document, undefined) });
}

/**
 * The live resources of the document's identity (integrations of its natural key) that were live
 * before the command and that no state seen holds, for a kind with `BindingWithHolding`: what a
 * create now makes a twin of, beside a resource another manager may keep (converge's documents,
 * another configuration). Their keys are their import IDs (`API_ID/INTEGRATION_ID`).
 */
export async function unheldTwins<Live>(binding: KindBinding<Live>, session: ConvergeSession, loaded: LoadedDocument, values: Values, signal: AbortSignal): Promise<string[]> {
  if (!hasHolding(binding)) return [];
  const needs = await needsOf(binding, values);
  return binding.holding.matches(await session.cache.firstRead(needs, signal), loaded.document).filter((key) => !session.held.has(key));
}
