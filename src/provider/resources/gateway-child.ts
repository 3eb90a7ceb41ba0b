import { documentOfAttributes, type TerraformResource } from "../../desired/terraform-resources.js";
import type { LiveApi, LiveState } from "../../reconcile/model.js";
import type { KindBindingCore, Values } from "../kind-resource/index.js";
import { isUnknown, types, type Schema } from "../runtime/index.js";
import { attributeOfPath, attributeSchemasOf, type SpecField } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";

/** A child of an API as the service lists it (a route, an integration): whether the service manages it. */
export interface LiveGatewayChild {
  readonly apiGatewayManaged?: boolean | undefined;
}

/** What a resource of an API's child says of itself; `gatewayChild` makes the ID, import and API plumbing from it. */
export interface GatewayChildOptions<Live extends LiveGatewayChild> {
  /**
   * The kind's resource (src/desired/terraform-resources.ts): its type, and the spec's pin of the
   * child's ID (`routeId`), whose attribute (`route_id`) holds the ID and ends the import ID (`API_ID/ROUTE_ID`).
   */
  readonly resource: TerraformResource;
  /** The resource's spec fields (resource.fields, typed and described). */
  readonly fields: ReadonlyArray<SpecField>;
  /** The document's logical name, for a kind that needs one (an integration). */
  readonly name?: string;
  /** What the ID attribute's description adds to "The service's ID of the route." (what refers to it). @default nothing */
  readonly idNote?: string;
  /** `api_gateway_managed`'s description: what converge does and never does with a child the service manages. */
  readonly managedDescription: string;
  /** The API's live children of the kind. */
  children(api: LiveApi): ReadonlyArray<Live>;
  idOf(live: Live): string;
}

/** The parts of a binding every child of an API has the same way. */
export type GatewayChildBinding<Live> = Pick<
  KindBindingCore<Live>,
  "kind" | "typeName" | "schema" | "fields" | "identityAttributes" | "document" | "attributeOf" | "liveOf" | "state" | "importId"
>;

/** The live API the values name by `api_id`, as far as it was read. */
export function apiOf(values: Values, live: LiveState): LiveApi | undefined {
  return typeof values.api_id === "string" ? live.apis[values.api_id] : undefined;
}

/**
 * The binding of an API's child kind but for what is its own: attributes `id` (`API_ID/CHILD_ID`,
 * the import ID), `api_id` (replaces when changed), the child's ID and `api_gateway_managed`
 * (computed), then the spec's; the document names its API and pins the child by the ID the state holds.
 */
export function gatewayChild<Live extends LiveGatewayChild>(options: GatewayChildOptions<Live>): GatewayChildBinding<Live> {
  const { resource, fields } = options;
  const { kind, typeName, idField, idAttribute } = resource;
  if (idField === undefined || idAttribute === undefined) throw new Error(`${typeName}: the resource of an API's child needs the pin of its ID (idField)`);
  // the kind's name in prose ("route"), as the descriptions of every child kind say it
  const noun = kind.toLowerCase();
  const schema: Schema = {
    description: `${/^[aeiou]/.test(noun) ? "An" : "A"} ${noun} of an HTTP or WebSocket API (converge's \`${kind}\` kind).`,
    attributes: {
      id: { type: types.string, computed: true, useStateForUnknown: true, description: `\`API_ID/${idAttribute.toUpperCase()}\`, the import ID.` },
      api_id: { type: types.string, required: true, requiresReplace: true, description: `The API the ${noun} belongs to; changing it replaces the ${noun}.` },
      [idAttribute]: { type: types.string, computed: true, useStateForUnknown: true, description: `The service's ID of the ${noun}${options.idNote === undefined ? "" : ` ${options.idNote}`}.` },
      api_gateway_managed: { type: types.bool, computed: true, useStateForUnknown: true, description: options.managedDescription },
      ...attributeSchemasOf(fields),
    },
  };
  const childOf = (values: Values, live: LiveState, id: Values[string] | undefined) => {
    const api = apiOf(values, live);
    return api === undefined ? undefined : options.children(api).find((child) => options.idOf(child) === id);
  };
  return {
    kind,
    typeName,
    schema,
    fields,
    identityAttributes: ["api_id"],
    document: (values, { pin, ensure }) => documentOfAttributes(resource, values, { pin, ...(ensure ? { ensure } : {}), ...(options.name !== undefined ? { name: options.name } : {}), isUnknown }),
    attributeOf: (path) => attributeOfPath(fields, path, [idField]),
    liveOf: (state, live) => childOf(state, live, state[idAttribute]),
    state: (live, specValues, held) => ({
      id: `${held.api_id}/${options.idOf(live)}`,
      api_id: held.api_id ?? null,
      [idAttribute]: options.idOf(live),
      api_gateway_managed: live.apiGatewayManaged ?? false,
      ...specValues,
    }),
    importId(id) {
      const [apiId, childId] = parseImportId(id, typeName, ["API_ID", idAttribute.toUpperCase()]);
      return { id, api_id: apiId, [idAttribute]: childId };
    },
  };
}
