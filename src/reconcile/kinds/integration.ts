import { liveKeyOf } from "../live-keys.js";
import type { z } from "zod";
import type { DesiredStateProblem } from "../../desired/desired-state-error.js";
import { protocolProblems } from "../../desired/kinds/gateway-checks.js";
import { INTEGRATION_RULES, NATURAL_KEY_FIELDS, integrationModel } from "../../desired/kinds/integration.js";
import { problemAt } from "../../desired/kinds/kind-model.js";
import type { LoadedDocument } from "../../desired/load.js";
import type { IntegrationDocument } from "../../desired/schema.js";
import { INTEGRATION_FIELDS, integrationServerDefaults, type Integration } from "../../contract/gateway.js";
import { collect, isAmbiguousWrite } from "../../clients/index.js";
import { bodyOf, diffFields, patchOf } from "../diff.js";
import { fieldOrder, exportedSpec } from "../export-fields.js";
import { PHASE, type ActionRequest } from "../model.js";
import { creationChanges, decide, type ApplyContext, type ExportableApi, type KindEngine, type PlanContext, type ExportedDocument } from "./kind-engine.js";
import { resolveGatewayDocument, integrationAddress } from "./gateway-common.js";
import { settleCreatedTwins } from "./integration-created-twins.js";
import { createdIntegrations, integrationIds, matchesNaturalKey, resolveIntegrationName } from "./integration-identity.js";
import type { IntegrationRequest } from "./integration-request.js";
import { resolveTwins, twinRepairActions } from "./integration-twins.js";
import { routesTargeting } from "./route.js";

function describeCandidate(integration: Integration): string {
  const parts = [integration.integrationId, integration.integrationType, integration.integrationMethod, integration.integrationUri].filter(Boolean);
  return parts.join(" ");
}

/** Whether a request is one of the Integration engine's. */
export function isIntegrationRequest(request: ActionRequest | undefined): request is IntegrationRequest {
  return request !== undefined && (integrationEngine.ops as ReadonlyArray<string>).includes(request.op);
}

/** Integration: matched by a pinned integrationId, else by its natural key; several live matches are refused with the candidates. */
export const integrationEngine = {
  model: integrationModel,
  planOrder: 0,
  ops: ["createIntegration", "updateIntegration", "deleteIntegration", "none"],

  plan(loaded, context) {
    const document = loaded.document;
    const resolved = resolveGatewayDocument(loaded, INTEGRATION_RULES, context);
    if ("failed" in resolved) return resolved.failed;
    const { apiId, protocolType, liveApi } = resolved;
    const spec = document.spec as Record<string, unknown>;
    const matched = matchIntegration(loaded, apiId, liveApi.integrations, context);
    if ("problems" in matched) return { actions: [], problems: matched.problems };
    const match = matched.match;
    if (match) context.claim("integrations", apiId, match.integrationId);
    return decide<Integration>({
      base: {
        kind: "Integration",
        address: integrationAddress(apiId, document.name),
        name: document.name,
        identity: `${apiId}/${document.name}`,
        source: loaded.source,
      },
      ensure: document.ensure,
      live: match,
      phases: { present: PHASE.integrations, delete: PHASE.integrationDeletes },
      delete: (live) => ({ op: "deleteIntegration", apiId, integrationId: live.integrationId }),
      create() {
        if (document.spec.integrationId !== undefined) {
          return { refused: `pinned integrationId ${document.spec.integrationId} does not exist in API ${apiId}: remove the pin to create a new integration` };
        }
        const problems = protocolType ? protocolProblems(loaded, INTEGRATION_RULES, protocolType, true) : [];
        if (problems.length > 0) return { problems };
        resolveIntegrationName(context, apiId, document.name, "pending");
        const body = bodyOf(spec, ["integrationId"]);
        return { changes: creationChanges(body), request: { op: "createIntegration", apiId, name: document.name, body } };
      },
      compare(live) {
        resolveIntegrationName(context, apiId, document.name, live.integrationId);
        const changes = diffFields(spec, live as Record<string, unknown>, { defaults: integrationServerDefaults(protocolType), ignore: ["integrationId"] });
        return {
          changes,
          request: { op: "updateIntegration", apiId, name: document.name, integrationId: live.integrationId, patch: patchOf(changes) },
          unchanged: { op: "none", apiId, name: document.name, integrationId: live.integrationId },
        };
      },
    });
  },

  async execute(request, context) {
    const gateway = context.clients.gateway;
    const signal = context.signal;
    switch (request.op) {
      case "createIntegration": {
        const created = await createIntegrationOnce(request.apiId, request.body, context);
        integrationIds(context).set(`${request.apiId}/${request.name}`, created.integration.integrationId);
        createdIntegrations(context).push({ apiId: request.apiId, name: request.name, ...created });
        return;
      }
      case "updateIntegration":
        await gateway.updateIntegration(request.apiId, request.integrationId, request.patch, { signal });
        integrationIds(context).set(`${request.apiId}/${request.name}`, request.integrationId);
        return;
      case "deleteIntegration":
        await gateway.deleteIntegration(request.apiId, request.integrationId, { signal });
        return;
      default:
        return;
    }
  },

  repairs: (planned, context) => twinRepairActions(planned, context),

  liveResources: (live) => Object.values(live.apis).flatMap((api) => api.integrations.map((integration) => ({
    key: liveKeyOf("integrations", api.apiId, integration.integrationId),
    address: integrationAddress(api.apiId, integration.integrationId),
    identity: `${api.apiId}/${integration.integrationId}`,
    serviceManaged: integration.apiGatewayManaged === true,
  }))),
  unclaimed: (api, context, { source, reason }) => api.integrations
    .filter((live) => !context.isClaimed("integrations", api.apiId, live.integrationId))
    .map((live) => ({
      kind: "Integration", address: integrationAddress(api.apiId, live.integrationId), name: live.integrationId,
      identity: unclaimedIdentity(api.apiId, live), source,
      type: "delete", phase: PHASE.integrationDeletes, changes: [], reason,
      request: { op: "deleteIntegration", apiId: api.apiId, integrationId: live.integrationId },
    })),

  refusal(request, _action, context) {
    if (request.op !== "deleteIntegration") return undefined;
    const integration = context.live.apis[request.apiId]?.integrations.find((candidate) => candidate.integrationId === request.integrationId);
    if (integration?.apiGatewayManaged) {
      return `integration ${integration.integrationId} is managed by the service (quick create): it may be updated, never deleted`;
    }
    const targeting = routesTargeting(context, request.apiId, `integrations/${request.integrationId}`);
    if (targeting.length > 0) {
      return `integration ${request.integrationId} is still the target of route${targeting.length > 1 ? "s" : ""} ${targeting.join(", ")}: `
        + `retarget or delete ${targeting.length > 1 ? "them" : "it"} first`;
    }
    return undefined;
  },

  deleted: (request) => (request.op === "deleteIntegration"
    ? { description: `integration ${request.integrationId}`, claim: { collection: "integrations", apiId: request.apiId, id: request.integrationId } }
    : undefined),

  provides: (request) => (request.op === "createIntegration" ? `${request.apiId}/${request.name}` : undefined),

  seed(request, context) {
    if ((request.op === "none" || request.op === "updateIntegration") && request.apiId && request.name && request.integrationId) {
      integrationIds(context).set(`${request.apiId}/${request.name}`, request.integrationId);
    }
  },

  settle: (context, limit) => settleCreatedTwins(context, limit),

  exportOrder: 1,
  exportApi: (api, names) => exportIntegrations(api, names),
  /** `converge_integration` (src/provider/resources/integration.ts), imported by `API_ID/INTEGRATION_ID`; its pin is the import, not an attribute. */
  terraformExport: {
    fields: INTEGRATION_FIELDS,
    label: (document) => String((document as IntegrationInput).name),
    importId: (document) => `${String((document as IntegrationInput).api)}/${String((document as IntegrationInput).spec.integrationId)}`,
    referenceName: (document) => (document as IntegrationInput).name,
  },
  unmanagedChildren: {
    identities: (api) => api.integrations.map((integration) => unclaimedIdentity(api.apiId, integration)),
    keep: (api, identities) => ({
      ...api,
      integrations: api.integrations.filter((integration) => identities.has(unclaimedIdentity(api.apiId, integration))),
    }),
  },
} satisfies KindEngine<IntegrationDocument, IntegrationRequest>;

/** A live integration's identity when no document declares it (it has no logical name): `API_ID/INTEGRATION_ID`. */
function unclaimedIdentity(apiId: string, integration: Integration): string {
  return `${apiId}/${integration.integrationId}`;
}

/**
 * The live integration a document declares: its pinned one, else the one its natural key matches
 * (identical twins repaired where allowed, integration-twins.ts); several others are a problem.
 */
function matchIntegration(
  loaded: LoadedDocument<IntegrationDocument>,
  apiId: string,
  integrations: ReadonlyArray<Integration>,
  context: PlanContext,
): { readonly match: Integration | undefined } | { readonly problems: DesiredStateProblem[] } {
  const document = loaded.document;
  const spec = document.spec as Record<string, unknown>;
  if (document.spec.integrationId !== undefined) return { match: integrations.find((live) => live.integrationId === document.spec.integrationId) };
  // most documents set integrationUri: look at the live integrations with that URI only
  const byUri = context.state(`integrations-by-uri/${apiId}`, () => {
    const index = new Map<string, Integration[]>();
    for (const live of integrations) {
      const uri = live.integrationUri ?? "";
      const group = index.get(uri);
      if (group) group.push(live);
      else index.set(uri, [live]);
    }
    return index;
  });
  const pool = typeof spec.integrationUri === "string" ? byUri.get(spec.integrationUri) ?? [] : integrations;
  const candidates = withoutManagedElsewhere(pool.filter((live) => matchesNaturalKey(spec, live) && !context.isClaimed("integrations", apiId, live.integrationId)), apiId, context);
  const twins = candidates.length > 1 ? resolveTwins(loaded, apiId, candidates, context) : undefined;
  if (twins && "hint" in twins) {
    const listed = candidates.map(describeCandidate).join("; ");
    return {
      problems: [problemAt(loaded, ["spec"], `integration ${JSON.stringify(document.name)} `
        + `matches ${candidates.length} live integrations of API ${apiId} by its natural key `
        + `(${NATURAL_KEY_FIELDS.join(", ")}): ${listed}. Pin the one you mean with spec.integrationId${twins.hint}`)],
    };
  }
  return { match: twins ? twins.survivor : candidates[0] };
}

/**
 * Of several live integrations of one natural key, those another source does not manage (a terraform
 * state given with --state pins its own by ID): the twin a terraform configuration made beside the
 * documents' is its, not a second candidate of theirs. All of them when that would leave none (a
 * live integration both claim is then drift's conflict, never a create).
 */
function withoutManagedElsewhere(candidates: Integration[], apiId: string, context: PlanContext): Integration[] {
  const elsewhere = context.options.managedElsewhere;
  if (candidates.length < 2 || elsewhere === undefined) return candidates;
  const own = candidates.filter((live) => !elsewhere.has(liveKeyOf("integrations", apiId, live.integrationId)));
  return own.length > 0 ? own : candidates;
}

/**
 * Creates an integration without ever duplicating it: after an ambiguous failure, the API's
 * integrations are read again and one matching the body adopted before any new attempt. (Planning
 * matched every live integration with this natural key already, and two documents never share one,
 * so a match that no document claims was made by this create.)
 */
async function createIntegrationOnce(
  apiId: string,
  body: Readonly<Record<string, unknown>>,
  context: ApplyContext,
): Promise<{ integration: Integration; ours: boolean }> {
  const gateway = context.clients.gateway;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return {
        integration: await gateway.createIntegration(apiId, body as Parameters<typeof gateway.createIntegration>[1], { signal: context.signal }),
        ours: true,
      };
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
  return new Set(integrationIds(context).values());
}

type IntegrationInput = z.input<typeof IntegrationDocument>;

/** Field order in exported specs: identity first, as the examples write them; then the rest in wire order. */
const INTEGRATION_FIELD_ORDER = fieldOrder(
  [
    "integrationType", "integrationSubtype", "integrationUri", "integrationMethod", "connectionType", "connectionId",
    "payloadFormatVersion", "timeoutInMillis", "description",
  ],
  Object.keys(INTEGRATION_FIELDS),
);

/** An API's integrations as documents, pinned by integrationId under their derived logical names; managed ones apart. */
function exportIntegrations(api: ExportableApi, names: ReadonlyMap<string, string>): { documents: ExportedDocument[]; commented: ExportedDocument[] } {
  const document = (integration: Integration): ExportedDocument => ({
    kind: "Integration",
    name: names.get(integration.integrationId)!,
    api: api.apiId,
    spec: {
      integrationId: integration.integrationId,
      ...exportedSpec(integration, INTEGRATION_FIELD_ORDER, integrationServerDefaults(api.protocolType)),
    } as z.input<typeof IntegrationDocument>["spec"],
  });
  return {
    documents: api.integrations.filter((integration) => !integration.apiGatewayManaged).map(document),
    commented: api.integrations.filter((integration) => integration.apiGatewayManaged).map(document),
  };
}
