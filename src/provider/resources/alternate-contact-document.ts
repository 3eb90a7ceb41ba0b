import { terraformResourceOf } from "../../desired/terraform-resources.js";
import { specFields } from "../terraform-fields.js";
import { accountChildDocument } from "./account-child.js";

/**
 * converge's AlternateContact kind as a document of terraform values, what validation needs of it:
 * a contact's fields as attributes, named after the service's fields (the document calls
 * AlternateContactType `type`).
 */
export const alternateContactDocument = accountChildDocument(terraformResourceOf("AlternateContact"), specFields(terraformResourceOf("AlternateContact"), {
  type: "BILLING, OPERATIONS or SECURITY (upper case); changing it replaces the contact.",
  emailAddress: "The contact's email address (surrounding spaces are not a change).",
  phoneNumber: "Digits, spaces, parentheses, + and -.",
}));
