import type { z } from "zod";
import { INTEGRATION_FIELDS, ROUTE_FIELDS } from "../contract/gateway.js";
import { commentedHcl, hclIdentifier, hclReference, hclTemplate, renderHcl, type HclBodyItem, type HclValue } from "../desired/hcl-writer.js";
import { ALTERNATE_CONTACT_SERVICE_NAMES } from "../desired/kinds/alternate-contact.js";
import { REGION_OPT_IN_SERVICE_NAMES } from "../desired/kinds/region-opt-in.js";
import { AlternateContactSpec, RegionOptInDocument } from "../desired/schema.js";
import { attributeValue, fieldAttribute, HEAD_ATTRIBUTES, requiredProvidersBlock } from "../desired/terraform-attributes.js";
import type { ExportedDocument, ExportedFile } from "./export.js";
import type { LiveState } from "./model.js";

/**
 * `converge export --format terraform`: the files of an export (src/reconcile/export.ts, the same
 * documents the YAML export writes) as terraform configuration for converge's provider: one
 * `converge_*` resource per document and an `import` block bringing its live object under it, the
 * API a `converge_api` data source, a route's target a reference to its integration's resource.
 * Attributes follow the provider's naming rule (src/desired/terraform-attributes.ts), so a plan of
 * the files shows only imports. Pure: the same files and live state give the same bytes.
 */

/** One `.tf` file: its name and text. */
export interface TerraformFile {
  readonly name: string;
  readonly text: string;
}

/** The file that declares the provider (no endpoint, no token: both come from the environment). */
export const TERRAFORM_PROVIDER_FILE = "providers.tf";

/** How one exported kind is a terraform resource: its type, its spec's fields (wire schemas), the service's names of them. */
interface TerraformKind {
  readonly type: string;
  readonly fields: Readonly<Record<string, z.ZodType>>;
  readonly serviceNames?: Readonly<Record<string, string>>;
  /** The resource's name in configuration, before it is made unique. */
  label(document: ExportedDocument): string;
  /** The ID `import` gives the provider (src/provider/resources/: API_ID/ROUTE_ID, ACCOUNT_ID/TYPE, …); undefined when live has no such object. */
  importId(document: ExportedDocument, live: LiveState): string | undefined;
}

type Spec = Readonly<Record<string, unknown>>;
const specOf = (document: ExportedDocument): Spec => (document.spec ?? {}) as Spec;
const apiIdOf = (document: ExportedDocument): string => String((document as { api?: unknown }).api);
const accountPrefix = (document: ExportedDocument): string => ("account" in document && typeof document.account === "string" ? `${document.account}/` : "");
const accountSuffix = (document: ExportedDocument): string => ("account" in document && typeof document.account === "string" ? `_${document.account}` : "");

/** The exported kinds as the provider's resources (the Api kind is the `converge_api` data source, apiDataSource). */
const TERRAFORM_KINDS = {
  Integration: {
    type: "converge_integration",
    fields: INTEGRATION_FIELDS,
    label: (document) => String((document as { name?: unknown }).name),
    importId: (document) => `${apiIdOf(document)}/${String(specOf(document).integrationId)}`,
  },
  Route: {
    type: "converge_route",
    fields: ROUTE_FIELDS,
    label: (document) => slug(String(specOf(document).routeKey)) || "route",
    importId(document, live) {
      const route = live.apis[apiIdOf(document)]?.routes.find((candidate) => candidate.routeKey === specOf(document).routeKey);
      return route === undefined ? undefined : `${apiIdOf(document)}/${route.routeId}`;
    },
  },
  AlternateContact: {
    type: "converge_alternate_contact",
    fields: AlternateContactSpec.shape,
    serviceNames: ALTERNATE_CONTACT_SERVICE_NAMES,
    label: (document) => `${String(specOf(document).type).toLowerCase()}${accountSuffix(document)}`,
    importId: (document) => `${accountPrefix(document)}${String(specOf(document).type)}`,
  },
  RegionOptIn: {
    type: "converge_region_opt_in",
    fields: RegionOptInDocument.shape.spec.shape,
    serviceNames: REGION_OPT_IN_SERVICE_NAMES,
    label: (document) => `${slug(String(specOf(document).region))}${accountSuffix(document)}`,
    importId: (document) => `${accountPrefix(document)}${String(specOf(document).region)}`,
  },
} satisfies Record<Exclude<ExportedDocument["kind"], "Api">, TerraformKind>;

/** Lower-case letters and digits of a text, each run of others one `_` (`GET /orders/{id}` → `get_orders_id`). */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

/** Names unique in one configuration directory (one terraform module), per resource type: a taken name gets `_2`, `_3`, … in export order. */
class Labels {
  readonly #taken = new Map<string, Set<string>>();

  take(type: string, wanted: string): string {
    const taken = this.#taken.get(type) ?? new Set<string>();
    this.#taken.set(type, taken);
    const base = hclIdentifier(wanted);
    let label = base;
    for (let n = 2; taken.has(label); n += 1) label = `${base}_${n}`;
    taken.add(label);
    return label;
  }
}

/**
 * The export's files as `.tf` files (`api-ID.tf`, `account-ID.tf`, in the export's order) and the
 * provider's file. `live` is the state the files were exported from (the routes' IDs for their import IDs).
 */
export function renderExportAsTerraform(files: ReadonlyArray<ExportedFile>, live: LiveState): TerraformFile[] {
  const labels = new Labels();
  const rendered = files.map((file) => ({ name: file.name.replace(/\.yaml$/, ".tf"), text: renderHcl(fileBody(file, live, labels)) }));
  return [...rendered, { name: TERRAFORM_PROVIDER_FILE, text: renderHcl(providerBody()) }];
}

/** The `terraform { required_providers }` block and an empty provider block: the endpoint and token come from the environment. */
function providerBody(): HclBodyItem[] {
  return [
    { comment: ["converge's provider: `converge provider install` puts it where terraform init finds it, with no network."] },
    requiredProvidersBlock(),
    { blank: true },
    {
      block: "provider",
      labels: ["converge"],
      body: [{ comment: ["endpoint from CONVERGE_ENDPOINT, token from CONVERGE_TOKEN: neither is written here (nor in state)."] }],
    },
  ];
}

function fileBody(file: ExportedFile, live: LiveState, labels: Labels): HclBodyItem[] {
  const apiDocument = file.documents.find((document) => document.kind === "Api");
  const header = [
    file.header[0] ?? "",
    "As terraform configuration for converge's provider: each resource is followed by the import block that",
    "brings its live object under it, so terraform plan shows only imports until a value here changes.",
    "Values at the service's defaults are left out (the service's value stands); every other field the live",
    "object has is written, and one left out of a resource means absent.",
    ...(apiDocument === undefined ? file.header.slice(1) : []),
  ];
  const body: HclBodyItem[] = [{ comment: header }];

  // the API: a data source the file's resources take api_id from
  let apiReference: HclValue | undefined;
  if (apiDocument !== undefined) {
    const apiId = apiIdOf(apiDocument);
    const api = live.apis[apiId];
    const label = labels.take("converge_api", api?.name !== undefined && slug(api.name) !== "" ? slug(api.name) : `api_${apiId}`);
    apiReference = hclReference("data", "converge_api", label, HEAD_ATTRIBUTES.api);
    body.push({ blank: true }, {
      block: "data",
      labels: ["converge_api", label],
      body: [{ attribute: HEAD_ATTRIBUTES.api, value: apiId }, { comment: [`${String(specOf(apiDocument).protocolType)} API`] }],
    });
  }

  // labels first, so that a route (or a commented one) can name its integration's resource
  const everyDocument = [...file.documents, ...file.commented.documents].filter((document) => document.kind !== "Api");
  const labelOf = new Map<ExportedDocument, string>();
  const integrationLabels = new Map<string, string>();
  for (const document of everyDocument) {
    const kind = TERRAFORM_KINDS[document.kind as keyof typeof TERRAFORM_KINDS];
    const label = labels.take(kind.type, kind.label(document));
    labelOf.set(document, label);
    if (document.kind === "Integration") integrationLabels.set(`${apiIdOf(document)}/${String(document.name)}`, label);
  }
  const resource = (document: ExportedDocument): HclBodyItem[] => {
    const kind: TerraformKind = TERRAFORM_KINDS[document.kind as keyof typeof TERRAFORM_KINDS];
    const label = labelOf.get(document)!;
    const attributes: HclBodyItem[] = [];
    if ("api" in document && apiReference !== undefined) attributes.push({ attribute: HEAD_ATTRIBUTES.api, value: apiReference });
    if ("account" in document && typeof document.account === "string") attributes.push({ attribute: HEAD_ATTRIBUTES.account, value: document.account });
    for (const [field, value] of Object.entries(specOf(document))) {
      const schema = kind.fields[field];
      if (schema === undefined || value === undefined || value === null) continue; // a pin (integrationId): the import block
      attributes.push({ attribute: fieldAttribute(field, kind.serviceNames), value: attributeOfField(field, value, schema, document, integrationLabels) });
    }
    const importId = kind.importId(document, live);
    return [
      { blank: true },
      { block: "resource", labels: [kind.type, label], body: attributes },
      ...(importId === undefined ? [] : [{ blank: true } as const, { block: "import", body: [{ attribute: "to", value: hclReference(kind.type, label) }, { attribute: "id", value: importId }] }]),
    ];
  };
  body.push(...file.documents.filter((document) => document.kind !== "Api").flatMap(resource));
  if (file.commented.documents.length > 0) {
    body.push({ blank: true }, {
      comment: [
        file.commented.note[0] ?? "Managed by the service:",
        "shown for reference and not declared, so terraform leaves them alone (a plan of this directory does not",
        "touch them). Uncomment a resource and its import block to manage it: converge's provider never deletes",
        "them nor changes a managed route's key.",
      ],
    });
    for (const document of file.commented.documents) body.push({ blank: true }, commentedHcl(resource(document).slice(1)));
  }
  return body;
}

/**
 * A field's value as its attribute's (attributeValue of src/desired/terraform-attributes.ts); a
 * route's target that names an exported integration is a reference to that integration's resource.
 */
function attributeOfField(field: string, value: unknown, schema: z.ZodType, document: ExportedDocument, integrationLabels: ReadonlyMap<string, string>): HclValue {
  if (document.kind === "Route" && field === "target" && typeof value === "object" && value !== null && "integration" in value) {
    const label = integrationLabels.get(`${apiIdOf(document)}/${String(value.integration)}`);
    if (label !== undefined) return hclTemplate("integrations/", hclReference("converge_integration", label, "integration_id"));
  }
  return attributeValue(value, schema) as HclValue;
}

/**
 * The strings of an export that are not in Unicode NFC, each with its file: terraform reads every
 * string of configuration as its NFC form (escaped or not), so such a value has no literal in HCL
 * and a plan shows an update of it to its NFC form.
 */
export function valuesNotInNfc(files: ReadonlyArray<ExportedFile>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, where: string): void => {
    if (typeof value === "string") {
      if (value !== value.normalize("NFC")) found.push(`${where}: ${JSON.stringify(value)}`);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, where);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        visit(key, where);
        visit(item, where);
      }
    }
  };
  for (const file of files) for (const document of file.documents) visit(document, file.name.replace(/\.yaml$/, ".tf"));
  return found;
}
