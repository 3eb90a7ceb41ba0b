import type { Integration } from "../../contract/gateway.js";
import { NATURAL_KEY_FIELDS } from "../../desired/kinds/integration.js";
import { deepEqual } from "../diff.js";
import type { ApplyContext, PlanContext } from "./kind-engine.js";

const NATURAL_KEY_DEFAULTS: Readonly<Record<string, unknown>> = { connectionType: "INTERNET" };


/** An integration this apply created, or adopted after its create's answer was lost. */
export interface CreatedIntegration {
  readonly apiId: string;
  /** The logical name of the document that created it. */
  readonly name: string;
  readonly integration: Integration;
  /** Created by this apply (false: adopted, perhaps another run's). */
  readonly ours: boolean;
}

/**
 * Whether a live integration matches a document's natural key: every key field the document sets
 * equals the live one (server defaults filled in); a field set to null must be absent; an omitted
 * field matches anything.
 */
export function matchesNaturalKey(spec: Readonly<Record<string, unknown>>, live: Integration): boolean {
  return NATURAL_KEY_FIELDS.every((field) => {
    const want = spec[field];
    if (want === undefined) return true;
    const have = (live as Record<string, unknown>)[field] ?? NATURAL_KEY_DEFAULTS[field] ?? null;
    return want === null ? have === null || deepEqual(have, NATURAL_KEY_DEFAULTS[field]) : deepEqual(want, have);
  });
}

/**
 * Records, while planning an integration's document, which live integration its logical name
 * resolved to (`pending`: this apply creates it), for the routes of the same plan that target it by
 * name (resolvedIntegrationId). Integrations plan before routes (their `planOrder`).
 */
export function resolveIntegrationName(context: PlanContext, apiId: string, name: string, integrationId: string | "pending"): void {
  plannedIntegrationNames(context).set(`${apiId}/${name}`, integrationId);
}

/** The live integration a logical name of the API resolved to earlier in this plan, `pending` when this apply creates it, or undefined when no document of the plan declares it. */
export function resolvedIntegrationId(context: PlanContext, apiId: string, name: string): string | "pending" | undefined {
  return plannedIntegrationNames(context).get(`${apiId}/${name}`);
}

/** `<apiId>/<logical name>` → integrationId or `pending`, for the length of one plan. */
function plannedIntegrationNames(context: PlanContext): Map<string, string> {
  return context.state("integration-names", () => new Map<string, string>());
}

/** `<apiId>/<logical name>` → integrationId, filled from the plan and by creates, for the routes that target them. */
export function integrationIds(context: ApplyContext): Map<string, string> {
  return context.state("integration-ids", () => new Map<string, string>());
}

/** Integrations created in the current phase, settled against twins after it (integration-created-twins.ts). */
export function createdIntegrations(context: ApplyContext): CreatedIntegration[] {
  return context.state("created-integrations", (): CreatedIntegration[] => []);
}
