import { createHash } from "node:crypto";
import type { IConstruct } from "constructs";
import { canonicalJson } from "../src/desired/canonical-json.js";
import type { IdentityDocument } from "../src/desired/inventory.js";
import { stackOf } from "./vehicle.js";

/** A JSON document as the constructs build it (validated at synth, so typed loosely here). */
export type DocumentValue = Readonly<Record<string, unknown>>;

/** What the stack-level pieces (the desired-state file, the inventory) read of each converge resource. */
export interface DeclaredResource extends IConstruct {
  /** The desired-state document the construct declares. */
  readonly document: DocumentValue;
  /** The construct's path below its stack: its key in the stack's apply resource's triggers. */
  readonly triggerKey: string;
  /** The document naming the live resource's identity, for the stack's inventory; undefined when removing the construct deletes nothing. */
  readonly identityDocument: IdentityDocument | undefined;
}

const BRAND = Symbol.for("converge.cdktf.resource");

/** Marks a construct as a converge resource (a symbol brand: survives duplicate installs). */
export function brandAsResource(construct: DeclaredResource): void {
  Object.defineProperty(construct, BRAND, { value: true });
}

export function isDeclaredResource(value: unknown): value is DeclaredResource {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** The converge resources of a stack, in construct-tree order. */
export function declaredResourcesOf(stack: IConstruct): DeclaredResource[] {
  return stack.node.findAll().filter(isDeclaredResource);
}

/**
 * A function of a stack's converge resources, computed once for a given list of them (a synth
 * validates and reads every construct, each asking for the same stack-wide result).
 */
export function memoizedByResources<T>(compute: (resources: ReadonlyArray<DeclaredResource>) => T): (stack: IConstruct) => T {
  const cache = new WeakMap<IConstruct, { resources: ReadonlyArray<DeclaredResource>; value: T }>();
  return (stack) => {
    const resources = declaredResourcesOf(stack);
    const cached = cache.get(stack);
    if (cached && cached.resources.length === resources.length && cached.resources.every((resource, index) => resource === resources[index])) return cached.value;
    const value = compute(resources);
    cache.set(stack, { resources, value });
    return value;
  };
}

/** sha256 of a JSON value's canonical text (keys sorted): equal documents, equal hashes. */
export function documentHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** A terraform resource name from a construct's path below its stack: `api/get-orders` → `api_get-orders`. */
export function resourceBaseName(construct: IConstruct): string {
  const stack = stackOf(construct);
  const scopes = construct.node.scopes;
  return terraformNameOfPath(scopes.slice(scopes.indexOf(stack) + 1).map((scope) => scope.node.id).join("/"));
}

/** The terraform resource name of a construct path below its stack (`api/get-orders` → `api_get-orders`): other characters than letters, digits, `_` and `-` become `_`. */
export function terraformNameOfPath(path: string): string {
  const name = path.replace(/[^A-Za-z0-9_-]/g, "_");
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
}
