import { Construct, type IConstruct } from "constructs";
import type { z } from "zod";
import type { LoadedDocument } from "../src/desired/load.js";
import { DOCUMENT_SCHEMAS, type Document, type Kind } from "../src/desired/schema.js";
import { crossCheckDocuments } from "../src/desired/cross-check.js";
import { ConvergeConfig } from "./config.js";
import { identityOf, type IdentityDocument } from "../src/desired/inventory.js";
import { brandAsResource, isDeclaredResource, memoizedByResources, resourceBaseName, terraformNameOfPath, type DeclaredResource, type DocumentValue } from "./documents.js";
import { DESIRED_TRIGGER } from "./config.js";
import { renamedFromItself, terraformNameTaken, triggerKeyTaken } from "./errors.js";
import { apiIdOf, apiLookupsOf, type ProviderContext, type ProviderDeclaration } from "./provider-vehicle.js";
import { documentProblems } from "./validation.js";
import { createProviderElement, moveFrom, stackOf, type VehicleResource } from "./vehicle.js";

/** What a construct declares: its document, and how to check it. */
export interface ResourceDeclaration {
  readonly kind: Kind;
  /** The full desired-state document: what `converge apply` makes true. */
  readonly document: DocumentValue;
  /** The schema the document is checked with: the desired-state schema of the kind, or one built from its parts. */
  readonly schema: z.ZodType;
  /** Problems the schema cannot see (a target in another stack, …). */
  readonly problems?: ReadonlyArray<string>;
  /** The construct as a resource (or data source) of converge's provider, for the provider vehicle; asked only with that vehicle. */
  readonly provider: (context: ProviderContext) => ProviderDeclaration;
}

/**
 * A converge resource in a cdktf stack: one desired-state document. With the provider vehicle it is
 * one resource of converge's provider (its terraform name: its path below the stack). With a CLI
 * vehicle it emits no terraform resource of its own: the stack's ConvergeConfig deploys every
 * construct's document in one converge run, and names the construct in its triggers (so
 * `terraform plan` shows which constructs change).
 */
export abstract class ConvergeResource extends Construct implements DeclaredResource {
  /** Whether `value` is a converge resource construct of this install. */
  static isConvergeResource(value: unknown): value is ConvergeResource {
    return isDeclaredResource(value) && value instanceof ConvergeResource;
  }

  /** The desired-state document this construct declares (as written to converge.desired.json). */
  readonly document: DocumentValue;
  /** The document naming the live resource's identity (what removing the construct deletes); undefined when removing it deletes nothing (RegionOptIn). */
  readonly identityDocument: IdentityDocument | undefined;
  /** The key of the stack's apply resource's triggers that holds this construct's document hash: its path below the stack. */
  readonly triggerKey: string;
  /** The terraform address of the construct's own resource or data source with the provider vehicle (`converge_route.get-orders`); undefined with a CLI vehicle. */
  readonly terraformAddress: string | undefined;
  readonly #problems: ReadonlyArray<string>;
  /** The construct's resource with the provider vehicle. */
  #element: VehicleResource | undefined;
  /** The document as the file loader reads it (defaults filled in), when it is valid. */
  readonly #parsed: Document | undefined;

  protected constructor(scope: Construct, id: string, declaration: ResourceDeclaration) {
    super(scope, id);
    brandAsResource(this);
    const config = ConvergeConfig.of(this);
    this.document = declaration.document;
    const refused: string[] = [];
    this.terraformAddress = undefined;
    if (config.vehicle === "provider") {
      const declared = declaration.provider({ path: this.node.path, apiId: (api) => apiIdOf(config, api) });
      if ("refused" in declared) refused.push(...declared.refused);
      else {
        const { naturalImportId, importId, ...element } = declared;
        // switching from a CLI vehicle: the live resource the old vehicle deployed is imported, never created again
        const imported = importId ?? (config.switchingFrom !== undefined ? naturalImportId : undefined);
        this.#element = createProviderElement(this, "terraform", { ...element, importId: imported, name: resourceBaseName(this) });
        this.terraformAddress = this.#element.address;
      }
    }
    this.#problems = [...documentProblems(declaration.schema, declaration.document), ...(declaration.problems ?? []), ...refused];
    const parsed = this.#problems.length === 0 ? DOCUMENT_SCHEMAS[declaration.kind].safeParse(declaration.document) : undefined;
    this.#parsed = parsed?.success ? (parsed.data as Document) : undefined;
    this.identityDocument = this.#parsed ? identityOf(this.#parsed) : undefined;
    const stack = stackOf(this);
    this.triggerKey = this.node.path.slice(stack.node.path === "" ? 0 : stack.node.path.length + 1);
    this.node.addValidation({ validate: () => [...this.#problems, ...stackProblemsOf(this)] });
  }

  /**
   * Says the construct was deployed before at `previousPath` (its path below the stack, e.g.
   * "orders-backend" or "api/get-orders"): with the provider vehicle, terraform moves the old
   * resource's state to this one (a `moved` block, terraform ≥ 1.1) instead of destroying it and
   * creating this one, so the rename writes nothing. With a CLI vehicle a rename writes nothing
   * anyway, and this does nothing.
   */
  renamedFrom(previousPath: string): void {
    if (this.#element === undefined || this.terraformAddress === undefined) return;
    const type = this.terraformAddress.slice(0, this.terraformAddress.indexOf("."));
    const from = `${type}.${terraformNameOfPath(previousPath)}`;
    if (from === this.terraformAddress) throw new Error(renamedFromItself(this.node.path, previousPath));
    moveFrom(this.#element, from);
  }

  /** Whether removing or destroying the construct deletes the live resource. */
  get deletable(): boolean {
    return this.identityDocument !== undefined;
  }

  /** @internal The document as the file loader reads it (defaults filled in), or undefined when it is not valid. */
  parsedDocument(): Document | undefined {
    return this.#parsed;
  }
}

/** The converge resources of a stack, in construct-tree order. */
export function resourcesOf(stack: IConstruct): ConvergeResource[] {
  return stack.node.findAll().filter(ConvergeResource.isConvergeResource);
}

/**
 * Problems of `resource` that show only among the stack's documents, found with the desired-state
 * loader's own cross-document checks (one document per identity, one pin per live ID, …); and,
 * with the provider vehicle, a terraform name another element of the stack has, or with a CLI
 * vehicle, a path that would take the trigger key of the stack's desired-state file.
 */
function stackProblemsOf(resource: ConvergeResource): string[] {
  const stack = stackOf(resource);
  const problems = resource.terraformAddress !== undefined
    ? terraformNameProblems(stack).get(resource.node.path) ?? []
    : resource.triggerKey === DESIRED_TRIGGER ? [triggerKeyTaken(DESIRED_TRIGGER)] : [];
  return [...problems, ...(crossDocumentProblems(stack).get(resource.node.path) ?? [])];
}

/**
 * Constructs whose terraform address another element of the stack has already (a lookup of an API
 * by name, or a construct earlier in the tree: `a/b` and `a_b` are both `a_b`), by construct path.
 * cdktf would merge two elements of one address into one.
 */
const terraformNameProblems = memoizedByResources((declared) => {
  const holders = new Map<string, string>();
  const config = declared.length > 0 ? ConvergeConfig.of(declared[0]!) : undefined;
  for (const lookup of config ? apiLookupsOf(config) : []) holders.set(lookup.address, `the stack's lookup of the API named ${JSON.stringify(lookup.name)}`);
  const problems = new Map<string, string[]>();
  for (const resource of declared.filter(ConvergeResource.isConvergeResource)) {
    const address = resource.terraformAddress;
    if (address === undefined) continue;
    const holder = holders.get(address);
    if (holder === undefined) holders.set(address, `the name of the construct at "${resource.node.path}"`);
    else problems.set(resource.node.path, [terraformNameTaken(address, holder)]);
  }
  return problems;
});

/** The cross-document problems of a stack's constructs by construct path: checked once for all of them (each construct's validation reads its own). */
const crossDocumentProblems = memoizedByResources((declared) => {
  const resources = declared.filter(ConvergeResource.isConvergeResource);
  const loaded: LoadedDocument[] = [];
  for (const resource of resources) {
    const document = resource.parsedDocument();
    if (!document) continue;
    const source = { file: resource.node.path, line: 1, column: 1 };
    loaded.push({ document, source, locate: () => source });
  }
  const byPath = new Map<string, string[]>();
  for (const problem of crossCheckDocuments(loaded)) {
    // the loader locates documents as file:line; a construct is located by its path alone,
    // and its spec's fields are props of their own (`apiKeyRequired`, not `spec.apiKeyRequired`)
    const message = resources.reduce((text, other) => text.replaceAll(`${other.node.path}:1`, `"${other.node.path}"`), problem.message).replace(/\bspec\./g, "");
    const prop = problem.path?.replace(/^spec\.?/, "");
    const list = byPath.get(problem.file) ?? [];
    list.push(prop && !message.startsWith(prop) ? `${prop}: ${message}` : message);
    byPath.set(problem.file, list);
  }
  return byPath;
});
