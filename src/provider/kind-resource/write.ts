import { applyAction, planDocument, type ConvergeSession } from "../converge-session.js";
import { DiagnosticsError, type Value } from "../runtime/index.js";
import type { KindBinding, Values } from "./binding.js";
import { planDiagnostics, throwIfErrors } from "./diagnostics.js";
import { checkedDocument, needsOf } from "./document-check.js";
import { heldOrLive } from "./held-or-live.js";
import { hold, planNew } from "./holding.js";
import type { ResourceCall } from "./resource-type.js";

/** ApplyResourceChange's create of a kind's resource: the engine's create (or the adoption it plans), then the state of what the service lists. */
export function createResource<Live>(binding: KindBinding<Live>, session: ConvergeSession, request: ResourceCall<"create">): Promise<Values> {
  return write(binding, session, request.planned, request.config, undefined, request.signal);
}

/** ApplyResourceChange's update of a kind's resource: the engine's update of the live resource the prior state pins. */
export function updateResource<Live>(binding: KindBinding<Live>, session: ConvergeSession, request: ResourceCall<"update">): Promise<Values> {
  hold(binding, session, request.prior);
  return write(binding, session, request.planned, request.config, request.prior, request.signal);
}

/** Plans the document of the planned values again (pinned by `pin`, or new), applies its one action and answers the state of the live resource it acted on. */
async function write<Live>(binding: KindBinding<Live>, session: ConvergeSession, values: Values, config: Values, pin: Values | undefined, signal: AbortSignal): Promise<Values> {
  const checked = checkedDocument(binding, asConfigured(binding, values, config), { pin });
  if (!("loaded" in checked)) throw new DiagnosticsError(checked.diagnostics);
  const planned = pin === undefined ? await planNew(binding, session, checked.loaded, values, signal) : await planDocument(session, checked.loaded, { signal });
  throwIfErrors(planDiagnostics(binding, planned));
  if (!("action" in planned)) throw new Error("no action planned");
  const context = await applyAction(session, planned.action, { signal });
  const live = await session.cache.read(await needsOf(binding, values), signal);
  const counterpart = binding.matched(planned.action, values, live, context);
  if (counterpart === undefined) throw new Error(`${binding.typeName}: the service acknowledged the ${planned.action.type}, but the resource is not in its listing`);
  // what was planned is kept exactly (terraform requires it); what only apply knew comes from live
  const state = binding.state(counterpart, heldOrLive(binding, values, binding.liveValues(counterpart), new Set(), { fillDefaulted: false }), values);
  hold(binding, session, state);
  return state;
}

/**
 * Values for the document, with each defaulted attribute as configured: the plan carries a prior
 * value forward where the configuration leaves it out, yet left out it is "don't care" to the
 * engine (which may then send the service's default, say authorizationType NONE when an
 * authorizer is detached).
 */
function asConfigured<Live>(binding: KindBinding<Live>, values: Values, config: Values): Values {
  const configured: Record<string, Value> = { ...values };
  for (const field of binding.fields) if (field.presence === "defaulted") configured[field.attribute] = config[field.attribute] ?? null;
  return configured;
}
