import type { Construct } from "constructs";
import { REGION_OPT_IN_SERVICE_NAMES } from "../src/desired/kinds/region-opt-in.js";
import { RegionOptInDocument } from "../src/desired/schema.js";
import { resourceTypeOf } from "../src/desired/terraform-attributes.js";
import { ConvergeResource } from "./converge-resource.js";
import { accountAttribute, naturalImportIdOf, specAttributes } from "./provider-vehicle.js";

export interface RegionOptInProps {
  /** The 12-digit account whose Region this is. @default the account of the token's identity (the caller's own) */
  readonly account?: string;
  /** The Region's name, e.g. "ap-east-1"; with the account, its identity. @default - required */
  readonly region: string;
  /** Whether the Region is to be enabled (true) or disabled (false). @default - required */
  readonly enabled: boolean;
}

/**
 * The opt-in status of a Region (desired-state kind RegionOptIn). Identity: (account, region).
 * There is no delete: destroying or removing the construct leaves the Region as it is; declare
 * `enabled: false` to opt out. With the provider vehicle, a `converge_region_opt_in` (whose destroy
 * also leaves the Region as it is).
 */
export class RegionOptIn extends ConvergeResource {
  constructor(scope: Construct, id: string, props: RegionOptInProps) {
    const { account, ...spec } = props;
    const head = { kind: "RegionOptIn", ...(account !== undefined ? { account } : {}) };
    super(scope, id, {
      kind: "RegionOptIn",
      document: { ...head, spec },
      schema: RegionOptInDocument,
      provider: () => {
        const { attributes, ignoreChanges } = specAttributes(spec, RegionOptInDocument.shape.spec.shape, { serviceNames: REGION_OPT_IN_SERVICE_NAMES });
        return { block: "resource", type: resourceTypeOf("RegionOptIn"), attributes: { ...accountAttribute(account), ...attributes }, ignoreChanges, naturalImportId: naturalImportIdOf(account, spec.region) };
      },
    });
  }
}
