/**
 * terraform's type system (cty) as data. A schema attribute's `type` is one of these; the value
 * codecs are driven by them; `typeToJson` is what the protocol's `Schema.Attribute.type` carries.
 */
export type CtyType =
  | { readonly kind: "string" }
  | { readonly kind: "number" }
  | { readonly kind: "bool" }
  /** `dynamic`: any type, chosen by the value (terraform's `any`). */
  | { readonly kind: "dynamic" }
  | { readonly kind: "list"; readonly element: CtyType }
  | { readonly kind: "set"; readonly element: CtyType }
  | { readonly kind: "map"; readonly element: CtyType }
  | { readonly kind: "object"; readonly attributes: Readonly<Record<string, CtyType>> }
  | { readonly kind: "tuple"; readonly elements: ReadonlyArray<CtyType> };

/** The constructors of every type, e.g. `types.list(types.object({ name: types.string }))`. */
export const types = {
  string: { kind: "string" },
  number: { kind: "number" },
  bool: { kind: "bool" },
  dynamic: { kind: "dynamic" },
  list: <const E extends CtyType>(element: E) => ({ kind: "list", element }) as const,
  set: <const E extends CtyType>(element: E) => ({ kind: "set", element }) as const,
  map: <const E extends CtyType>(element: E) => ({ kind: "map", element }) as const,
  object: <const A extends Readonly<Record<string, CtyType>>>(attributes: A) => ({ kind: "object", attributes }) as const,
  tuple: <const T extends ReadonlyArray<CtyType>>(elements: T) => ({ kind: "tuple", elements }) as const,
} as const;

/** The JSON form of a type, as cty writes it: `"string"`, `["list","string"]`, `["object",{"a":"bool"}]`. */
export type CtyTypeJson = string | [string, CtyTypeJson | Record<string, CtyTypeJson> | CtyTypeJson[]];

export function typeToJson(type: CtyType): CtyTypeJson {
  switch (type.kind) {
    case "string":
    case "number":
    case "bool":
    case "dynamic":
      return type.kind;
    case "list":
    case "set":
    case "map":
      return [type.kind, typeToJson(type.element)];
    case "object":
      return ["object", Object.fromEntries(sortedKeys(type.attributes).map((name) => [name, typeToJson(type.attributes[name]!)]))];
    case "tuple":
      return ["tuple", type.elements.map(typeToJson)];
  }
}

/** Reads cty's JSON form of a type; throws on anything else (`["object", {...}, [optional names]]` included: constraints are not types). */
export function typeFromJson(json: unknown): CtyType {
  if (typeof json === "string") {
    if (json === "string" || json === "number" || json === "bool" || json === "dynamic") return { kind: json };
    throw new Error(`type ${JSON.stringify(json)} is not a cty type: expected "string", "number", "bool" or "dynamic"`);
  }
  if (Array.isArray(json) && json.length === 2) {
    const [kind, inner] = json as [unknown, unknown];
    if (kind === "list" || kind === "set" || kind === "map") return { kind, element: typeFromJson(inner) };
    if (kind === "object" && isRecord(inner)) {
      return { kind, attributes: Object.fromEntries(Object.entries(inner).map(([name, attribute]) => [name, typeFromJson(attribute)])) };
    }
    if (kind === "tuple" && Array.isArray(inner)) return { kind, elements: inner.map(typeFromJson) };
  }
  throw new Error(`type ${JSON.stringify(json)} is not a cty type: expected a name or [kind, element type]`);
}

/** A short name for messages: `list of string`, `object`. */
export function typeName(type: CtyType): string {
  switch (type.kind) {
    case "list":
    case "set":
    case "map":
      return `${type.kind} of ${typeName(type.element)}`;
    default:
      return type.kind;
  }
}

/**
 * Keys in cty's order, which objects and maps are encoded in (Go's byte-wise `sort.Strings`; UTF-16
 * order is the same for every key without characters beyond U+FFFF or in U+E000-U+FFFF).
 */
export function sortedKeys(record: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(record).sort();
}

type ObjectType = Extract<CtyType, { readonly kind: "object" }>;
const ENTRIES = new WeakMap<ObjectType["attributes"], ReadonlyArray<readonly [string, CtyType]>>();
const SORTED = new WeakMap<ObjectType["attributes"], ReadonlyArray<string>>();

/**
 * An object type's attributes as [name, type] in their order, listed once per type (a schema's
 * types live as long as the process, and every value of every call is walked by them). Types are
 * not changed once made.
 */
export function attributeEntries(type: ObjectType): ReadonlyArray<readonly [string, CtyType]> {
  let entries = ENTRIES.get(type.attributes);
  if (entries === undefined) ENTRIES.set(type.attributes, (entries = Object.entries(type.attributes)));
  return entries;
}

/** The first of a record's own keys that is not an attribute of the object type, if any. */
export function extraAttribute(record: Readonly<Record<string, unknown>>, type: ObjectType): string | undefined {
  for (const name in record) if (Object.hasOwn(record, name) && !Object.hasOwn(type.attributes, name)) return name;
  return undefined;
}

/** An object type's attribute names sorted (cty's order on the wire), listed once per type. */
export function sortedAttributeNames(type: ObjectType): ReadonlyArray<string> {
  let names = SORTED.get(type.attributes);
  if (names === undefined) SORTED.set(type.attributes, (names = sortedKeys(type.attributes)));
  return names;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
