import { apiRefKey } from "../api-ref.js";
import type { ApiDocument } from "../schema.js";
import type { KindModel } from "./kind-model.js";

/** Api: declares that converge owns an API's routes and integrations; identity is the API. */
export const apiModel: KindModel<ApiDocument> = {
  kind: "Api",
  identity: (document, apiKey = apiRefKey) => apiKey(document.api),
  displayName: (document) => apiRefKey(document.api),
  readKey: (document) => ({ type: "api", ref: document.api }),
  readKeyFields: [{ path: "api" }],
  crossCheck: () => [],
  undeletable: "converge does not delete APIs",
  declaredProtocol: (document, apiKey) => (document.spec.protocolType ? { apiKey: apiKey(document.api), protocolType: document.spec.protocolType } : undefined),
};
