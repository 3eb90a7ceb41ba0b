import { documentOfMovedState } from "../moved-from-terraform-data.js";
import { hasMoves, hasNaturalImport, type KindBinding, type Values } from "./binding.js";
import type { ResourceCall } from "./resource-type.js";

/**
 * MoveResourceState of a kind's resource, from a `terraform_data` whose input is a document of the
 * kind (moved-from-terraform-data.ts): the state an import of the document's import ID starts from,
 * made without the service (terraform moves before it configures the provider). A natural-key ID
 * stays the state's `id` until `read` finds the live resource it names. Null for a kind that takes
 * no moved state, or a source that is not a `terraform_data`.
 */
export async function moveResource<Live>(binding: KindBinding<Live>, request: ResourceCall<"moveState">): Promise<Values | null> {
  if (!hasMoves(binding)) return null;
  const document = documentOfMovedState(binding.kind, binding.typeName, request);
  if (document === null) return null;
  const id = binding.importIdOf(document);
  const natural = hasNaturalImport(binding) ? binding.naturalImport(id) : undefined;
  const empty = Object.fromEntries(Object.keys(binding.schema.attributes).map((attribute) => [attribute, null]));
  return natural === undefined ? { ...empty, ...binding.importId(id) } : { ...empty, ...natural.values, id };
}
