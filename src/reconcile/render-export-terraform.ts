import type { z } from "zod";
import { commentedHcl, hclIdentifier, hclReference, hclTemplate, renderHcl, type HclBodyItem, type HclValue } from "../desired/hcl-writer.js";
import { attributeValue, fieldAttribute, HEAD_ATTRIBUTES, PROVIDER_NAME, requiredProvidersBlock, resourceTypeOf } from "../desired/terraform-attributes.js";
import { terraformSlug } from "./export-fields.js";
import type { ExportedDocument, ExportedFile } from "./export.js";
import type { TerraformExport, TerraformResourceExport } from "./kinds/kind-engine.js";
import { engineOf } from "./kinds/registry.js";
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

type Spec = Readonly<Record<string, unknown>>;
const specOf = (document: ExportedDocument): Spec => (document.spec ?? {}) as Spec;
const apiIdOf = (document: ExportedDocument): string | undefined => ("api" in document && typeof document.api === "string" ? document.api : undefined);
const terraformOf = (document: ExportedDocument): TerraformExport | undefined => engineOf(document.kind).terraformExport;

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
      labels: [PROVIDER_NAME],
      body: [{ comment: ["endpoint from CONVERGE_ENDPOINT, token from CONVERGE_TOKEN: neither is written here (nor in state)."] }],
    },
  ];
}

/** One `.tf` file of the export: its header, the API's data source, each resource with its import block, then the commented ones. */
function fileBody(file: ExportedFile, live: LiveState, labels: Labels): HclBodyItem[] {
  const apiDocument = [...file.documents, ...(file.referenced ?? [])]
    .find((document) => terraformOf(document) !== undefined && "dataSource" in terraformOf(document)!);
  const body: HclBodyItem[] = [{ comment: fileHeader(file, apiDocument !== undefined) }];
  const api = apiDocument === undefined ? undefined : apiDataSource(apiDocument, live, labels);
  if (api !== undefined) body.push(...api.items);

  const declared = resourcesOf(file.documents);
  const commented = resourcesOf(file.commented.documents);
  // labels first, so that a route (or a commented one) can refer to its integration's resource
  const context: ResourceContext = { live, apiReference: api?.reference, ...labelResources([...declared, ...commented], labels) };
  body.push(...declared.flatMap((item) => resourceHcl(item, context)));
  if (commented.length > 0) {
    body.push({ blank: true }, {
      comment: [
        file.commented.note[0] ?? "Managed by the service:",
        "shown for reference and not declared, so terraform leaves them alone (a plan of this directory does not",
        "touch them). Uncomment a resource and its import block to manage it: converge's provider never deletes",
        "them nor changes a managed route's key.",
      ],
    });
    for (const item of commented) body.push({ blank: true }, commentedHcl(resourceHcl(item, context).slice(1)));
  }
  return body;
}

/** The file's header comment: the export's first line, what the file is as terraform configuration, and the rest of the export's header when no API heads the file. */
function fileHeader(file: ExportedFile, hasApi: boolean): string[] {
  return [
    file.header[0] ?? "",
    "As terraform configuration for converge's provider: each resource is followed by the import block that",
    "brings its live object under it, so terraform plan shows only imports until a value here changes.",
    "Values at the service's defaults are left out (the service's value stands); every other field the live",
    "object has is written, and one left out of a resource means absent.",
    ...(hasApi ? [] : file.header.slice(1)),
  ];
}

/** The API as a data source the file's resources take api_id from: its block, and the reference to its ID. */
function apiDataSource(apiDocument: ExportedDocument, live: LiveState, labels: Labels): { items: HclBodyItem[]; reference: HclValue } {
  const dataSource = (terraformOf(apiDocument) as { readonly dataSource: string }).dataSource;
  const apiId = String(apiIdOf(apiDocument));
  const api = live.apis[apiId];
  const label = labels.take(dataSource, api?.name !== undefined && terraformSlug(api.name) !== "" ? terraformSlug(api.name) : `api_${apiId}`);
  return {
    reference: hclReference("data", dataSource, label, HEAD_ATTRIBUTES.api),
    items: [{ blank: true }, {
      block: "data",
      labels: [dataSource, label],
      body: [{ attribute: HEAD_ATTRIBUTES.api, value: apiId }, { comment: [`${String(specOf(apiDocument).protocolType)} API`] }],
    }],
  };
}

/** A document written as a resource of converge's provider: its kind's export and its resource type. */
interface ResourceItem {
  readonly document: ExportedDocument;
  readonly terraform: TerraformResourceExport;
  readonly type: string;
}

/** The documents whose kinds export as resources (not as a data source). */
function resourcesOf(documents: ReadonlyArray<ExportedDocument>): ResourceItem[] {
  return documents.flatMap((document) => {
    const terraform = terraformOf(document);
    return terraform !== undefined && "fields" in terraform ? [{ document, terraform, type: resourceTypeOf(document.kind) }] : [];
  });
}

/** What writing a file's resources needs: live state (import IDs), the API's reference, each resource's label and the labels by referenced name. */
interface ResourceContext {
  readonly live: LiveState;
  readonly apiReference: HclValue | undefined;
  readonly labelOf: ReadonlyMap<ExportedDocument, string>;
  /** By `type/apiId/name`: the label of the resource another one refers to by name (a route's target). */
  readonly byName: ReadonlyMap<string, string>;
}

/** Takes a label for each resource, in order, and indexes those a reference may name. */
function labelResources(items: ReadonlyArray<ResourceItem>, labels: Labels): Pick<ResourceContext, "labelOf" | "byName"> {
  const labelOf = new Map<ExportedDocument, string>();
  const byName = new Map<string, string>();
  for (const { document, terraform, type } of items) {
    const label = labels.take(type, terraform.label(document));
    labelOf.set(document, label);
    const name = terraform.referenceName?.(document);
    if (name !== undefined) byName.set(`${type}/${apiIdOf(document) ?? ""}/${name}`, label);
  }
  return { labelOf, byName };
}

/** A resource block of its document's attributes, then its import block (each after a blank line). */
function resourceHcl({ document, terraform, type }: ResourceItem, { live, apiReference, labelOf, byName }: ResourceContext): HclBodyItem[] {
  const label = labelOf.get(document)!;
  const attributes: HclBodyItem[] = [];
  if (apiIdOf(document) !== undefined && apiReference !== undefined) attributes.push({ attribute: HEAD_ATTRIBUTES.api, value: apiReference });
  if ("account" in document && typeof document.account === "string") attributes.push({ attribute: HEAD_ATTRIBUTES.account, value: document.account });
  for (const [field, value] of Object.entries(specOf(document))) {
    const schema = terraform.fields[field];
    if (schema === undefined || value === undefined || value === null) continue; // a pin (integrationId): the import block
    attributes.push({ attribute: fieldAttribute(field, terraform.serviceNames), value: attributeOfField(terraform, field, value, schema, (type, name) => byName.get(`${type}/${apiIdOf(document) ?? ""}/${name}`)) });
  }
  const importId = terraform.importId(document, live);
  return [
    { blank: true },
    { block: "resource", labels: [type, label], body: attributes },
    ...(importId === undefined ? [] : [{ blank: true } as const, { block: "import", body: [{ attribute: "to", value: hclReference(type, label) }, { attribute: "id", value: importId }] }]),
  ];
}

/**
 * A field's value as its attribute's (attributeValue of src/desired/terraform-attributes.ts); a
 * value that names another exported resource (a route's target naming an integration) is a
 * reference to that resource.
 */
function attributeOfField(
  terraform: TerraformResourceExport,
  field: string,
  value: unknown,
  schema: z.ZodType,
  labelOf: (type: string, name: string) => string | undefined,
): HclValue {
  const reference = terraform.reference?.(field, value);
  const label = reference === undefined ? undefined : labelOf(reference.type, reference.name);
  if (reference !== undefined && label !== undefined) return hclTemplate(reference.prefix, hclReference(reference.type, label, reference.attribute));
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
