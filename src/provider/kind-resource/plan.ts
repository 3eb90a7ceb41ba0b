import { modelOf } from "../../desired/kinds/registry.js";
import { planDocument, type ConvergeSession } from "../converge-session.js";
import { isUnknown, warningDiagnostic, type Diagnostic, type PlanResult, type Schema } from "../runtime/index.js";
import { hasAdoption, hasDeleteView, type KindBinding, type Values } from "./binding.js";
import { planDiagnostics, refusalDiagnostic } from "./diagnostics.js";
import { checkedDocument, identityKnown } from "./document-check.js";
import { hold, planNew, unheldTwins } from "./holding.js";
import type { ResourceCall } from "./resource-type.js";
import { attributeOfWire } from "../terraform-fields.js";
import type { PlannedAction } from "../../reconcile/model.js";

/**
 * PlanResourceChange of a kind's resource: a create, an update or a replacement planned by the
 * kind's engine against the live state of the command (its problems and refusals as diagnostics,
 * a warning when it adopts a live resource); a delete checked against the protections, so that a
 * refused destroy fails at plan.
 */
export async function planResource<Live>(binding: KindBinding<Live>, session: ConvergeSession, request: ResourceCall<"plan">): Promise<PlanResult<Schema>> {
  const { config, prior } = request;
  if (request.action === "delete" || config === null) {
    return { diagnostics: prior === null ? [] : await checkDelete(binding, session, prior, request.signal) };
  }
  hold(binding, session, prior);
  const replacing = prior !== null && binding.identityAttributes.some((attribute) => isUnknown(config[attribute] ?? null) || (config[attribute] ?? null) !== (prior[attribute] ?? null));
  const diagnostics: Diagnostic[] = replacing ? await checkDelete(binding, session, prior, request.signal) : [];
  const checked = checkedDocument(binding, config, { pin: prior !== null && !replacing ? prior : undefined });
  if (!("loaded" in checked)) return { diagnostics: [...diagnostics, ...checked.diagnostics] };
  if (!identityKnown(binding, config)) return { diagnostics };
  const isNew = prior === null || replacing;
  const planned = isNew
    ? await planNew(binding, session, checked.loaded, config, request.signal)
    : await planDocument(session, checked.loaded, { signal: request.signal });
  diagnostics.push(...planDiagnostics(binding, planned));
  if (!("action" in planned)) return { diagnostics };
  const adopts = isNew && (planned.action.type === "update" || planned.action.type === "no-op");
  if (adopts && (!hasAdoption(binding) || binding.mayAdopt)) diagnostics.push(adoptionWarning(binding, binding.matched(planned.action, config, planned.live)));
  const twins = isNew && planned.action.type === "create" ? await unheldTwins(binding, session, checked.loaded, config, request.signal) : [];
  if (twins.length > 0) diagnostics.push(twinWarning(binding, twins));
  return { diagnostics, ...(request.planned ? { planned: withSentDefaults(binding, request.planned, config, planned.action) } : {}) };
}

/** The diagnostics of deleting the resource of `prior`: a refusal by a protection, or a warning that a kind converge never deletes is only forgotten. */
async function checkDelete<Live>(binding: KindBinding<Live>, session: ConvergeSession, prior: Values, signal: AbortSignal): Promise<Diagnostic[]> {
  // a kind converge never deletes (a Region opt-in) is only forgotten by terraform
  const model = modelOf(binding.kind);
  const undeletable = model.undeletable === undefined ? undefined : model.terraform?.undeletable ?? model.undeletable;
  if (undeletable !== undefined) return [warningDiagnostic(`${binding.typeName}: destroying leaves the live resource as it is`, `converge never deletes it: ${undeletable}.`)];
  const checked = checkedDocument(binding, prior, { pin: prior, ensure: "absent" });
  if (!("loaded" in checked)) return [];
  const planned = await planDocument(session, checked.loaded, { signal, live: hasDeleteView(binding) ? binding.beforeDelete : undefined });
  // a resource whose API is gone has nothing left to delete: no problem then
  return "action" in planned && planned.action.type === "refused" ? [refusalDiagnostic(binding, planned.action, true)] : [];
}

function adoptionWarning<Live>(binding: KindBinding<Live>, counterpart: Live | undefined): Diagnostic {
  return warningDiagnostic(
    `${binding.typeName}: adopts a live resource instead of creating one`,
    `The live ${counterpart === undefined ? "resource" : binding.describe(counterpart)} is the one this resource declares, as converge matches it; terraform will manage it from now on (import it to see its values first). `
      + "If something else manages it too (converge apply -f of documents declaring it, another terraform configuration), the two will fight over it: keep it in one of them.",
  );
}

/** A create beside live resources of the same identity that no resource of this configuration holds: twins, which converge's documents can no longer tell apart. */
function twinWarning<Live>(binding: KindBinding<Live>, twins: ReadonlyArray<string>): Diagnostic {
  return warningDiagnostic(
    `${binding.typeName}: creates a twin of a live resource nothing here holds`,
    `${twins.join(", ")} already ${twins.length === 1 ? "has" : "have"} this resource's identity (for an integration, its backend) with other values, and no resource of this configuration holds ${twins.length === 1 ? "it" : "them"}: `
      + "another manager may (converge apply -f of documents declaring it, another terraform configuration). A second one makes twins that converge's documents "
      + `can no longer tell apart by identity. To manage the live one here instead, import it (import { to = ${binding.typeName}.NAME, id = "${twins[0]}" }); `
      + "to keep both, pin each elsewhere by its ID.",
  );
}

/**
 * The plan with each defaulted attribute the configuration leaves out, and the engine's request
 * sends, at the value it sends. (Computed attributes an update changes, a Region's status say, are
 * unknown in the runtime's plan already: only those marked useStateForUnknown keep their value.)
 */
function withSentDefaults<Live>(binding: KindBinding<Live>, planned: Values, config: Values, action: PlannedAction): Values {
  const sent = binding.requestFields(action);
  const adjusted: Record<string, Values[string]> = { ...planned };
  for (const field of binding.fields) {
    if (field.presence === "defaulted" && (config[field.attribute] ?? null) === null && Object.hasOwn(sent, field.field)) {
      adjusted[field.attribute] = attributeOfWire(field, sent[field.field]);
    }
  }
  return adjusted;
}
