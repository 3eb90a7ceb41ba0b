import { AccountId, RegionOptStatus, type ListRegionsRequest } from "../../contract/account.js";
import { dataSourceTypeOf } from "../../desired/terraform-attributes.js";
import type { ConvergeSession } from "../converge-session.js";
import { errorDiagnostic, isUnknown, types, type DataSourceType, type Diagnostic, type Schema } from "../runtime/index.js";

const schema: Schema = {
  description: "The Regions of an account (ListRegions, every page), optionally only those of some statuses.",
  attributes: {
    account_id: { type: types.string, optional: true, description: "The account (12 digits); the caller's own when left out." },
    region_opt_status_contains: { type: types.set(types.string), optional: true, description: "Only Regions of these statuses: ENABLED, ENABLING, DISABLING, DISABLED, ENABLED_BY_DEFAULT." },
    regions: {
      type: types.list(types.object({ region_name: types.string, region_opt_status: types.string })),
      computed: true,
      description: "The Regions, sorted by name, each with its status.",
    },
  },
};

/** terraform's name of the data source: converge_regions. */
export const REGIONS_DATA_SOURCE = dataSourceTypeOf("regions");

/** The Regions data source: ListRegions. */
export const regionsDataSource: DataSourceType<Schema, ConvergeSession> = {
  schema,
  validate({ config }) {
    const diagnostics: Diagnostic[] = [];
    if (typeof config.account_id === "string" && !AccountId.safeParse(config.account_id).success) {
      diagnostics.push(errorDiagnostic(`account_id ${JSON.stringify(config.account_id)} is not valid: expected exactly 12 digits`, undefined, ["account_id"]));
    }
    const statuses = Array.isArray(config.region_opt_status_contains) ? config.region_opt_status_contains : [];
    for (const status of statuses) {
      if (isUnknown(status) || RegionOptStatus.safeParse(status).success) continue;
      diagnostics.push(errorDiagnostic(`region_opt_status_contains ${JSON.stringify(status)} is not valid: expected one of ${RegionOptStatus.options.join(", ")}`, undefined, ["region_opt_status_contains"]));
    }
    return diagnostics;
  },
  async read({ provider: session, config, signal }) {
    const input: Omit<ListRegionsRequest, "NextToken" | "MaxResults"> = {
      ...(typeof config.account_id === "string" ? { AccountId: config.account_id } : {}),
      ...(Array.isArray(config.region_opt_status_contains) ? { RegionOptStatusContains: config.region_opt_status_contains as ListRegionsRequest["RegionOptStatusContains"] } : {}),
    };
    const regions = [];
    for await (const region of session.clients.account.listRegions(input, { signal })) regions.push({ region_name: region.RegionName, region_opt_status: region.RegionOptStatus });
    return { account_id: config.account_id ?? null, region_opt_status_contains: config.region_opt_status_contains ?? null, regions };
  },
};
