import { apiKeyOf } from "../live-keys.js";
import { apiModel } from "../../desired/kinds/api.js";
import { problemAt } from "../../desired/kinds/kind-model.js";
import type { ApiDocument } from "../../desired/schema.js";
import { dataSourceTypeOf } from "../../desired/terraform-attributes.js";
import type { KindEngine, ExportedDocument } from "./kind-engine.js";

/**
 * Api: declares that converge owns an API's routes and integrations. With `prune: true` (or
 * --prune) every live route and integration no document declares is deleted; the protections
 * still refuse managed resources and integrations a live route targets.
 */
export const apiEngine = {
  model: apiModel,
  planOrder: 4,
  ops: [],

  needs: (document) => [{ type: "api", ref: document.api, protocolType: document.spec.protocolType }],

  prunes(loaded, context) {
    const resolved = context.resolveApi(loaded.document.api);
    return "apiId" in resolved && (loaded.document.spec.prune || context.prune) ? resolved.apiId : undefined;
  },

  plan(loaded, context) {
    const document = loaded.document;
    const resolved = context.resolveApi(document.api);
    if ("problem" in resolved) return { actions: [], problems: [problemAt(loaded, ["api"], resolved.problem)] };
    const { apiId, protocolType } = resolved;
    context.declare(apiKeyOf(apiId));
    if (document.spec.protocolType && protocolType && document.spec.protocolType !== protocolType) {
      return {
        actions: [],
        problems: [problemAt(loaded, ["spec", "protocolType"], `spec.protocolType ${JSON.stringify(document.spec.protocolType)} `
          + `does not match API ${apiId}, which is ${protocolType}`)],
      };
    }
    if (!document.spec.prune && !context.prune) return { actions: [], problems: [] };
    const live = context.live.apis[apiId]!;
    const reason = `pruned: API ${apiId} is declared owned (kind: Api) and no document declares it`;
    return { actions: context.unclaimed(live, { source: loaded.source, reason }), problems: [] };
  },

  liveResources: (live) => Object.values(live.apis).map((api) => ({
    key: apiKeyOf(api.apiId),
    address: `Api/${api.apiId}`,
    identity: api.apiId,
    serviceManaged: false,
  })),

  async execute() {
    // Api documents plan route and integration deletes, which the Route and Integration engines execute
  },

  exportOrder: 0,
  /** The API's own document: its protocol, without `prune` (routes and integrations added later are left alone). */
  terraformExport: { dataSource: dataSourceTypeOf("api") },
  exportApi: (api) => ({ documents: [{ kind: "Api", api: api.apiId, spec: { protocolType: api.protocolType } } satisfies ExportedDocument] }),
} satisfies KindEngine<ApiDocument, never>;
