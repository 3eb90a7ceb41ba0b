import { protocolProblems } from "../../desired/kinds/gateway-checks.js";
import { NATURAL_KEY_FIELDS, integrationModel } from "../../desired/kinds/integration.js";
import { problemAt } from "../../desired/kinds/kind-model.js";
import type { IntegrationDocument } from "../../desired/schema.js";
import { integrationServerDefaults, type Integration } from "../../spec/gateway.js";
import { collect, isAmbiguousWrite } from "../../clients/index.js";
import { bodyOf, deepEqual, diffFields, patchOf } from "../diff.js";
import { PHASE, type PlannedAction } from "../model.js";
import type { ApplyContext, KindEngine } from "./kind-engine.js";
import { resolveGatewayDocument, integrationAddress } from "./gateway-common.js";
import { resolveTwins } from "../twins.js";

const NATURAL_KEY_DEFAULTS: Readonly<Record<string, unknown>> = { connectionType: "INTERNET" };

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


function describeCandidate(integration: Integration): string {
  const parts = [integration.integrationId, integration.integrationType, integration.integrationMethod, integration.integrationUri].filter(Boolean);
  return parts.join(" ");
}

/** Integration: matched by a pinned integrationId, else by its natural key; several live matches are refused with the candidates. */
export const integrationEngine: KindEngine<IntegrationDocument> = {
  model: integrationModel,
  planOrder: 0,
  ops: ["createIntegration", "updateIntegration", "deleteIntegration"],

  plan(loaded, context) {
    const document = loaded.document;
    const resolved = resolveGatewayDocument(loaded, context);
    if ("failed" in resolved) return resolved.failed;
    const { apiId, protocolType, liveApi } = resolved;
    const address = integrationAddress(apiId, document.name);
    const base = { kind: "Integration" as const, address, name: document.name, identity: `${apiId}/${document.name}`, source: loaded.source };
    const action = (fields: Omit<PlannedAction, keyof typeof base>): PlannedAction => ({ ...base, ...fields });
    const spec = document.spec as Record<string, unknown>;

    let match: Integration | undefined;
    if (document.spec.integrationId !== undefined) {
      match = liveApi.integrations.find((live) => live.integrationId === document.spec.integrationId);
      if (!match && document.ensure === "present") {
        return { problems: [], actions: [action({ type: "refused", phase: PHASE.integrations, changes: [], reason: `pinned integrationId ${document.spec.integrationId} does not exist in API ${apiId}: remove the pin to create a new integration` })] };
      }
    } else {
      // most documents set integrationUri: look at the live integrations with that URI only
      const byUri = context.memo(`integrations-by-uri/${apiId}`, () => {
        const index = new Map<string, Integration[]>();
        for (const live of liveApi.integrations) {
          const uri = live.integrationUri ?? "";
          const group = index.get(uri);
          if (group) group.push(live);
          else index.set(uri, [live]);
        }
        return index;
      });
      const pool = typeof spec.integrationUri === "string" ? byUri.get(spec.integrationUri) ?? [] : liveApi.integrations;
      const candidates = pool.filter((live) => matchesNaturalKey(spec, live) && !context.isClaimed("integrations", apiId, live.integrationId));
      const twins = candidates.length > 1 ? resolveTwins(loaded, apiId, candidates, context) : undefined;
      if (twins && "hint" in twins) {
        return {
          actions: [],
          problems: [problemAt(loaded, ["spec"], `integration ${JSON.stringify(document.name)} matches ${candidates.length} live integrations of API ${apiId} by its natural key (${NATURAL_KEY_FIELDS.join(", ")}): ${candidates.map(describeCandidate).join("; ")}. Pin the one you mean with spec.integrationId${twins.hint}`)],
        };
      }
      match = twins ? twins.survivor : candidates[0];
    }

    if (document.ensure === "absent") {
      if (!match) return { problems: [], actions: [action({ type: "no-op", phase: PHASE.integrationDeletes, changes: [] })] };
      context.claim("integrations", apiId, match.integrationId);
      return { problems: [], actions: [action({ type: "delete", phase: PHASE.integrationDeletes, changes: [], reason: "ensure: absent", request: { op: "deleteIntegration", apiId, integrationId: match.integrationId } })] };
    }
    if (!match) {
      const createProblems = protocolType ? protocolProblems(loaded, protocolType, true) : [];
      if (createProblems.length > 0) return { actions: [], problems: createProblems };
      context.resolveIntegrationName(apiId, document.name, "pending");
      const body = bodyOf(spec, ["integrationId"]);
      return {
        problems: [],
        actions: [action({
          type: "create",
          phase: PHASE.integrations,
          changes: Object.entries(body).map(([path, after]) => ({ path, before: null, after })),
          request: { op: "createIntegration", apiId, name: document.name, body },
        })],
      };
    }
    context.claim("integrations", apiId, match.integrationId);
    context.resolveIntegrationName(apiId, document.name, match.integrationId);
    const changes = diffFields(spec, match as Record<string, unknown>, { defaults: integrationServerDefaults(protocolType), ignore: ["integrationId"] });
    const known = { op: "none" as const, apiId, name: document.name, integrationId: match.integrationId };
    if (changes.length === 0) return { problems: [], actions: [action({ type: "no-op", phase: PHASE.integrations, changes, request: known })] };
    return {
      problems: [],
      actions: [action({
        type: "update",
        phase: PHASE.integrations,
        changes,
        request: { op: "updateIntegration", apiId, name: document.name, integrationId: match.integrationId, patch: patchOf(changes) },
      })],
    };
  },

  async execute(request, context) {
    const gateway = context.clients.gateway;
    const signal = context.signal;
    switch (request.op) {
      case "createIntegration": {
        const created = await createIntegrationOnce(request.apiId, request.body, context);
        context.integrationIds.set(`${request.apiId}/${request.name}`, created.integration.integrationId);
        context.created.push({ apiId: request.apiId, name: request.name, ...created });
        return;
      }
      case "updateIntegration":
        await gateway.updateIntegration(request.apiId, request.integrationId, request.patch, { signal });
        context.integrationIds.set(`${request.apiId}/${request.name}`, request.integrationId);
        return;
      case "deleteIntegration":
        await gateway.deleteIntegration(request.apiId, request.integrationId, { signal });
        return;
      default:
        return;
    }
  },
};

/**
 * Creates an integration without ever duplicating it: after an ambiguous failure, the API's
 * integrations are read again and one matching the body adopted before any new attempt. (Planning
 * matched every live integration with this natural key already, and two documents never share one,
 * so a match that no document claims was made by this create.)
 */
async function createIntegrationOnce(apiId: string, body: Readonly<Record<string, unknown>>, context: ApplyContext): Promise<{ integration: Integration; ours: boolean }> {
  const gateway = context.clients.gateway;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { integration: await gateway.createIntegration(apiId, body as Parameters<typeof gateway.createIntegration>[1], { signal: context.signal }), ours: true };
    } catch (error) {
      if (!isAmbiguousWrite(error) || attempt >= context.createAttempts) throw error;
      const appeared = (await collect(gateway.integrations(apiId, { signal: context.signal })))
        .filter((live) => !claimedIds(context).has(live.integrationId) && matchesNaturalKey(body, live));
      if (appeared.length > 0) {
        context.notice(`adopted integration ${appeared[0]!.integrationId} created by an attempt whose answer was lost`);
        return { integration: appeared[0]!, ours: false };
      }
    }
  }
}

function claimedIds(context: ApplyContext): Set<string> {
  return new Set(context.integrationIds.values());
}
