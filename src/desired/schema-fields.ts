import type { z } from "zod";

/** The parts of zod's definitions that lead to an object's fields (zod 4's `_zod.def`). */
interface Definition {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly options?: ReadonlyArray<z.ZodType>;
}

function definitionOf(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

/**
 * The field names an object at `path` of a value checked by `schema` may have (a union's branches
 * together), for the close match of a misspelt field: `["spec"]` of a Route document gives
 * `routeKey`, `target`, `authorizationScopes`, …. Empty where no object is.
 */
export function fieldsAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  const definition = definitionOf(schema);
  switch (definition.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
      return fieldsAt(definition.innerType!, path);
    case "pipe":
      return fieldsAt(definition.in!, path);
    case "union":
      return [...new Set(definition.options!.flatMap((option) => fieldsAt(option, path)))];
    case "object": {
      const shape = definition.shape ?? {};
      if (path.length === 0) return Object.keys(shape);
      const field = shape[String(path[0])];
      return field ? fieldsAt(field, path.slice(1)) : [];
    }
    default:
      return [];
  }
}
