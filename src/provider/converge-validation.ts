import { API_DATA_SOURCE, apiDataSource } from "./data-sources/api.js";
import { REGIONS_DATA_SOURCE, regionsDataSource } from "./data-sources/regions.js";
import type { KindDocument } from "./kind-resource/binding.js";
import { validateKindConfig } from "./kind-resource/validate.js";
import { validateProviderConfig } from "./provider-config.js";
import { alternateContactDocument } from "./resources/alternate-contact-document.js";
import { integrationDocument } from "./resources/integration-document.js";
import { regionOptInDocument } from "./resources/region-opt-in-document.js";
import { routeDocument } from "./resources/route-document.js";
import type { ProviderValidation } from "./runtime/schemas-first-provider.js";

/** The kinds' documents, whose schemas validate the resources' configuration. */
const KIND_DOCUMENTS: ReadonlyArray<KindDocument> = [alternateContactDocument, regionOptInDocument, integrationDocument, routeDocument];

/**
 * How the converge provider validates configuration, with the functions its definition
 * (converge-provider.ts) validates with: the provider block (provider-config.ts), each resource by
 * its kind's document schema (kind-resource/validate.ts), each data source by its own `validate`.
 * It imports neither the clients nor the engine: terraform starts one provider process per command
 * only to validate, and main.ts serves validation from this module alone.
 */
export const convergeValidation: ProviderValidation = {
  validate: ({ config }: { readonly config: Parameters<typeof validateProviderConfig>[0] }) => validateProviderConfig(config),
  resources: Object.fromEntries(KIND_DOCUMENTS.map((document) => [document.typeName, { validate: ({ config }: { readonly config: Parameters<typeof validateKindConfig>[1] }) => validateKindConfig(document, config) }])),
  dataSources: {
    [API_DATA_SOURCE]: { validate: apiDataSource.validate! },
    [REGIONS_DATA_SOURCE]: { validate: regionsDataSource.validate! },
  },
};
