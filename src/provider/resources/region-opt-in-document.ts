import { terraformResourceOf } from "../../desired/terraform-resources.js";
import { specFields } from "../terraform-fields.js";
import { accountChildDocument } from "./account-child.js";

/**
 * converge's RegionOptIn kind as a document of terraform values, what validation needs of it: the
 * opt-in's fields as attributes, the Region (by the service's name, RegionName) and whether it is enabled.
 */
export const regionOptInDocument = accountChildDocument(terraformResourceOf("RegionOptIn"), specFields(terraformResourceOf("RegionOptIn"), {
  region: "The Region (e.g. `ap-east-1`); changing it replaces the resource.",
  enabled: "Whether the Region is enabled for the account. Applying waits until it is ENABLED or DISABLED.",
}));
