import { createRequire } from "node:module";
import type * as JsYaml from "js-yaml";
import { MAX_NESTING_DEPTH, excessiveNestingOffset, nestingProblem } from "../input-limits/nesting.js";
import { MAX_FILE_BYTES } from "./desired-file.js";
import { REFERENCE_OPENING, parseTemplate, type VariableReference } from "./variable-references.js";
import { VARIABLE_ENV_PREFIX, type Variables, type VariableValue } from "./variable-set.js";

/**
 * Substitutes `${var.…}` in a document's scalar values (docs/manual/desired-state.md, "Environments
 * and variables"): not in keys, not in a document's `kind`. A value that is exactly one reference
 * takes the variable's value with its type; inside a longer string a reference is text. A
 * variable's value is never expanded itself (no recursion).
 */

/** How much a file's documents may grow by substitution: MAX_FILE_BYTES, as a file may hold (one file's documents share one budget). */
export class SubstitutionBudget {
  remaining = MAX_FILE_BYTES;
  /** Set once the budget is spent, so that one file reports it once. */
  exceeded = false;
}

/** A field's problem: its path in the document, and the message. */
export interface SubstitutionProblem {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/** A field whose whole value is text given on the command line or the environment, and what YAML reads that text as. */
export interface TextualValue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly typed: unknown;
}

/** A field whose whole value a variable gave: the reference and where its value came from (for the field's problems). */
export interface WholeValue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly written: string;
  /** A variable file, `--var`, `CONVERGE_VAR_NAME`, or `the default`. */
  readonly from: string;
}

/**
 * A document after substitution: its value (the same object when it holds no reference), the
 * problems, the text values a field may read typed, and (when asked) the fields variables gave whole.
 */
export interface Substitution {
  readonly value: unknown;
  readonly problems: ReadonlyArray<SubstitutionProblem>;
  readonly textual: ReadonlyArray<TextualValue>;
  readonly wholes: ReadonlyArray<WholeValue>;
}

interface Walk {
  readonly variables: Variables;
  readonly budget: SubstitutionBudget;
  readonly problems: SubstitutionProblem[];
  readonly textual: TextualValue[];
  /** Collected only when asked: the walk of a valid document keeps no path. */
  readonly wholes: WholeValue[] | undefined;
}

/**
 * Substitutes every reference of `document`, charging `budget` with what it adds. `wholes` collects
 * the fields a variable gave whole (for messages: a second walk of a document that failed its check).
 */
export function substituteVariables(document: unknown, variables: Variables, budget: SubstitutionBudget, options: { readonly wholes?: boolean } = {}): Substitution {
  const walk: Walk = { variables, budget, problems: [], textual: [], wholes: options.wholes ? [] : undefined };
  const value = substituteIn(document, [], walk);
  return { value, problems: walk.problems, textual: walk.textual, wholes: walk.wholes ?? [] };
}

/** `path` is the walk's one stack of keys (copied where a problem or a typed text keeps it). */
function substituteIn(value: unknown, path: PropertyKey[], walk: Walk): unknown {
  if (typeof value === "string") return value.includes(REFERENCE_OPENING) ? substituteString(value, path, walk) : value;
  if (value === null || typeof value !== "object") return value;
  return Array.isArray(value) ? substituteItems(value, path, walk) : substituteFields(value as Record<string, unknown>, path, walk);
}

function substituteItems(list: unknown[], path: PropertyKey[], walk: Walk): unknown[] {
  let copy: unknown[] | undefined;
  for (let index = 0; index < list.length; index += 1) {
    const item: unknown = list[index];
    if (typeof item === "string" && !item.includes(REFERENCE_OPENING)) continue;
    path.push(index);
    const substituted = substituteIn(item, path, walk);
    path.pop();
    if (substituted !== item) (copy ??= [...list])[index] = substituted;
  }
  return copy ?? list;
}

function substituteFields(fields: Record<string, unknown>, path: PropertyKey[], walk: Walk): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  const top = path.length === 0;
  for (const key in fields) {
    const item = fields[key];
    if ((typeof item === "string" && !item.includes(REFERENCE_OPENING)) || (top && key === "kind")) continue;
    path.push(key);
    const substituted = substituteIn(item, path, walk);
    path.pop();
    if (substituted !== item) (copy ??= { ...fields })[key] = substituted;
  }
  return copy ?? fields;
}

/** A whole value `${var.NAME}`, without default or message: the common case, read without parsing a template. */
const WHOLE_REFERENCE = /^\$\{var\.([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** A string that holds `${var.` (the caller checked). */
function substituteString(text: string, stack: PropertyKey[], walk: Walk): unknown {
  const whole = walk.wholes ? null : WHOLE_REFERENCE.exec(text);
  const given = whole ? walk.variables.values.get(whole[1]!) : undefined;
  // a typed value from a variable file that fits: taken as it is, nothing allocated
  if (given !== undefined && !given.text) {
    const { size, depth } = measure(given);
    if (stack.length + 1 + depth <= MAX_NESTING_DEPTH && (walk.budget.remaining -= size) >= 0) return given.value;
    walk.budget.remaining += size;
  }
  const template = parseTemplate(text);
  if (template === undefined) return text;
  const path = [...stack];
  if (template.malformed) {
    for (const message of template.malformed) walk.problems.push({ path, message });
    return text;
  }
  const [only] = template.parts;
  if (template.parts.length === 1 && typeof only === "object") return wholeValue(only, path, walk);
  let out = "";
  for (const part of template.parts) {
    if (typeof part === "string") {
      out += part;
      continue;
    }
    const piece = textOf(part, path, walk);
    if (piece === undefined) return text;
    out += piece;
  }
  return out;
}

/** A value that is exactly one reference: the variable's value with its type, or text to read as the field needs. */
function wholeValue(reference: VariableReference, path: PropertyKey[], walk: Walk): unknown {
  const given = givenValue(reference, path, walk);
  if (given === undefined) return undefined;
  walk.wholes?.push({ path, written: reference.written, from: given.from });
  if (given.text) {
    const text = given.value as string;
    if (!charge(text.length, reference, path, walk)) return undefined;
    const typed = readAsYaml(text, path.length);
    if (typed !== NOT_TYPED) walk.textual.push({ path, typed });
    return text;
  }
  const { size, depth } = measure(given);
  if (path.length + 1 + depth > MAX_NESTING_DEPTH) {
    walk.problems.push({ path, message: `${reference.written}: ${nestingProblem(` once variable ${reference.name} is substituted`)}` });
    return undefined;
  }
  return charge(size, reference, path, walk) ? given.value : undefined;
}

/** A reference inside a longer string: its text, or undefined (a problem recorded) when it has none. */
function textOf(reference: VariableReference, path: PropertyKey[], walk: Walk): string | undefined {
  const given = givenValue(reference, path, walk);
  if (given === undefined) return undefined;
  const value = given.value;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    const text = String(value);
    return charge(text.length, reference, path, walk) ? text : undefined;
  }
  const what = value === null ? "null" : Array.isArray(value) ? "a list" : "a mapping";
  walk.problems.push({
    path,
    message: `${reference.written}: variable ${reference.name} is ${what} (from ${given.from}), which cannot be part of a text: `
      + `expected a string, number or boolean, or the reference as the field's whole value`,
  });
  return undefined;
}

/** What a reference stands for: the given value, its default (as text), or undefined with a problem recorded. */
function givenValue(reference: VariableReference, path: PropertyKey[], walk: Walk): VariableValue | undefined {
  const given = walk.variables.values.get(reference.name);
  const empty = given === undefined || given.value === "" || given.value === null;
  if (given !== undefined && !(empty && (reference.fallback !== undefined || reference.required !== undefined))) return given;
  if (reference.fallback !== undefined) return { name: reference.name, value: reference.fallback, text: true, from: "its default" };
  const name = reference.name;
  const where = `give it with --var ${name}=VALUE, in a --var-file, or as the environment variable ${VARIABLE_ENV_PREFIX}${name}`;
  walk.problems.push({
    path,
    message: reference.required !== undefined
      ? `${reference.written}: variable ${name} is ${given === undefined ? "not set" : given.value === null ? "null" : "empty"}: ${reference.required} (${where})`
      : `${reference.written}: variable ${name} is not set and has no default: ${where}, or write \${var.${name}:-DEFAULT}`,
  });
  return undefined;
}

/** Charges the budget with `size` characters; false (the problem recorded, once per file) when it is spent. */
function charge(size: number, reference: VariableReference, path: PropertyKey[], walk: Walk): boolean {
  walk.budget.remaining -= size;
  if (walk.budget.remaining >= 0) return true;
  if (!walk.budget.exceeded) {
    walk.budget.exceeded = true;
    walk.problems.push({
      path,
      message: `${reference.written}: substituting variables adds more than ${MAX_FILE_BYTES / 1024 / 1024} MiB to this file's documents `
        + `(variable ${reference.name}, ${size} characters here): expected documents bounded as a desired-state file is`,
    });
  }
  return false;
}

const measured = new WeakMap<VariableValue, { readonly size: number; readonly depth: number }>();

/** A variable's size (its JSON's length) and how deeply its lists and mappings nest, measured once. */
function measure(variable: VariableValue): { readonly size: number; readonly depth: number } {
  let known = measured.get(variable);
  if (!known) {
    known = { size: (JSON.stringify(variable.value) ?? "").length, depth: depthOf(variable.value) };
    measured.set(variable, known);
  }
  return known;
}

/** How deeply a value's lists and mappings nest (a scalar 0); values here nest at most MAX_NESTING_DEPTH deep (their file was checked). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depthOf(item));
  return deepest + 1;
}

const NOT_TYPED = Symbol("not typed");
let jsYaml: typeof JsYaml | undefined;

/**
 * What YAML reads `text` as, written as a field's value (`15000` a number, `true` a boolean, `[a, b]`
 * a list), when that is not the text itself and fits below `depth` levels; else NOT_TYPED.
 */
function readAsYaml(text: string, depth: number): unknown {
  if (text.trim() === "" || excessiveNestingOffset(text, 0, text.length, MAX_NESTING_DEPTH - depth - 1) !== undefined) return NOT_TYPED;
  jsYaml ??= createRequire(import.meta.url)("js-yaml") as typeof JsYaml;
  try {
    const typed = jsYaml.load(text);
    return typed === text || typed === undefined ? NOT_TYPED : typed;
  } catch {
    // text that is not YAML stays text: the field's own check says what it expected
    return NOT_TYPED;
  }
}
