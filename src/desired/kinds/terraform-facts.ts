import type { z } from "zod";
import type { HEAD_ATTRIBUTES } from "../terraform-attributes.js";

/**
 * What a kind's terraform resource (converge's provider, src/provider/resources/) is made of, as
 * the kind's model states it; src/desired/terraform-resources.ts makes the attributes from it.
 */
export interface TerraformFacts {
  /** The spec's fields with their wire schemas (src/contract/): each is an attribute, in this order. */
  readonly fields: Readonly<Record<string, z.ZodType>>;
  /** Fields the configuration must set. */
  readonly required: ReadonlyArray<string>;
  /** Fields the service fills in when they are not set (its server defaults): optional and computed. @default none */
  readonly defaulted?: ReadonlyArray<string>;
  /** Array fields whose order does not matter (terraform sets). @default none */
  readonly sets?: ReadonlyArray<string>;
  /** The service's name of a field the document names otherwise (a contact's `type` is `AlternateContactType`): the attribute is its snake_case, and live has it. @default none */
  readonly serviceNames?: Readonly<Record<string, string>>;
  /** The document's head field that names where the resource lives: an API's child `api`, an account's setting `account`. */
  readonly parent: keyof typeof HEAD_ATTRIBUTES;
  /** An API's child: the spec's pin of its ID (`routeId`), held by the computed attribute of its snake_case (`route_id`). */
  readonly idField?: string;
  /** An account's setting: the spec field that names it within its account (`region`, attribute `region_name`). */
  readonly keyField?: string;
  /** Paths of the engine's changes that are another field's (a Region's change of `status` is its `enabled` field). @default none */
  readonly changePaths?: Readonly<Record<string, string>>;
  /** Whether the document needs a logical name (`name`, unique per API). @default false */
  readonly named?: boolean;
  /** KindModel.undeletable in terraform's words (its attribute names, `=`), for the provider's destroy warning. @default KindModel.undeletable */
  readonly undeletable?: string;
}
