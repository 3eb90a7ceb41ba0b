import { formatFieldPath } from "../contract/field-issues.js";
import { PROTOCOL_TYPES, type ProtocolType } from "../contract/gateway.js";
import { checkDocument, type DocumentIssue } from "./document-value.js";
import { DesiredStateError, type DesiredStateProblem, type SourceLocation } from "./desired-state-error.js";
import { decodeInventory } from "./inventory.js";
import { modelOf } from "./kinds/registry.js";
import type { LoadedDocument, TerraformOrigin } from "./loaded-document.js";
import { readKeyOfValue } from "./read-key-scan.js";
import { readKeyText } from "./read-key.js";
import { KINDS, type Document, type Kind } from "./schema.js";
import { instanceAddress, isConvergeProvider, LogicalNames } from "./terraform-address.js";
import { attributeOfFieldPath, documentOfAttributes, terraformResourceOfType, type TerraformResource } from "./terraform-resources.js";
import { dataSourceTypeOf } from "./terraform-attributes.js";
import { inventoryChunks, isInventoryResource, triggersAttributeOf } from "./terraform-state-inventory.js";
import { collectStateSources, readStateSource, StateTooLarge } from "./terraform-state-sources.js";
import { parseStateText, type StateLocator, type StateResource } from "./terraform-state-text.js";
import { describeFileError } from "../contract/file-errors.js";

export type { TerraformOrigin } from "./loaded-document.js";

/**
 * terraform states as a source of what is managed (`converge drift --state`): each instance of a
 * resource of converge's provider as the document the provider plans for it, and the identities a
 * cdktf stack of the CLI vehicles keeps in its inventory.
 */

/** One state read. */
export interface LoadedState {
  /** The state's name in messages: relative to the working directory; standard input is "(stdin)". */
  readonly file: string;
  /** The whole text (the drift fingerprint hashes it). */
  readonly text: string;
  /** Each converge_* instance as the document converge's provider plans for it (pinned by its ID attribute), origin set. */
  readonly documents: ReadonlyArray<LoadedDocument>;
  /**
   * The cdktf inventory identities (claim only, never compared), origin = the inventory resource's
   * address. Each is its identity document with `ensure: "absent"`: what an inventory entry is by
   * design (KindModel.deletionIdentity, src/desired/kinds/kind-model.ts), and what makes the
   * identity's few fields a valid document of its kind.
   */
  readonly claims: ReadonlyArray<LoadedDocument>;
  /** Instances of other providers' resources (and of data sources) skipped, counted. */
  readonly skipped: number;
  /**
   * The protocol of each API a `converge_api` data source of the state read (by API ID): what the
   * state recorded, so that drift need not ask the service (a GetApi per API) to compare the
   * API's routes and integrations by its protocol's rules. Data sources claim nothing.
   */
  readonly apiProtocols: ReadonlyMap<string, ProtocolType>;
}

export interface StateLoadOptions {
  /** States are named relative to this directory in every message. @default process.cwd() */
  readonly cwd?: string;
  /** What `-` reads. @default process.stdin */
  readonly stdin?: NodeJS.ReadableStream;
  /**
   * Keeps only the documents and claims whose read key (src/desired/read-key.ts, as text) this
   * accepts: a drift shard's (as LoadOptions.select of src/desired/load.ts). A document whose key
   * its values give without validating it is validated only when kept. @default every document
   */
  readonly select?: (readKey: string) => boolean;
}

/**
 * Reads terraform states (format 4): files, directories (every `*.tfstate` under them, sorted),
 * globs, and `-` for standard input. Instances of converge's resources under any registry host,
 * in any module, with `count` or `for_each`, become documents; a stack's inventory becomes claims;
 * data sources and other providers' resources are counted. Every problem of every state (a state
 * that is not JSON, truncated, nested too deeply, of another version, too large or unreadable; a
 * path that names none; an instance whose attributes its kind's schema refuses) is collected, and
 * thrown once as a DesiredStateError naming file, line, column and the value received. Documents
 * are not checked against each other: two instances holding one live resource is a finding for
 * drift to report, not a load error.
 */
export async function loadTerraformStates(paths: ReadonlyArray<string>, options: StateLoadOptions = {}): Promise<LoadedState[]> {
  const { sources, problems } = collectStateSources(paths, options.cwd ?? process.cwd());
  const reader: InstanceReader = { names: new LogicalNames(), select: options.select, problems };
  const states: LoadedState[] = [];
  for (const source of sources) {
    let text: string;
    try {
      text = await readStateSource(source, options.stdin ?? process.stdin);
    } catch (error) {
      const message = error instanceof StateTooLarge ? error.message : `cannot read ${source.name}: ${describeFileError(error)}`;
      problems.push({ file: source.name, line: 1, column: 1, path: "", message });
      continue;
    }
    const parsed = parseStateText(text, source.name);
    if ("problems" in parsed) {
      problems.push(...parsed.problems);
      continue;
    }
    states.push({ file: source.name, text, ...readResources(source.name, parsed.state.resources, parsed.state.locator, reader) });
  }
  if (problems.length > 0) throw new DesiredStateError(problems);
  return states;
}

/** What reading the instances of every state shares: the logical names given, the selection, the problems found. */
interface InstanceReader {
  readonly names: LogicalNames;
  readonly select: ((readKey: string) => boolean) | undefined;
  readonly problems: DesiredStateProblem[];
}

/** One instance of a state's resource: where it is, and its address. */
interface InstanceAt {
  readonly locator: StateLocator;
  readonly resource: number;
  readonly instance: number;
  readonly origin: TerraformOrigin;
}

function readResources(file: string, resources: ReadonlyArray<StateResource>, locator: StateLocator, reader: InstanceReader) {
  const documents: LoadedDocument[] = [];
  const claims: LoadedDocument[] = [];
  const apiProtocols = new Map<string, ProtocolType>();
  let skipped = 0;
  resources.forEach((resource, resourceIndex) => {
    if (resource.mode === "data" && resource.type === API_DATA_SOURCE && isConvergeProvider(resource.provider)) {
      for (const instance of resource.instances) noteApiProtocol(instance.attributes, apiProtocols);
    }
    const converge = resource.mode === "managed" && isConvergeProvider(resource.provider) ? terraformResourceOfType(resource.type) : undefined;
    const inventory = converge === undefined && isInventoryResource(resource);
    if (converge === undefined && !inventory) {
      skipped += resource.instances.length;
      return;
    }
    resource.instances.forEach((instance, instanceIndex) => {
      const deposed = typeof instance.deposed === "string" ? instance.deposed : undefined;
      const address = instanceAddress(resource, instance.index_key, deposed);
      const at: InstanceAt = { locator, resource: resourceIndex, instance: instanceIndex, origin: { state: file, address } };
      const attributes = (instance.attributes ?? {}) as Readonly<Record<string, unknown>>;
      if (converge !== undefined) {
        const loaded = instanceDocument(converge, attributes, at, reader);
        if (loaded !== undefined) documents.push(loaded);
      } else {
        claims.push(...inventoryClaims(resource, attributes, at, reader));
      }
    });
  });
  return { documents, claims, skipped, apiProtocols };
}

const API_DATA_SOURCE = dataSourceTypeOf("api");

/** The API ID and protocol a `converge_api` data source read, when its attributes hold both as the provider writes them (else nothing: the service is asked). */
function noteApiProtocol(attributes: unknown, protocols: Map<string, ProtocolType>): void {
  if (typeof attributes !== "object" || attributes === null) return;
  const { api_id: apiId, protocol_type: protocol } = attributes as Readonly<Record<string, unknown>>;
  if (typeof apiId === "string" && (PROTOCOL_TYPES as ReadonlyArray<unknown>).includes(protocol)) protocols.set(apiId, protocol as ProtocolType);
}

/** The document of an instance of converge's resource, validated; undefined when the selection leaves it out or its kind's schema refuses it (the problems noted). */
function instanceDocument(resource: TerraformResource, attributes: Readonly<Record<string, unknown>>, at: InstanceAt, reader: InstanceReader): LoadedDocument | undefined {
  // named before the selection, so that a shard gives each integration the name a whole load does
  const name = resource.named ? reader.names.nameOf(at.origin.address) : undefined;
  const value = documentOfAttributes(resource, attributes, { pin: attributes, ...(name !== undefined ? { name } : {}) });
  const checked = selectedDocument(resource.kind, value, reader.select);
  if (checked === undefined) return undefined;
  if ("issues" in checked) {
    for (const issue of checked.issues) reader.problems.push(attributeProblem(resource.kind, issue, at));
    return undefined;
  }
  return new StateDocument(checked.document, at, true);
}

/** The claims of a stack's inventory resource: each identity its triggers hold, as a document of its kind. */
function inventoryClaims(resource: StateResource, attributes: Readonly<Record<string, unknown>>, at: InstanceAt, reader: InstanceReader): LoadedDocument[] {
  const place = () => at.locator.instance(at.resource, at.instance, ["attributes", triggersAttributeOf(resource)]);
  let identities: ReadonlyArray<Readonly<Record<string, unknown>>>;
  try {
    identities = decodeInventory(inventoryChunks(resource, attributes));
  } catch (error) {
    reader.problems.push({ ...place(), path: at.origin.address, message: `${triggersAttributeOf(resource)} ${(error as Error).message}` });
    return [];
  }
  const claims: LoadedDocument[] = [];
  identities.forEach((identity, index) => {
    const kind = identity.kind;
    if (typeof kind !== "string" || !(KINDS as ReadonlyArray<string>).includes(kind)) {
      reader.problems.push({ ...place(), path: at.origin.address, message: `the inventory's entry ${index} has kind ${JSON.stringify(kind)}: expected one of ${KINDS.join(", ")}` });
      return;
    }
    const checked = selectedDocument(kind as Kind, { ...identity, ensure: "absent" }, reader.select);
    if (checked === undefined) return;
    if ("issues" in checked) {
      for (const issue of checked.issues) {
        reader.problems.push({ ...place(), path: at.origin.address, message: `the inventory's entry ${index}: ${issue.message}` });
      }
      return;
    }
    claims.push(new StateDocument(checked.document, at, false));
  });
  return claims;
}

/**
 * A value checked by its kind's schema, unless the selection leaves it out (undefined): by the read
 * key its values give, without validating it, when they give one; else by the validated document's.
 */
function selectedDocument(kind: Kind, value: Readonly<Record<string, unknown>>, select: ((readKey: string) => boolean) | undefined) {
  const scanned = select === undefined ? undefined : readKeyOfValue(value);
  if (scanned !== undefined && !select!(scanned)) return undefined;
  const checked = checkDocument(kind, value);
  if (select === undefined || scanned !== undefined || "issues" in checked) return checked;
  return select(readKeyText(modelOf(kind).readKey(checked.document))) ? checked : undefined;
}

/** A schema's issue as a problem of the instance: at the attribute it is about, in terraform's words (`route_key`, not `spec.routeKey`). */
function attributeProblem(kind: Kind, issue: DocumentIssue, at: InstanceAt): DesiredStateProblem {
  const fieldPath = formatFieldPath(issue.path);
  const attributePath = issue.path.length === 0 ? undefined : attributeOfFieldPath(kind, issue.path);
  if (attributePath === undefined) return { ...at.locator.instance(at.resource, at.instance), path: at.origin.address, message: issue.message };
  const message = issue.message.startsWith(`${fieldPath} `) ? `${attributePath}${issue.message.slice(fieldPath.length)}` : `${attributePath}: ${issue.message}`;
  return { ...at.locator.instance(at.resource, at.instance, ["attributes", topAttribute(attributePath)]), path: at.origin.address, message };
}

/** The attribute an attribute path starts with (`tls_config` of `tls_config.server_name_to_verify`). */
function topAttribute(attributePath: string): string {
  return /^[^.[]+/.exec(attributePath)![0];
}

/** A document of a state's instance: its place found in the text when first asked for. */
class StateDocument implements LoadedDocument {
  readonly document: Document;
  readonly terraform: TerraformOrigin;
  readonly #at: InstanceAt;
  /** Whether fields are placed at their attributes (an instance of converge's resource), or all at the instance (a claim). */
  readonly #byAttribute: boolean;
  #source: SourceLocation | undefined;

  constructor(document: Document, at: InstanceAt, byAttribute: boolean) {
    this.document = document;
    this.terraform = at.origin;
    this.#at = at;
    this.#byAttribute = byAttribute;
  }

  /** Where the instance's object starts in the state. */
  get source(): SourceLocation {
    this.#source ??= this.#at.locator.instance(this.#at.resource, this.#at.instance);
    return this.#source;
  }

  /** Where the attribute a document path names stands in the instance; the instance's place for a path no attribute holds. */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation {
    const attributePath = this.#byAttribute && path.length > 0 ? attributeOfFieldPath(this.document.kind, path) : undefined;
    if (attributePath === undefined) return this.source;
    return this.#at.locator.instance(this.#at.resource, this.#at.instance, ["attributes", topAttribute(attributePath)]);
  }
}
