import { Construct, type IConstruct } from "constructs";
import type { z } from "zod";
import type { LoadedDocument } from "../src/desired/load.js";
import { DOCUMENT_SCHEMAS, type Document, type Kind } from "../src/desired/schema.js";
import { crossCheckDocuments } from "../src/desired/cross-check.js";
import { ConvergeConfig } from "./config.js";
import { brandAsResource, documentHash, isDeclaredResource, resourceBaseName, triggerJson, type DeclaredResource, type DocumentValue } from "./documents.js";
import { duplicateResourceName } from "./errors.js";
import { documentProblems } from "./validation.js";
import { createVehicleResource, stackOf, type VehicleResource } from "./vehicle.js";

/** What a construct declares: its document, the document that names its identity, and how to check them. */
export interface ResourceDeclaration {
  readonly kind: Exclude<Kind, "Api">;
  /** The full desired-state document: what `converge apply` makes true. */
  readonly document: DocumentValue;
  /** The document naming only the live resource's identity: what `converge delete` removes. */
  readonly identity: DocumentValue;
  /** Whether the kind can be deleted (RegionOptIn cannot: removing it leaves the Region as it is). */
  readonly deletable: boolean;
  /** The schema the document is checked with: the desired-state schema of the kind, or one built from its parts. */
  readonly schema: z.ZodType;
  /** Problems the schema cannot see (a target in another stack, …). */
  readonly problems?: ReadonlyArray<string>;
  /** Resources whose documents are applied together with this one, before it (a route's target integration). */
  readonly companions?: ReadonlyArray<ConvergeResource>;
  /** Extra identity triggers: their change replaces the identity resource (deleting the live resource first). */
  readonly identityTriggers?: Readonly<Record<string, string>>;
}

/**
 * A converge resource in a cdktf stack. It emits two resources of the configured vehicle:
 *
 * - `<name>_identity`, whose triggers hold the document naming the live resource's identity, with
 *   a destroy-time local-exec provisioner that deletes it (reading only its own triggers);
 * - `<name>_document`, whose triggers hold the full document and its hash, with a create-time
 *   local-exec provisioner that applies it; it depends on the identity resource.
 *
 * Both replace on change, so a content change replaces only the document resource (the apply is an
 * in-place update through the reconciler), while an identity change replaces both (the old resource
 * is deleted, the new one applied).
 */
export abstract class ConvergeResource extends Construct implements DeclaredResource {
  /** Whether `value` is a converge resource construct of this install. */
  static isConvergeResource(value: unknown): value is ConvergeResource {
    return isDeclaredResource(value) && value instanceof ConvergeResource;
  }

  /** The desired-state document this construct declares (as written to converge.desired.json). */
  readonly document: DocumentValue;
  /** The document naming the live resource's identity (what a destroy deletes). */
  readonly identityDocument: DocumentValue;
  /** Whether destroying the construct deletes the live resource. */
  readonly deletable: boolean;
  /** The terraform address of the identity resource, e.g. `terraform_data.security_identity`. */
  readonly identityAddress: string;
  /** The terraform address of the document resource, e.g. `terraform_data.security_document`. */
  readonly documentAddress: string;
  /** @internal The document resource, for constructs that must come after it. */
  readonly documentResource: VehicleResource;
  /** @internal The terraform resource base name (`<name>_identity`, `<name>_document`). */
  readonly resourceName: string;
  readonly #kind: ResourceDeclaration["kind"];
  readonly #problems: ReadonlyArray<string>;

  protected constructor(scope: Construct, id: string, declaration: ResourceDeclaration) {
    super(scope, id);
    brandAsResource(this);
    const config = ConvergeConfig.of(this);
    this.document = declaration.document;
    this.identityDocument = declaration.identity;
    this.deletable = declaration.deletable;
    this.#kind = declaration.kind;
    this.#problems = [...documentProblems(declaration.schema, declaration.document), ...(declaration.problems ?? [])];
    this.resourceName = resourceBaseName(this);

    const companions = declaration.companions ?? [];
    const dependsOn = companions.map((companion) => companion.documentResource);
    const identity = createVehicleResource(this, "identity", {
      vehicle: config.vehicle,
      name: `${this.resourceName}_identity`,
      triggers: { document: triggerJson(declaration.identity), hash: documentHash(declaration.identity), ...declaration.identityTriggers },
      provisioner: declaration.deletable ? config.provisioner("delete") : undefined,
      dependsOn: [config.inventoryResource, ...dependsOn],
    });
    const applied = companions.length > 0 ? [...companions.map((companion) => companion.document), declaration.document] : declaration.document;
    this.documentResource = createVehicleResource(this, "document", {
      vehicle: config.vehicle,
      name: `${this.resourceName}_document`,
      triggers: { document: triggerJson(applied), hash: documentHash(applied) },
      provisioner: config.provisioner("apply"),
      dependsOn: [identity, ...dependsOn],
    });
    this.identityAddress = identity.address;
    this.documentAddress = this.documentResource.address;
    this.node.addValidation({ validate: () => [...this.#problems, ...stackProblemsOf(this)] });
  }

  /** @internal The document as the file loader reads it (defaults filled in), or undefined when it is not valid. */
  parsedDocument(): Document | undefined {
    if (this.#problems.length > 0) return undefined;
    const result = DOCUMENT_SCHEMAS[this.#kind].safeParse(this.document);
    return result.success ? (result.data as Document) : undefined;
  }
}

/** The converge resources of a stack, in construct-tree order. */
export function resourcesOf(stack: IConstruct): ConvergeResource[] {
  return stack.node.findAll().filter(ConvergeResource.isConvergeResource);
}

/**
 * Problems of `resource` that show only among the stack's documents, found with the desired-state
 * loader's own cross-document checks (one document per identity, one pin per live ID, …), and
 * terraform names that two constructs would share.
 */
function stackProblemsOf(resource: ConvergeResource): string[] {
  const resources = resourcesOf(stackOf(resource));
  const problems: string[] = [];
  const firstWithName = resources.find((other) => other.resourceName === resource.resourceName);
  if (firstWithName && firstWithName !== resource) problems.push(duplicateResourceName(resource.resourceName, firstWithName.node.path));
  const loaded: LoadedDocument[] = [];
  for (const other of resources) {
    const document = other.parsedDocument();
    if (!document) continue;
    const source = { file: other.node.path, line: 1, column: 1 };
    loaded.push({ document, source, locate: () => source });
  }
  for (const problem of crossCheckDocuments(loaded)) {
    if (problem.file !== resource.node.path) continue;
    // the loader locates documents as file:line; a construct is located by its path alone
    const message = resources.reduce((text, other) => text.replaceAll(`${other.node.path}:1`, `"${other.node.path}"`), problem.message);
    problems.push(problem.path ? `${problem.path}: ${message}` : message);
  }
  return problems;
}
