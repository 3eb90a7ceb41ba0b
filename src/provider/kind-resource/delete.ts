import { modelOf } from "../../desired/kinds/registry.js";
import { applyAction, forgetRead, planDocument, type ConvergeSession } from "../converge-session.js";
import { DiagnosticsError } from "../runtime/index.js";
import type { KindBinding } from "./binding.js";
import { planDiagnostics, throwIfErrors } from "./diagnostics.js";
import { checkedDocument, needsOf } from "./document-check.js";
import { hold } from "./holding.js";
import type { ResourceCall } from "./resource-type.js";

/**
 * ApplyResourceChange's delete of a kind's resource: the engine's delete of the live resource the
 * prior state pins, unless a protection refuses it; nothing for a kind converge never deletes (a
 * Region opt-in: terraform only forgets it).
 */
export async function deleteResource<Live>(binding: KindBinding<Live>, session: ConvergeSession, request: ResourceCall<"delete">): Promise<void> {
  const { prior, signal } = request;
  hold(binding, session, prior);
  if (modelOf(binding.kind).undeletable !== undefined) return;
  const checked = checkedDocument(binding, prior, { pin: prior, ensure: "absent" });
  if (!("loaded" in checked)) throw new DiagnosticsError(checked.diagnostics);
  const planned = await planDocument(session, checked.loaded, { signal });
  if (!("action" in planned)) return;
  throwIfErrors(planDiagnostics(binding, planned, true));
  await applyAction(session, planned.action, { signal });
  // an acknowledged delete took it out of the cache; one the service answered 404 (gone already) did not
  const needs = await needsOf(binding, prior);
  if (binding.liveOf(prior, await session.cache.read(needs, signal)) !== undefined) forgetRead(session, needs);
}
