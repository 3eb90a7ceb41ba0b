import type { LoadedDocument } from "../../desired/load.js";
import type { IntegrationDocument } from "../../desired/schema.js";
import type { Integration } from "../../contract/gateway.js";
import { canonicalJson } from "../../desired/canonical-json.js";
import { integrationAddress, routeAddress } from "./gateway-common.js";
import type { DocumentAction, PlanContext } from "./kind-engine.js";
import type { IntegrationRequest } from "./integration-request.js";
import { isRouteRequest, type RouteRequest } from "./route.js";
import { PHASE, type PlannedAction } from "../model.js";

/**
 * Twin integrations: what two converge runs leave when both create the same integration at once
 * (docs/manual/plan-and-apply.md). Two parts, both deterministic so that any number of
 * runs agree on which twin survives: the first in the API's listing, which is in creation order.
 *
 * - After creating, a run settles twins of what it created (integration-created-twins.ts): it lists the API
 *   once, and when an integration with the same natural key was created before its own, it adopts
 *   that one and deletes its own. The first one created is never deleted (nothing was created
 *   before it), and every run lists after its own create landed, so after the first one's: every
 *   run sees the same first one.
 * - Planning repairs identical twins it finds (resolveTwins, twinRepairActions): where an unpinned
 *   document matches several live integrations that are identical twins (none managed by the
 *   service, equal in every field but integrationId), in an API the plan prunes or with
 *   --repair-twins, it keeps the first, retargets the routes that target the others to it, and
 *   deletes the others. Any other set of matches stays ambiguous and is refused.
 */

/** Identical twins of a declared integration, to repair: keep `survivor`, delete `losers`. */
export interface TwinGroup {
  readonly apiId: string;
  readonly survivor: Integration;
  readonly losers: ReadonlyArray<Integration>;
  /** The Integration document that matched them. */
  readonly document: LoadedDocument<IntegrationDocument>;
  readonly why: "pruned" | "repair-twins";
}

/** The fields (besides integrationId) in which two live integrations differ, sorted; empty for identical twins. */
export function twinDifferences(a: Integration, b: Integration): string[] {
  const left = a as Readonly<Record<string, unknown>>;
  const right = b as Readonly<Record<string, unknown>>;
  const fields = new Set([...Object.keys(left), ...Object.keys(right)]);
  fields.delete("integrationId");
  return [...fields].filter((field) => canonicalJson(left[field]) !== canonicalJson(right[field])).sort();
}

/**
 * Planning an unpinned document whose natural key matches several live `candidates`: the one it
 * keeps when they are identical twins and their repair is allowed in the API (the others are then
 * claimed and recorded for twinRepairActions), or a hint for the ambiguity problem saying why not.
 */
export function resolveTwins(
  loaded: LoadedDocument<IntegrationDocument>,
  apiId: string,
  candidates: ReadonlyArray<Integration>,
  context: PlanContext,
): { readonly survivor: Integration } | { readonly hint: string } {
  const order = context.state(`integration-order/${apiId}`, () =>
    new Map(context.live.apis[apiId]!.integrations.map((live, index) => [live.integrationId, index])));
  const [survivor, ...losers] = [...candidates].sort((a, b) => order.get(a.integrationId)! - order.get(b.integrationId)!) as [Integration, ...Integration[]];
  const managed = candidates.filter((candidate) => candidate.apiGatewayManaged);
  if (managed.length > 0) {
    return { hint: ` (${managed.map((candidate) => candidate.integrationId).join(", ")} ${managed.length > 1 ? "are" : "is"} `
      + `managed by the service, so they are not identical twins)` };
  }
  const different = losers.find((loser) => twinDifferences(survivor, loser).length > 0);
  if (different) {
    return { hint: ` (they are not identical twins: ${different.integrationId} differs from ${survivor.integrationId} `
      + `in ${twinDifferences(survivor, different).join(", ")}). Two managers of one backend make such twins (a terraform `
      + "configuration beside these documents, say): give its state (terraform state pull | converge plan -f … --state -) "
      + "and the twin it holds is left to it" };
  }
  const why = twinRepairOf(apiId, context);
  if (loaded.document.ensure !== "present") return { hint: "" };
  if (why === undefined) {
    return { hint: ` (they are identical twins, equal in every field but integrationId: converge apply repairs them, `
      + `keeping the first, ${survivor.integrationId}, in an API a kind: Api document prunes, or with --repair-twins)` };
  }
  for (const loser of losers) context.claim("integrations", apiId, loser.integrationId);
  recordedTwins(context).push({ apiId, survivor, losers, document: loaded, why });
  return { survivor };
}

/**
 * The actions that repair recorded twins, planned once every document is: a delete of each twin
 * the document does not keep, and a retarget to the kept one of each live route that targets a
 * deleted twin and that neither a document declares (its own plan retargets it, by name) nor a
 * planned action deletes. The protections still judge every delete.
 */
export function twinRepairActions(planned: ReadonlyArray<PlannedAction>, context: PlanContext): DocumentAction[] {
  const twins = recordedTwins(context);
  const deletedRoutes = new Set(planned.flatMap(({ request }) => (isRouteRequest(request) && request.op === "deleteRoute"
    ? [`${request.apiId}/${request.routeId}`]
    : [])));
  const actions: DocumentAction[] = [];
  for (const { apiId, survivor, losers, document, why } of twins) {
    const { source } = document;
    const name = document.document.name;
    const kept = `integrations/${survivor.integrationId}`;
    const because = why === "pruned" ? `API ${apiId} is pruned` : "--repair-twins";
    for (const loser of losers) {
      const target = `integrations/${loser.integrationId}`;
      for (const route of context.live.apis[apiId]!.routes) {
        if (route.target !== target || context.isClaimed("routes", apiId, route.routeId) || deletedRoutes.has(`${apiId}/${route.routeId}`)) continue;
        const retarget: RouteRequest = { op: "updateRoute", apiId, routeId: route.routeId, patch: { target: kept } };
        actions.push({ document, action: {
          kind: "Route", address: routeAddress(apiId, route.routeKey), name: route.routeKey, identity: `${apiId}/${route.routeKey}`, source,
          type: "update", phase: PHASE.routes, changes: [{ path: "target", before: target, after: kept }],
          reason: `retargeted from ${loser.integrationId} to its identical twin ${survivor.integrationId}, which ${JSON.stringify(name)} keeps (${because})`,
          request: retarget,
        } });
      }
      const deleteTwin: IntegrationRequest = { op: "deleteIntegration", apiId, integrationId: loser.integrationId };
      actions.push({ document, action: {
        kind: "Integration", address: integrationAddress(apiId, loser.integrationId), name: loser.integrationId,
        identity: `${apiId}/${loser.integrationId}`, source,
        type: "delete", phase: PHASE.integrationDeletes, changes: [],
        reason: `identical twin of ${survivor.integrationId}, which ${JSON.stringify(name)} keeps (${because})`,
        request: deleteTwin,
      } });
    }
  }
  return actions;
}

/**
 * Why identical twins of a declared integration in this API plan as a repair: the API is pruned
 * (`kind: Api` with prune, or --prune), or --repair-twins; undefined: they stay an ambiguous match
 * (always with PlanOptions.refuseTwins).
 */
function twinRepairOf(apiId: string, context: PlanContext): TwinGroup["why"] | undefined {
  if (context.options.refuseTwins) return undefined;
  return context.prunes(apiId) ? "pruned" : context.options.repairTwins ? "repair-twins" : undefined;
}

/** The twins recorded while planning, for twinRepairActions once every document is planned. */
function recordedTwins(context: PlanContext): TwinGroup[] {
  return context.state("integration-twins", (): TwinGroup[] => []);
}
