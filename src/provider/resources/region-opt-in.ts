import type { Region } from "../../contract/account.js";
import { kindResource, type BindingWithAdoption, type BindingWithChangedFields, type BindingWithMoves, type KindBinding } from "../kind-resource/index.js";
import { types } from "../runtime/index.js";
import { accountChild } from "./account-child.js";
import { regionOptInDocument } from "./region-opt-in-document.js";

const ENABLED_LIKE: ReadonlySet<string> = new Set(["ENABLED", "ENABLING", "ENABLED_BY_DEFAULT"]);

/** A Region of an account as the service lists it. */
interface LiveRegion {
  readonly region: string;
  readonly status: Region["RegionOptStatus"];
}

/**
 * converge's RegionOptIn kind, in terraform: its binding (how its values become the kind's document,
 * where its live counterpart is), which takes moved state, never adopts (a Region always exists) and
 * maps the engine's change of status to `enabled`.
 */
export const regionOptInBinding: KindBinding<LiveRegion> & BindingWithMoves & BindingWithAdoption & BindingWithChangedFields = {
  ...accountChild<LiveRegion>({
    document: regionOptInDocument,
    description: "Whether an opt-in Region is enabled for an account (converge's `RegionOptIn` kind). Destroying it leaves the Region as it is.",
    accountDescription: "The account (12 digits); the caller's own when left out. Changing it replaces the resource.",
    computed: {
      opt_status: { type: types.string, computed: true, description: "The Region's status as the service reports it: ENABLED, ENABLING, DISABLING, DISABLED or ENABLED_BY_DEFAULT." },
    },
    computedValues: (region) => ({ opt_status: region.status }),
    keyImportName: "REGION_NAME",
    find(account, values, live) {
      const region = String(values.region_name);
      const status = live.regions[account]?.[region];
      return status === undefined ? undefined : { region, status };
    },
  }),
  mayAdopt: false,
  liveValues: (region) => ({ region_name: region.region, enabled: ENABLED_LIKE.has(region.status) }),
  /** The engine's change of an opt-in is the Region's status: its enabled attribute. */
  changedFields: (action) => (action.changes.length > 0 ? ["enabled"] : []),
  describe: (region) => `Region ${region.region} (${region.status})`,
};

/** The RegionOptIn kind's resource: the shared flow of kind-resource/ over regionOptInBinding. */
export const regionOptInResource = kindResource<LiveRegion>(regionOptInBinding);
