import { collect } from "../../clients/index.js";
import type { Integration } from "../../contract/gateway.js";
import { integrationAddress } from "./gateway-common.js";
import { NATURAL_KEY_FIELDS } from "../../desired/kinds/integration.js";
import { createdIntegrations, integrationIds, matchesNaturalKey } from "./integration-identity.js";
import type { ApplyContext, SettlementFailure } from "./kind-engine.js";

/**
 * The apply half of twin integrations (integration-twins.ts explains both halves and why all runs agree): after
 * a phase, the integrations it created are settled against twins another run created first. Kept
 * apart from integration-twins.ts, which the Integration handler uses while planning, because this half uses
 * the handler's natural-key matching.
 */

/**
 * Settles the integrations created (or adopted) in the phase that just ran, emptying
 * the created integrations: one listing per API; each created integration's twins are the listed ones
 * with the same natural key (every key field equal, server defaults filled in) that the service
 * does not manage and no other document of this plan holds. When the first of them (in listing,
 * that is creation, order) is another, routes will target that one, and an integration this apply
 * created itself is deleted. Runs `limit`ed; answers what failed (the rest is done).
 */
export async function settleCreatedTwins(context: ApplyContext, limit: <T>(task: () => Promise<T>) => Promise<T>): Promise<SettlementFailure[]> {
  const created = createdIntegrations(context).splice(0);
  const failures: SettlementFailure[] = [];
  if (created.length === 0) return failures;
  // integrationId → the `<apiId>/<name>` keys of the documents holding it
  const holders = new Map<string, string[]>();
  for (const [key, id] of integrationIds(context)) holders.set(id, [...(holders.get(id) ?? []), key]);
  const byApi = new Map<string, typeof created>();
  for (const entry of created) byApi.set(entry.apiId, [...(byApi.get(entry.apiId) ?? []), entry]);
  await Promise.all([...byApi].map(([apiId, entries]) => limit(async () => {
    let listing: Integration[];
    try {
      listing = await collect(context.clients.gateway.integrations(apiId, { signal: context.signal }));
    } catch (error) {
      for (const entry of entries) {
        failures.push({
          address: integrationAddress(apiId, entry.name),
          error: `created ${entry.integration.integrationId}, but could not list API ${apiId}'s integrations `
            + `to look for a twin created at the same time: ${messageOf(error)}`,
        });
      }
      return;
    }
    for (const entry of entries) {
      const key = `${apiId}/${entry.name}`;
      const heldByOthers = (id: string) => (holders.get(id) ?? []).some((holder) => holder !== key);
      const exactKey = Object.fromEntries(NATURAL_KEY_FIELDS.map((field) => [field, (entry.integration as Readonly<Record<string, unknown>>)[field] ?? null]));
      const first = listing.find((live) => !live.apiGatewayManaged && !heldByOthers(live.integrationId) && matchesNaturalKey(exactKey, live));
      if (!first || first.integrationId === entry.integration.integrationId) continue;
      integrationIds(context).set(key, first.integrationId);
      context.notice(`integration ${first.integrationId} with the same natural key was created first (another run?): `
        + `${entry.name} keeps it${entry.ours ? `, deleting ${entry.integration.integrationId}` : ""}`);
      if (!entry.ours) continue;
      try {
        await context.clients.gateway.deleteIntegration(apiId, entry.integration.integrationId, { signal: context.signal });
      } catch (error) {
        failures.push({
          address: integrationAddress(apiId, entry.name),
          error: `created ${entry.integration.integrationId}, a twin of ${first.integrationId} (created first, and kept), `
            + `but could not delete it: ${messageOf(error)}`,
        });
      }
    }
  })));
  return failures;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
