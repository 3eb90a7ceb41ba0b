import type { PlannedAction } from "../../reconcile/model.js";
import { planDocument, type ConvergeSession } from "../converge-session.js";
import { hasChangedFields, hasNaturalImport, type KindBinding, type Values } from "./binding.js";
import { checkedDocument, needsOf } from "./document-check.js";
import { heldOrLive } from "./held-or-live.js";
import { hold } from "./holding.js";
import type { ResourceCall } from "./resource-type.js";

/**
 * ReadResource of a kind's resource: the live resource the state holds, or null when it is gone;
 * refreshed by the engine's diff rules (a value the engine finds equal to live is kept as written,
 * one it finds different is live's). A state moved from a `terraform_data` holds a natural-key
 * import ID until its first read, which finds the live resource it names.
 */
export async function readResource<Live>(binding: KindBinding<Live>, session: ConvergeSession, request: ResourceCall<"read">): Promise<Values | null> {
  const { state, signal } = request;
  hold(binding, session, state);
  const live = await session.cache.read(await needsOf(binding, state), signal);
  const natural = typeof state.id === "string" && hasNaturalImport(binding) ? binding.naturalImport(state.id) : undefined;
  const counterpart = natural === undefined ? binding.liveOf(state, live) : natural.find(live);
  if (counterpart === undefined) return null;
  const liveValues = binding.liveValues(counterpart);
  // an imported state holds only the identity: what else the document needs comes from live
  const held = Object.fromEntries(binding.fields.map((field) => {
    const value = state[field.attribute] ?? null;
    return [field.attribute, value === null && field.presence === "required" ? liveValues[field.attribute] ?? null : value];
  }));
  const checked = checkedDocument(binding, { ...state, ...held }, { pin: state });
  const planned = "loaded" in checked ? await planDocument(session, checked.loaded, { signal }) : undefined;
  const changed = planned && "action" in planned ? changedFieldsOf(binding, planned.action) : new Set(binding.fields.map((field) => field.field));
  return binding.state(counterpart, heldOrLive(binding, held, liveValues, changed, { fillDefaulted: true }), state);
}

/** The spec fields an action's changes are about: the kind's own mapping, else each change's path. */
function changedFieldsOf<Live>(binding: KindBinding<Live>, action: PlannedAction): ReadonlySet<string> {
  return new Set(hasChangedFields(binding) ? binding.changedFields(action) : action.changes.map((change) => change.path));
}
