import type { CtyType } from "./cty-type.js";
import type { Unknown, Value } from "./value.js";

/**
 * One attribute of a provider, resource or data source. Exactly one of: `required`; `optional`;
 * `computed` (set by the provider only); `optional` and `computed` (set by the user or else by the
 * provider).
 */
export interface AttributeSchema<T extends CtyType = CtyType> {
  readonly type: T;
  /** Markdown shown by `terraform providers schema` and documentation generators. */
  readonly description?: string;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  /** terraform hides the value in plans and output (it is still in state). */
  readonly sensitive?: boolean;
  /** Marks the attribute deprecated, with this message. */
  readonly deprecated?: string;
  /**
   * Resources only: a change of this attribute's value (planned against the prior state, an unknown
   * planned value included) makes terraform replace the resource instead of updating it.
   */
  readonly requiresReplace?: boolean;
  /**
   * Resources only, computed attributes only: the value planned when the configuration leaves the
   * attribute null, on create and on update (terraform-plugin-framework's `Default`), instead of an
   * unknown value.
   */
  readonly default?: Value;
  /**
   * Resources only, computed attributes only: on an update that changes something, plan the prior
   * value instead of an unknown one (terraform-plugin-framework's `UseStateForUnknown` plan
   * modifier), for values that an update never changes (an ID, say).
   */
  readonly useStateForUnknown?: boolean;
}

/** A nested block (`rule { ... }` in configuration): one object, or a list or set of objects. */
export interface NestedBlockSchema<B extends BlockSchema = BlockSchema> {
  readonly nesting: "single" | "list" | "set";
  readonly block: B;
  /** For `list` and `set`: the fewest and most blocks terraform accepts. */
  readonly minItems?: number;
  readonly maxItems?: number;
}

export interface BlockSchema {
  readonly attributes: Readonly<Record<string, AttributeSchema>>;
  readonly blocks?: Readonly<Record<string, NestedBlockSchema>>;
  readonly description?: string;
  readonly deprecated?: string;
}

/** The schema of a provider's configuration, a resource or a data source. */
export interface Schema extends BlockSchema {
  /** The resource's state version; state written by an older version goes through `upgradeState`. Default 0. */
  readonly version?: number;
}

/**
 * Returns the schema as given, with its literal types kept (`required: true`, attribute names), so
 * `StateOf<typeof schema>` and `ConfigOf<typeof schema>` type the resource's values.
 */
export function defineSchema<const S extends Schema>(schema: S): S {
  return schema;
}

/**
 * The value of a type: `string`, `ReadonlyArray<...>`, `{ readonly a: ... }`; `U` is `Unknown` where
 * unknowns may appear. Tuples and `dynamic` are typed as any `Value`.
 */
export type KnownValueOf<T extends CtyType, U> = T extends { readonly kind: "string" }
  ? string
  : T extends { readonly kind: "number" }
    ? number
    : T extends { readonly kind: "bool" }
      ? boolean
      : T extends { readonly kind: "list" | "set"; readonly element: infer E extends CtyType }
        ? ReadonlyArray<ValueOf<E, U>>
        : T extends { readonly kind: "map"; readonly element: infer E extends CtyType }
          ? { readonly [key: string]: ValueOf<E, U> }
          : T extends { readonly kind: "object"; readonly attributes: infer A extends Readonly<Record<string, CtyType>> }
            ? { readonly [K in keyof A]: ValueOf<A[K], U> }
            : Value;

/** A value of a type that may be null (and unknown when `U` is `Unknown`). */
export type ValueOf<T extends CtyType, U = never> = KnownValueOf<T, U> | null | U;

type AttributeValueOf<A extends AttributeSchema, U> = A extends { readonly required: true } ? KnownValueOf<A["type"], U> | U : ValueOf<A["type"], U>;

type BlockValueOf<N extends NestedBlockSchema, U> = N extends { readonly nesting: "single" }
  ? ObjectOf<N["block"], U> | null | U
  : ReadonlyArray<ObjectOf<N["block"], U>> | U;

/** The object value of a block: its attributes and nested blocks by name (any value's object when the schema is not a literal). */
export type ObjectOf<B extends BlockSchema, U> = string extends keyof B["attributes"]
  ? { readonly [name: string]: Value }
  : { readonly [K in keyof B["attributes"]]: AttributeValueOf<B["attributes"][K], U> } & BlocksOf<B, U>;

type BlocksOf<B extends BlockSchema, U> = B extends { readonly blocks: infer N extends Readonly<Record<string, NestedBlockSchema>> }
  ? { readonly [K in keyof N]: BlockValueOf<N[K], U> }
  : unknown;

/** Configuration and planned values: any part may be `UNKNOWN`. */
export type ConfigOf<S extends BlockSchema> = ObjectOf<S, Unknown>;

/** Planned values (as in the configuration, any part may be `UNKNOWN`). */
export type PlannedOf<S extends BlockSchema> = ObjectOf<S, Unknown>;

/** State: wholly known; a required attribute is never null. */
export type StateOf<S extends BlockSchema> = ObjectOf<S, never>;

/** The object type a block's values have (attributes and nested blocks as attributes). */
export function impliedType(block: BlockSchema): CtyType {
  // every call of a resource decodes its values with it: made once per schema (schemas are not changed once served)
  let type = impliedTypes.get(block);
  if (type === undefined) {
    type = buildImpliedType(block);
    impliedTypes.set(block, type);
  }
  return type;
}

const impliedTypes = new WeakMap<BlockSchema, CtyType>();

function buildImpliedType(block: BlockSchema): CtyType {
  const attributes: Record<string, CtyType> = {};
  for (const [name, attribute] of Object.entries(block.attributes)) attributes[name] = attribute.type;
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const element = impliedType(nested.block);
    attributes[name] = nested.nesting === "single" ? element : { kind: nested.nesting, element };
  }
  return { kind: "object", attributes };
}

const NAME = /^[a-z_][a-z0-9_]*$/;
/** Names terraform gives a meaning of its own in a resource block. */
const RESERVED_IN_RESOURCES = new Set(["count", "depends_on", "for_each", "lifecycle", "provider", "provisioner", "connection"]);

/** Every problem of a schema, each naming where (`owner` is e.g. `resource converge_route`); empty when it is valid. */
export function schemaProblems(schema: Schema, owner: string, kind: "provider" | "resource" | "data source"): string[] {
  const problems: string[] = [];
  if (schema.version !== undefined && (!Number.isInteger(schema.version) || schema.version < 0)) {
    problems.push(`${owner}: version ${schema.version} is not valid: expected an integer 0 or more`);
  }
  blockProblems(schema, owner, kind, problems);
  return problems;
}

function blockProblems(block: BlockSchema, where: string, kind: string, problems: string[]): void {
  const reserved = kind === "provider" ? new Set<string>() : RESERVED_IN_RESOURCES;
  for (const [name, attribute] of Object.entries(block.attributes)) {
    const at = `${where}: attribute ${JSON.stringify(name)}`;
    if (!NAME.test(name)) problems.push(`${at} is not a valid name: expected lower-case letters, digits and underscores`);
    if (reserved.has(name)) problems.push(`${at} is a name terraform reserves in a ${kind} block`);
    const { required = false, optional = false, computed = false } = attribute;
    if (required && (optional || computed)) problems.push(`${at} is required and also ${optional ? "optional" : "computed"}: expected required alone`);
    if (!required && !optional && !computed) problems.push(`${at} is neither required, optional nor computed: expected one of them`);
    if (attribute.requiresReplace && kind !== "resource") problems.push(`${at} requires replacement, which only a resource can: expected no requiresReplace`);
    for (const modifier of ["default", "useStateForUnknown"] as const) {
      if (attribute[modifier] === undefined) continue;
      if (kind !== "resource") problems.push(`${at} has ${modifier}, which only a resource's plan uses: expected none in a ${kind}`);
      else if (!computed) problems.push(`${at} has ${modifier} but is not computed: expected computed (optional and computed for a default), as only the provider may plan a value the configuration does not set`);
    }
  }
  for (const [name, nested] of Object.entries(block.blocks ?? {})) {
    const at = `${where}: block ${JSON.stringify(name)}`;
    if (!NAME.test(name)) problems.push(`${at} is not a valid name: expected lower-case letters, digits and underscores`);
    if (reserved.has(name)) problems.push(`${at} is a name terraform reserves in a ${kind} block`);
    if (Object.hasOwn(block.attributes, name)) problems.push(`${at} has the name of an attribute of the same block`);
    if (nested.nesting === "single" && (nested.minItems !== undefined || nested.maxItems !== undefined)) problems.push(`${at} is single with minItems or maxItems: expected them on list and set blocks only`);
    blockProblems(nested.block, `${where}: block ${name}`, kind, problems);
  }
}
