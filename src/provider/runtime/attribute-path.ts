import { isObjectValue, TypedValue, type Value } from "./value.js";

/**
 * One step of an attribute path: a string is an attribute name, `{ key }` a map key, `{ index }` a
 * list or tuple index. `["tags", { key: "env" }]` is `tags["env"]`; `["rule", { index: 0 }, "name"]`
 * is `rule[0].name`.
 */
export type PathStep = string | { readonly key: string } | { readonly index: number };

/** Where in a resource's value something is: diagnostics point at it, plans replace for it. */
export type AttributePath = ReadonlyArray<PathStep>;

/**
 * Where a value is while a whole value is walked (every value of every call is converted; few are
 * refused), built into an `AttributePath` only when something is wrong there (`pathAt`): the path
 * of its container and its own step, linked, not copied. The step is a number for a list's or
 * tuple's index, undefined for the value at `above` itself.
 */
export interface PathLink {
  readonly above: AttributePath | PathLink;
  readonly step: LinkStep;
}

export type LinkStep = string | number | { readonly key: string } | undefined;

/** The `AttributePath` of the value at `step` below `above`. */
export function pathAt(above: AttributePath | PathLink, step: LinkStep): AttributePath {
  const steps: PathStep[] = [];
  let at: AttributePath | PathLink = { above, step };
  while (!isAttributePath(at)) {
    if (at.step !== undefined) steps.push(typeof at.step === "number" ? { index: at.step } : at.step);
    at = at.above;
  }
  return [...at, ...steps.reverse()];
}

function isAttributePath(at: AttributePath | PathLink): at is AttributePath {
  return Array.isArray(at);
}

/** The protocol's `AttributePath` message (tfplugin6.proto), one selector per step. */
export interface ProtocolAttributePath {
  readonly steps: ReadonlyArray<{ readonly attribute_name: string } | { readonly element_key_string: string } | { readonly element_key_int: number }>;
}

export function pathToProtocol(path: AttributePath): ProtocolAttributePath {
  return {
    steps: path.map((step) => {
      if (typeof step === "string") return { attribute_name: step };
      if ("key" in step) return { element_key_string: step.key };
      return { element_key_int: step.index };
    }),
  };
}

/** The path as terraform writes it: `tags["env"]`, `rule[0].name`. */
export function formatPath(path: AttributePath): string {
  let text = "";
  for (const step of path) {
    if (typeof step === "string") text += text === "" ? step : `.${step}`;
    else if ("key" in step) text += `[${JSON.stringify(step.key)}]`;
    else text += `[${step.index}]`;
  }
  return text;
}

/** The value at a path, or undefined where the path leads nowhere (through a null, unknown or missing element). */
export function valueAtPath(value: Value | undefined, path: AttributePath): Value | undefined {
  let current = value;
  for (const step of path) {
    if (current instanceof TypedValue) current = current.value;
    if (typeof step === "string" || "key" in step) {
      const name = typeof step === "string" ? step : step.key;
      current = isObjectValue(current) && Object.hasOwn(current, name) ? current[name] : undefined;
    } else {
      current = Array.isArray(current) ? (current as ReadonlyArray<Value>)[step.index] : undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/**
 * A copy of `value` with `replacement` at `path`; what the path passes through is copied, the rest
 * shared. Throws when the path leads through something that is not an object, map or list.
 */
export function withValueAtPath<V extends Value>(value: V, path: AttributePath, replacement: Value): V {
  return replaceAt(value, path, 0, replacement) as V;
}

function replaceAt(value: Value, path: AttributePath, depth: number, replacement: Value): Value {
  if (depth === path.length) return replacement;
  const step = path[depth]!;
  if (value instanceof TypedValue) return new TypedValue(value.type, replaceAt(value.value, path, depth, replacement));
  if (typeof step === "string" || "key" in step) {
    const name = typeof step === "string" ? step : step.key;
    if (!isObjectValue(value)) throw new Error(`cannot set ${formatPath(path)}: ${formatPath(path.slice(0, depth)) || "the value"} is ${describe(value)}, expected an object or map`);
    return { ...value, [name]: replaceAt(value[name] ?? null, path, depth + 1, replacement) };
  }
  if (!Array.isArray(value) || step.index < 0 || step.index >= value.length) {
    throw new Error(`cannot set ${formatPath(path)}: ${formatPath(path.slice(0, depth)) || "the value"} is ${describe(value)}, expected a list with an element ${step.index}`);
  }
  const copy = [...(value as ReadonlyArray<Value>)];
  copy[step.index] = replaceAt(copy[step.index]!, path, depth + 1, replacement);
  return copy;
}

function describe(value: Value): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "object") return isObjectValue(value) ? "an object" : String(value);
  return `${typeof value} ${JSON.stringify(value)}`;
}
