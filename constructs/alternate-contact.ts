import type { Construct } from "constructs";
import { z } from "zod";
import { AccountId } from "../src/contract/account.js";
import { ALTERNATE_CONTACT_SERVICE_NAMES } from "../src/desired/kinds/alternate-contact.js";
import { AlternateContactSpec } from "../src/desired/schema.js";
import { resourceTypeOf } from "../src/desired/terraform-attributes.js";
import { ConvergeResource } from "./converge-resource.js";
import { accountAttribute, naturalImportIdOf, specAttributes } from "./provider-vehicle.js";

type Spec = z.input<typeof AlternateContactSpec>;

/**
 * The AlternateContact document as a construct declares it: always present, so its spec is checked
 * against the full contact (the file schema's union with the delete-only form would report only the
 * problems of whichever branch is closer).
 */
const PresentAlternateContactDocument = z.strictObject({ kind: z.literal("AlternateContact"), account: AccountId.optional(), spec: AlternateContactSpec });

export interface AlternateContactProps {
  /** The 12-digit account whose contact this is. @default the account of the token's identity (the caller's own) */
  readonly account?: string;
  /** Which contact: "BILLING", "OPERATIONS" or "SECURITY" (upper case); with the account, its identity. @default - required */
  readonly type: Spec["type"];
  /** Name of the contact (1 to 64 characters). @default - required */
  readonly name: string;
  /** Title of the contact (1 to 50 characters). @default - required */
  readonly title: string;
  /** Email address of the contact. @default - required */
  readonly emailAddress: string;
  /** Phone number of the contact (digits, spaces, +, -, parentheses and x). @default - required */
  readonly phoneNumber: string;
}

/**
 * An alternate contact of an account (desired-state kind AlternateContact). Identity: (account,
 * type); destroying the construct deletes the contact. With the provider vehicle, a
 * `converge_alternate_contact`.
 */
export class AlternateContact extends ConvergeResource {
  constructor(scope: Construct, id: string, props: AlternateContactProps) {
    const { account, ...spec } = props;
    const head = { kind: "AlternateContact", ...(account !== undefined ? { account } : {}) };
    super(scope, id, {
      kind: "AlternateContact",
      document: { ...head, spec },
      schema: PresentAlternateContactDocument,
      provider: () => {
        const { attributes, ignoreChanges } = specAttributes(spec, AlternateContactSpec.shape, { serviceNames: ALTERNATE_CONTACT_SERVICE_NAMES });
        return { block: "resource", type: resourceTypeOf("AlternateContact"), attributes: { ...accountAttribute(account), ...attributes }, ignoreChanges, naturalImportId: naturalImportIdOf(account, spec.type) };
      },
    });
  }
}
