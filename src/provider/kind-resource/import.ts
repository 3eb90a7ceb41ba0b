import type { ConvergeSession } from "../converge-session.js";
import { hasNaturalImport, type KindBinding, type Values } from "./binding.js";
import { needsOf } from "./document-check.js";
import type { ResourceCall } from "./resource-type.js";

/**
 * ImportResourceState of a kind's resource: the state's identity from the import ID (`importId`'s
 * form), or, for an ID that names the live resource by converge's identity, the IDs of the one live
 * resource it names. `read`, which terraform calls next, fills in the rest.
 */
export async function importResource<Live>(binding: KindBinding<Live>, session: ConvergeSession, request: ResourceCall<"importState">): Promise<Values> {
  const natural = hasNaturalImport(binding) ? binding.naturalImport(request.id) : undefined;
  if (natural === undefined) return binding.importId(request.id);
  const counterpart = natural.find(await session.cache.read(await needsOf(binding, natural.values), request.signal));
  return binding.state(counterpart, Object.fromEntries(binding.fields.map((field) => [field.attribute, null])), natural.values);
}
