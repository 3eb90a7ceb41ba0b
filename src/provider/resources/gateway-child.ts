import type { Document } from "../../desired/schema.js";
import { fieldAttribute, naturalImportId } from "../../desired/terraform-attributes.js";
import { documentOfAttributes, type TerraformResource } from "../../desired/terraform-resources.js";
import type { ActionRequest, LiveApi, LiveState } from "../../reconcile/model.js";
import type { BindingWithMoves, BindingWithNaturalImport, KindBinding, KindDocument, NaturalImport, Values } from "../kind-resource/index.js";
import { isUnknown, types, type Schema } from "../runtime/index.js";
import { attributeOfPath, attributeSchemasOf, type SpecField } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";
import { isNaturalImportId, oneMatch, parseNaturalImportId } from "./natural-import-id.js";

/** A child of an API as the service lists it (a route, an integration): whether the service manages it. */
export interface LiveGatewayChild {
  readonly apiGatewayManaged?: boolean | undefined;
}

/** The document of an API's child (`KindDocument`), with the kind's resource it is made by. */
export interface GatewayChildDocument extends KindDocument {
  /** The kind's resource (src/desired/terraform-resources.ts): its type, fields and attributes. */
  readonly resource: TerraformResource;
  /** The spec's pin of the child's ID (`routeId`; the resource's `idField`, checked to be there). */
  readonly idField: string;
  /** The attribute that holds the child's ID (`route_id`) and ends the import ID (`API_ID/ROUTE_ID`). */
  readonly idAttribute: string;
}

/**
 * The document of an API's child from its resource, spec fields (resource.fields, typed and
 * described) and logical name, for a kind that needs one (an integration): it names its API and
 * pins the child by the ID the `pin` values hold; what validation needs of the kind.
 */
export function gatewayChildDocument(resource: TerraformResource, fields: ReadonlyArray<SpecField>, name?: string): GatewayChildDocument {
  const { idField, idAttribute } = resource;
  if (idField === undefined || idAttribute === undefined) throw new Error(`${resource.typeName}: the resource of an API's child needs the pin of its ID (idField)`);
  return {
    resource,
    idField,
    idAttribute,
    kind: resource.kind,
    typeName: resource.typeName,
    fields,
    document: (values, { pin, ensure }) => documentOfAttributes(resource, values, { pin, ...(ensure ? { ensure } : {}), ...(name !== undefined ? { name } : {}), isUnknown }),
    attributeOf: (path) => attributeOfPath(fields, path, [idField]),
  };
}

/** What a resource of an API's child says of itself; `gatewayChild` makes the ID, import and API plumbing from it. */
export interface GatewayChildOptions<Live extends LiveGatewayChild, R extends ActionRequest> {
  /** The kind's document (gatewayChildDocument). */
  readonly document: GatewayChildDocument;
  /** What the ID attribute's description adds to "The service's ID of the route." (what refers to it). @default nothing */
  readonly idNote?: string;
  /** `api_gateway_managed`'s description: what converge does and never does with a child the service manages. */
  readonly managedDescription: string;
  /** The API's live children of the kind. */
  children(api: LiveApi): ReadonlyArray<Live>;
  idOf(live: Live): string;
  /** How converge matches an unpinned child (its natural key): the natural-key import ID and a moved document's import ID are made from it. */
  readonly naturalKey: NaturalKey<Live>;
  /** The kind's requests that send spec fields: the plan shows the values they send. */
  readonly requests: ChildRequests<R>;
}

/** The spec fields that name a child within its API as converge matches an unpinned one, and the match itself. */
export interface NaturalKey<Live> {
  /** The fields, in the order an import ID lists them (each as its attribute: `route_key`). */
  readonly fields: ReadonlyArray<string>;
  /** The fields an import ID must give. */
  readonly required: ReadonlyArray<string>;
  /** Whether a live child has the key's values given (a field left out matches anything). */
  matches(key: Readonly<Record<string, string>>, live: Live): boolean;
}

/** The members of a request that hold object values: where a request carries the spec fields it sends. */
type ObjectMember<Q> = { readonly [K in keyof Q]: Q[K] extends Readonly<Record<string, unknown>> ? K : never }[keyof Q];

/** A kind's requests (`R`, a union of `{ op }`) that send spec fields: by op, the member holding them (a create's `body`, an update's `patch`). */
export interface ChildRequests<R extends ActionRequest> {
  /** Whether a request is one of the kind's (isRouteRequest, src/reconcile/kinds/route.ts). */
  is(request: ActionRequest | undefined): request is R;
  readonly sent: { readonly [Op in R["op"]]?: ObjectMember<Extract<R, { readonly op: Op }>> };
}

/** The parts of a binding every child of an API has the same way. */
export type GatewayChildBinding<Live> = Pick<
  KindBinding<Live>,
  "kind" | "typeName" | "schema" | "fields" | "identityAttributes" | "document" | "attributeOf" | "liveOf" | "state" | "importId" | "requestFields"
> & BindingWithNaturalImport<Live> & BindingWithMoves;

/** The live API the values name by `api_id`, as far as it was read. */
export function apiOf(values: Values, live: LiveState): LiveApi | undefined {
  return typeof values.api_id === "string" ? live.apis[values.api_id] : undefined;
}

/**
 * The binding of an API's child kind but for what is its own: attributes `id` (`API_ID/CHILD_ID`,
 * the import ID), `api_id` (replaces when changed), the child's ID and `api_gateway_managed`
 * (computed), then the spec's; the document names its API and pins the child by the ID the state holds.
 */
export function gatewayChild<Live extends LiveGatewayChild, R extends ActionRequest>(options: GatewayChildOptions<Live, R>): GatewayChildBinding<Live> {
  const { resource, fields, idField, idAttribute } = options.document;
  const { kind, typeName } = resource;
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
    document: options.document.document,
    attributeOf: options.document.attributeOf,
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
    /** A document's child: `API_ID/CHILD_ID` when pinned, else its natural key's fields it sets (its API by ID; moved-from-terraform-data.ts refuses another). */
    importIdOf(document) {
      const { api, spec } = childDocument(document, resource);
      return spec[idField] !== undefined ? `${String(api)}/${String(spec[idField])}` : naturalImportId(String(api), spec, options.naturalKey.fields);
    },
    /** `API_ID?route_key=KEY` (any of the natural key's attributes): the one live child of the API that matches, by converge's own rule. */
    naturalImport: (id) => (isNaturalImportId(id) ? naturalImport(id, options) : undefined),
    requestFields: ({ request }) => sentFields(options.requests, request),
  };
}

/** The API and spec of a document of the resource's kind; an error for a document of another kind. */
function childDocument(document: Document, resource: TerraformResource): { readonly api: unknown; readonly spec: Readonly<Record<string, unknown>> } {
  if (document.kind !== resource.kind) throw new Error(`${resource.typeName}: expected a ${resource.kind} document, received a ${document.kind}`);
  return { api: "api" in document ? document.api : undefined, spec: document.spec };
}

/** The live child a natural-key import ID names (natural-import-id.ts), found in the API's listing. */
function naturalImport<Live extends LiveGatewayChild, R extends ActionRequest>(id: string, options: GatewayChildOptions<Live, R>): NaturalImport<Live> {
  const { document: { resource }, naturalKey } = options;
  const natural = parseNaturalImportId(id, resource.typeName, naturalKey.fields.map((field) => fieldAttribute(field)), naturalKey.required.map((field) => fieldAttribute(field)));
  const key = Object.fromEntries(naturalKey.fields
    .filter((field) => Object.hasOwn(natural.attributes, fieldAttribute(field)))
    .map((field) => [field, natural.attributes[fieldAttribute(field)] ?? ""]));
  const api = (live: LiveState) => live.apis[natural.apiId];
  return {
    values: { api_id: natural.apiId },
    find: (live) => {
      const found = api(live);
      const matches = found === undefined ? [] : options.children(found).filter((child) => naturalKey.matches(key, child));
      return oneMatch(matches, id, resource.typeName, (child) => options.idOf(child), natural.apiId);
    },
  };
}

/** The spec fields a request of the kind sends, with their wire values; none for another request or an op that sends none. */
function sentFields<R extends ActionRequest>(requests: ChildRequests<R>, request: ActionRequest | undefined): Readonly<Record<string, unknown>> {
  return requests.is(request) ? sentBy(requests, request) : {};
}

function sentBy<R extends ActionRequest>(requests: ChildRequests<R>, request: R): Readonly<Record<string, unknown>> {
  const op: R["op"] = request.op;
  const member: PropertyKey | undefined = requests.sent[op];
  const sent: unknown = member === undefined ? undefined : Reflect.get(request, member);
  return isRecord(sent) ? sent : {};
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
