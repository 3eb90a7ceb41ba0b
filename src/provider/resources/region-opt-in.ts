import { REGION_OPT_IN_SERVICE_NAMES } from "../../desired/kinds/region-opt-in.js";
import { SELF } from "../../desired/read-key.js";
import { RegionOptInDocument } from "../../desired/schema.js";
import type { LiveState } from "../../reconcile/model.js";
import type { Region } from "../../contract/account.js";
import { kindResource, type KindBinding, type Values } from "../kind-resource.js";
import { types } from "../runtime/index.js";
import { attributeOfPath, specAttributes, specFields, specFromValues } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";

/** The opt-in's fields as attributes: the Region (by the service's name, RegionName) and whether it is enabled. */
const FIELDS = specFields(RegionOptInDocument.shape.spec.shape, {
  required: ["region", "enabled"],
  serviceNames: REGION_OPT_IN_SERVICE_NAMES,
  descriptions: {
    region: "The Region (e.g. `ap-east-1`); changing it replaces the resource.",
    enabled: "Whether the Region is enabled for the account. Applying waits until it is ENABLED or DISABLED.",
  },
});


const ENABLED_LIKE: ReadonlySet<string> = new Set(["ENABLED", "ENABLING", "ENABLED_BY_DEFAULT"]);

const schema = {
  description: "Whether an opt-in Region is enabled for an account (converge's `RegionOptIn` kind). Destroying it leaves the Region as it is.",
  attributes: {
    id: { type: types.string, computed: true, description: "`ACCOUNT_ID/REGION_NAME`, or `REGION_NAME` for the caller's own account: the import ID." },
    account_id: { type: types.string, optional: true, requiresReplace: true, description: "The account (12 digits); the caller's own when left out. Changing it replaces the resource." },
    opt_status: { type: types.string, computed: true, description: "The Region's status as the service reports it: ENABLED, ENABLING, DISABLING, DISABLED or ENABLED_BY_DEFAULT." },
    ...Object.fromEntries(Object.entries(specAttributes(FIELDS)).map(([name, attribute]) => [name, name === "region_name" ? { ...attribute, requiresReplace: true } : attribute])),
  },
};

/** A Region of an account as the service lists it. */
interface LiveRegion {
  readonly region: string;
  readonly status: Region["RegionOptStatus"];
}

function regionOf(values: Values, live: LiveState): LiveRegion | undefined {
  const account = typeof values.account_id === "string" ? values.account_id : SELF;
  const region = String(values.region_name);
  const status = live.regions[account]?.[region];
  return status === undefined ? undefined : { region, status };
}

/** `converge_region_opt_in`: converge's RegionOptIn kind in terraform. */
export const regionOptInBinding: KindBinding = {
  kind: "RegionOptIn",
  typeName: "converge_region_opt_in",
  schema,
  fields: FIELDS,
  identityAttributes: ["account_id", "region_name"],
  mayAdopt: false,
  computedByUpdate: ["opt_status"],

  document: (values) => ({
    kind: "RegionOptIn",
    ...(typeof values.account_id === "string" ? { account: values.account_id } : {}),
    spec: specFromValues(FIELDS, values),
  }),
  attributeOf: (path) => attributeOfPath(FIELDS, path),
  liveOf: regionOf,
  matched: (_action, values, live) => regionOf(values, live),
  liveValues: (live) => ({ region_name: (live as LiveRegion).region, enabled: ENABLED_LIKE.has((live as LiveRegion).status) }),
  /** The engine's change of an opt-in is the Region's status: its enabled attribute. */
  changedFields: (action) => (action.changes.length > 0 ? ["enabled"] : []),
  state: (live, specValues, held) => ({
    id: typeof held.account_id === "string" ? `${held.account_id}/${(live as LiveRegion).region}` : (live as LiveRegion).region,
    account_id: held.account_id ?? null,
    opt_status: (live as LiveRegion).status,
    ...specValues,
  }),
  importId(id) {
    const parts = id.includes("/") ? parseImportId(id, "converge_region_opt_in", ["ACCOUNT_ID", "REGION_NAME"]) : [undefined, id];
    return { id, account_id: parts[0] ?? null, region_name: parts[1]! };
  },
  importIdOf: (document) => {
    const { account, spec } = document as { readonly account?: string; readonly spec: { readonly region: string } };
    return account === undefined ? spec.region : `${account}/${spec.region}`;
  },
  describe: (live) => `Region ${(live as LiveRegion).region} (${(live as LiveRegion).status})`,
  requestFields: () => ({}),
};

export const regionOptInResource = kindResource(regionOptInBinding);
