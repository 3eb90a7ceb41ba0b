import { RegionOptInDocument } from "../schema.js";
import { accountOf } from "./account-common.js";
import type { KindModel } from "./kind-model.js";

/** The account service's name of an opt-in's field the document names otherwise: its snake_case is the terraform attribute (`region_name`). */
export const REGION_OPT_IN_SERVICE_NAMES = { region: "RegionName" } as const satisfies Partial<Readonly<Record<keyof RegionOptInDocument["spec"], string>>>;

/** RegionOptIn: identity (account, region); read with the account's other Regions by one ListRegions listing. */
export const regionOptInModel: KindModel<RegionOptInDocument> = {
  kind: "RegionOptIn",
  identity: (document) => `${accountOf(document)}/${document.spec.region}`,
  displayName: (document) => `${accountOf(document)}/${document.spec.region}`,
  readKey: (document) => ({ type: "regions", account: accountOf(document) }),
  readKeyFields: [{ path: "account", optional: true }],
  terraform: {
    fields: RegionOptInDocument.shape.spec.shape,
    required: ["region", "enabled"],
    serviceNames: REGION_OPT_IN_SERVICE_NAMES,
    parent: "account",
    keyField: "region",
    changePaths: { status: "enabled" },
    undeletable: "to opt out of the Region, set enabled = false and apply before removing the resource",
  },
  crossCheck: () => [],
  undeletable: "declare enabled: false to opt out of a Region",
};
