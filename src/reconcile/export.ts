import type { z } from "zod";
import type { AlternateContactDocument, ApiDocument, IntegrationDocument, RegionOptInDocument, RouteDocument, RouteTarget } from "../desired/schema.js";
import { ALTERNATE_CONTACT_TYPES, type AlternateContact, type Region } from "../spec/account.js";
import { INTEGRATION_FIELDS, ROUTE_FIELDS, integrationServerDefaults, routeServerDefaults, type Integration, type ProtocolType, type Route } from "../spec/gateway.js";
import { SELF, type AccountKey } from "../desired/read-key.js";
import type { LiveApi, LiveNeed, LiveState } from "./model.js";

/**
 * `converge export`: live state as desired-state documents, such that planning the exported
 * documents against the same live state shows no changes. Pure: it reads only its arguments.
 */

/** What to export: APIs by ID, and accounts (`self` is the caller's own account). */
export interface ExportScope {
  readonly apis: ReadonlyArray<string>;
  readonly accounts: ReadonlyArray<AccountKey>;
}

/** A document as it is written (defaults not applied), ready to be rendered as YAML. */
export type ExportedDocument =
  | z.input<typeof ApiDocument>
  | z.input<typeof IntegrationDocument>
  | z.input<typeof RouteDocument>
  | z.input<typeof AlternateContactDocument>
  | z.input<typeof RegionOptInDocument>;

/** One desired-state file: its documents, and live resources shown only as comments. */
export interface ExportedFile {
  /** File name, e.g. `api-a1b2c3d4e5.yaml` or `account-self.yaml`. */
  readonly name: string;
  /** Comment lines at the top of the file (without the leading `# `). */
  readonly header: ReadonlyArray<string>;
  readonly documents: ReadonlyArray<ExportedDocument>;
  /**
   * Resources written as comments, not documents (service-managed routes and integrations): visible
   * to readers, never declared, so converge leaves them alone. Empty when there are none.
   */
  readonly commented: { readonly note: ReadonlyArray<string>; readonly documents: ReadonlyArray<ExportedDocument> };
}

export interface ExportResult {
  readonly files: ReadonlyArray<ExportedFile>;
  /** What could not be exported (an API that does not exist or could not be read). */
  readonly problems: ReadonlyArray<string>;
}

/** Field order in exported specs: identity first, as the examples write them; then the rest in wire order. */
const INTEGRATION_FIELD_ORDER = fieldOrder(
  ["integrationType", "integrationSubtype", "integrationUri", "integrationMethod", "connectionType", "connectionId", "payloadFormatVersion", "timeoutInMillis", "description"],
  Object.keys(INTEGRATION_FIELDS),
);
const ROUTE_FIELD_ORDER = fieldOrder(
  ["routeKey", "target", "authorizationType", "authorizerId", "authorizationScopes", "apiKeyRequired", "operationName"],
  Object.keys(ROUTE_FIELDS),
);

function fieldOrder(first: ReadonlyArray<string>, all: ReadonlyArray<string>): string[] {
  return [...first, ...all.filter((field) => !first.includes(field))];
}

const OPT_IN_ENABLED: ReadonlySet<Region["RegionOptStatus"]> = new Set(["ENABLED", "ENABLING"]);

/** The live reads an export needs: each API with its routes and integrations; each account's three contacts and its Regions. */
export function exportNeeds(scope: ExportScope): LiveNeed[] {
  return [
    ...scope.apis.map((apiId): LiveNeed => ({ type: "api", ref: apiId })),
    ...scope.accounts.flatMap((account): LiveNeed[] => [
      ...ALTERNATE_CONTACT_TYPES.map((contactType): LiveNeed => ({ type: "contact", account, contactType })),
      { type: "regions", account },
    ]),
  ];
}

/** Every file of an export: one per API, then one per account, in the order the scope names them. */
export function exportLiveState(live: LiveState, scope: ExportScope): ExportResult {
  const files: ExportedFile[] = [];
  const problems: string[] = [];
  for (const apiId of scope.apis) {
    const api = live.apis[apiId];
    if (!api?.protocolType) problems.push(`API ${apiId} does not exist in this account (or the token may not read it): expected the apiId of one of the caller's APIs`);
    else files.push(exportApi({ ...api, protocolType: api.protocolType }));
  }
  for (const account of scope.accounts) {
    const regions = live.regions[account];
    if (!regions) {
      problems.push(`the Regions of account ${account} were not read`);
      continue;
    }
    const contacts = Object.fromEntries(ALTERNATE_CONTACT_TYPES.map((type) => [type, live.contacts[`${account}/${type}`] ?? null]));
    files.push(exportAccount(account, contacts, regions));
  }
  return { files, problems };
}

/**
 * One API's file: a `kind: Api` document declaring its protocol (without `prune`), its integrations
 * pinned by integrationId under derived logical names, and its routes, whose targets name the
 * exported integration they point at. Service-managed routes and integrations become comments.
 */
export function exportApi(api: LiveApi & { readonly protocolType: ProtocolType }): ExportedFile {
  const protocol = api.protocolType;
  const names = integrationNames(api.integrations);
  const apiDocument: ExportedDocument = { kind: "Api", api: api.apiId, spec: { protocolType: protocol } };
  const integrationDocument = (integration: Integration): ExportedDocument => ({
    kind: "Integration",
    name: names.get(integration.integrationId)!,
    api: api.apiId,
    spec: {
      integrationId: integration.integrationId,
      ...specFields(integration, INTEGRATION_FIELD_ORDER, integrationServerDefaults(protocol)),
    } as z.input<typeof IntegrationDocument>["spec"],
  });
  const managedIntegrationIds = new Set(api.integrations.filter((integration) => integration.apiGatewayManaged).map((integration) => integration.integrationId));
  const routeDocument = (route: Route, targetsByName: boolean): ExportedDocument => {
    const fields = specFields(route, ROUTE_FIELD_ORDER, routeServerDefaults(protocol));
    const id = route.target?.startsWith("integrations/") ? route.target.slice("integrations/".length) : undefined;
    const name = id !== undefined && (targetsByName || !managedIntegrationIds.has(id)) ? names.get(id) : undefined;
    if (name !== undefined) fields.target = { integration: name } satisfies RouteTarget;
    return { kind: "Route", api: api.apiId, spec: fields as z.input<typeof RouteDocument>["spec"] };
  };
  const managedRoutes = api.routes.filter((route) => route.apiGatewayManaged);
  const managedIntegrations = api.integrations.filter((integration) => integration.apiGatewayManaged);
  const managedCount = managedRoutes.length + managedIntegrations.length;
  return {
    name: `api-${api.apiId}.yaml`,
    header: [
      `API ${api.apiId}${api.name !== undefined ? ` ${JSON.stringify(api.name)}` : ""} (${protocol}), written by converge export.`,
      "Integrations are pinned by integrationId; fields at their server defaults are left out, and so",
      "are fields that are not set (omitted means \"don't care\": write null to require a field absent).",
      "No prune: routes and integrations added later are left alone until you add `prune: true`.",
    ],
    documents: [
      apiDocument,
      ...api.integrations.filter((integration) => !integration.apiGatewayManaged).map(integrationDocument),
      // a route that targets a managed integration targets it by ID: that integration is no document here
      ...api.routes.filter((route) => !route.apiGatewayManaged).map((route) => routeDocument(route, false)),
    ],
    commented: {
      note: managedCount === 0 ? [] : [
        `Managed by the service (apiGatewayManaged: quick create): ${describeCount(managedIntegrations.length, "integration")} and ${describeCount(managedRoutes.length, "route")},`,
        "shown for reference and not declared, so converge leaves them alone. Uncomment them to claim",
        "them (e.g. before adding prune: true); converge never deletes them or changes a managed route's key.",
      ],
      documents: [
        ...managedIntegrations.map(integrationDocument),
        ...managedRoutes.map((route) => routeDocument(route, true)),
      ],
    },
  };
}

/**
 * One account's file: its alternate contacts, and a RegionOptIn document for every opt-in Region
 * (Regions enabled by default cannot be opted out of and are left out): enabled for ENABLED and
 * ENABLING, disabled for DISABLED and DISABLING. The caller's own account is written without `account`.
 */
export function exportAccount(
  account: AccountKey,
  contacts: Readonly<Partial<Record<AlternateContact["AlternateContactType"], AlternateContact | null>>>,
  regions: Readonly<Record<string, Region["RegionOptStatus"]>>,
): ExportedFile {
  const accountField = account === SELF ? {} : { account };
  const missing = ALTERNATE_CONTACT_TYPES.filter((type) => !contacts[type]);
  const contactDocuments = ALTERNATE_CONTACT_TYPES.flatMap((type): ExportedDocument[] => {
    const contact = contacts[type];
    if (!contact) return [];
    return [{
      kind: "AlternateContact",
      ...accountField,
      spec: { type, name: contact.Name, title: contact.Title, emailAddress: contact.EmailAddress, phoneNumber: contact.PhoneNumber },
    }];
  });
  const regionDocuments = Object.entries(regions)
    .filter(([, status]) => status !== "ENABLED_BY_DEFAULT")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([region, status]): ExportedDocument => ({ kind: "RegionOptIn", ...accountField, spec: { region, enabled: OPT_IN_ENABLED.has(status) } }));
  return {
    name: `account-${account}.yaml`,
    header: [
      `${account === SELF ? "The caller's own account" : `Account ${account}`}: alternate contacts and opt-in Regions, written by converge export.`,
      ...(missing.length > 0 ? [`No ${missing.join(", ")} contact is set (omitted: declare one, or ensure: absent to keep it so).`] : []),
      "Regions enabled by default are left out: they cannot be opted out of.",
    ],
    documents: [...contactDocuments, ...regionDocuments],
    commented: { note: [], documents: [] },
  };
}

/** The spec fields of a live resource, in `order`, without unset fields and server defaults. */
function specFields(live: object, order: ReadonlyArray<string>, defaults: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record = live as Record<string, unknown>;
  const spec: Record<string, unknown> = {};
  for (const field of order) {
    const value = record[field];
    if (value === undefined || value === null || (field in defaults && value === defaults[field])) continue;
    spec[field] = value;
  }
  return spec;
}

/**
 * A logical name per integration, derived from its URI (host and path, or the last segment of an
 * ARN-like URI), else its type; made unique in listing (creation) order with `-2`, `-3`, … so that
 * the same live state always gives the same names.
 */
export function integrationNames(integrations: ReadonlyArray<Integration>): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const integration of integrations) {
    const base = baseName(integration);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
    taken.add(name);
    names.set(integration.integrationId, name);
  }
  return names;
}

const MAX_BASE_NAME = 60;

function baseName(integration: Integration): string {
  const uri = integration.integrationUri ?? "";
  let words: string[] = [];
  if (/^https?:\/\//i.test(uri)) {
    try {
      const url = new URL(uri);
      words = [url.hostname.split(".")[0] ?? "", ...url.pathname.split("/").map(decodePathSegment)];
    } catch {
      // not a URL after all (e.g. a template in the host): fall back to its last segment below
    }
  }
  if (words.length === 0 && uri !== "") words = [uri.split(/[:/]/).filter((part) => part !== "").at(-1) ?? ""];
  const slug = slugOf(words.join("-"));
  return slug !== "" ? slug : slugOf(integration.integrationType);
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape: the slug keeps its letters and digits
  }
}

/** Lower-case letters, digits, '.', '_' and '-', starting and ending with a letter or digit (a valid logical name). */
function slugOf(text: string): string {
  return text.toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .slice(0, MAX_BASE_NAME)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
}

function describeCount(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
