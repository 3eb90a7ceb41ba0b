import type { KindBinding } from "./binding.js";
import { deleteResource } from "./delete.js";
import { importResource } from "./import.js";
import { moveResource } from "./move.js";
import { planResource } from "./plan.js";
import { readResource } from "./read.js";
import type { ConvergeResourceType } from "./resource-type.js";
import { validateKindConfig } from "./validate.js";
import { createResource, updateResource } from "./write.js";

export type {
  BindingWithAdoption,
  BindingWithChangedFields,
  BindingWithDeleteView,
  BindingWithHolding,
  BindingWithMoves,
  BindingWithNaturalImport,
  KindBinding,
  KindDocument,
  NaturalImport,
  Values,
} from "./binding.js";

/** A converge kind's terraform resource under its type name (the name is written once, in the kind's binding). */
export interface KindResource {
  readonly typeName: string;
  readonly resource: ConvergeResourceType;
}

/**
 * A terraform resource of a converge kind: validation by the kind's schema, plans and protections
 * by the kind's engine against the live state of the command (plan.ts), creates, updates and
 * deletes by the engine's requests (write.ts, delete.ts), refresh by the engine's diff rules
 * (read.ts), import (import.ts) and state moved from a `terraform_data` (move.ts).
 */
export function kindResource<Live>(binding: KindBinding<Live>): KindResource {
  const resource: ConvergeResourceType = {
    schema: binding.schema,
    validate: ({ config }) => validateKindConfig(binding, config),
    plan: (request) => planResource(binding, request.provider, request),
    read: (request) => readResource(binding, request.provider, request),
    create: (request) => createResource(binding, request.provider, request),
    update: (request) => updateResource(binding, request.provider, request),
    delete: (request) => deleteResource(binding, request.provider, request),
    importState: (request) => importResource(binding, request.provider, request),
    moveState: (request) => moveResource(binding, request),
  };
  return { typeName: binding.typeName, resource };
}

/** The resources of kinds as a provider lists them: by type name, in the order given. */
export function resourcesByTypeName(resources: ReadonlyArray<KindResource>): Record<string, ConvergeResourceType> {
  return Object.fromEntries(resources.map(({ typeName, resource }) => [typeName, resource]));
}
