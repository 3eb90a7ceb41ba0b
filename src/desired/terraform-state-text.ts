import { createRequire } from "node:module";
import type * as JsoncParser from "jsonc-parser";
import { renderValue } from "../contract/field-issues.js";
import { excessiveNestingOffset, nestingProblem } from "../input-limits/nesting.js";
import type { DesiredStateProblem, SourceLocation } from "./desired-state-error.js";
import { arrayItems, objectMembers, offsetOfJsonPath, skipWhitespace } from "./json-offsets.js";
import { LineIndex } from "./line-index.js";

/**
 * A terraform state's text read as format 4 (the JSON of `terraform state pull`): parsed once by
 * JSON.parse after a scan that refuses excessive nesting, its envelope checked (version 4,
 * terraform_version a string, resources an array of resources, each with its instances), and the
 * places of its values found in the text only when a message or a report asks for one.
 */

/** The state format converge reads (terraform 0.12 and later write it). */
export const STATE_FORMAT_VERSION = 4;

/** One instance of a state's resource. */
export interface StateInstance {
  readonly index_key?: unknown;
  readonly deposed?: unknown;
  readonly attributes?: unknown;
}

/** One resource of a state: where it is, and its instances. */
export interface StateResource {
  readonly module?: string;
  readonly mode: string;
  readonly type: string;
  readonly name: string;
  readonly provider?: string;
  readonly instances: ReadonlyArray<StateInstance>;
}

/** A state whose envelope is as format 4 has it, with where its values stand. */
export interface ParsedState {
  readonly resources: ReadonlyArray<StateResource>;
  readonly locator: StateLocator;
}

/**
 * Where the values of a state stand (1-based line and column). Lines are counted on first use;
 * the places of the instances are found by one scan of the text on first use, so a state whose
 * places nobody asks for pays for neither.
 */
export class StateLocator {
  readonly #file: string;
  readonly #text: string;
  readonly #lines: LineIndex;
  #instances: number[][] | undefined;

  constructor(file: string, text: string) {
    this.#file = file;
    this.#text = text;
    this.#lines = new LineIndex(text);
  }

  /** Where an offset of the text stands. */
  at(offset: number): SourceLocation {
    return { file: this.#file, ...this.#lines.position(offset) };
  }

  /** Where the value at a path of the state stands (its nearest existing parent's place when absent). */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation {
    return this.at(offsetOfJsonPath(this.#text, path));
  }

  /** Where instance `instance` of resource `resource` stands, or a value at `path` within it. */
  instance(resource: number, instance: number, path: ReadonlyArray<PropertyKey> = []): SourceLocation {
    const start = this.#instanceOffsets()[resource]?.[instance];
    if (start === undefined) return this.locate(["resources", resource, "instances", instance, ...path]);
    return this.at(path.length === 0 ? start : offsetOfJsonPath(this.#text, path, start));
  }

  /** Where each instance of each resource starts: one scan of the text. */
  #instanceOffsets(): number[][] {
    if (this.#instances) return this.#instances;
    const text = this.#text;
    const offsets: number[][] = [];
    const resources = offsetOfJsonPath(text, ["resources"]);
    for (const resource of arrayItems(text, resources)) {
      const instances: number[] = [];
      for (const member of objectMembers(text, resource)) {
        if (member.key === "instances" && text[member.value] === "[") for (const item of arrayItems(text, member.value)) instances.push(item);
      }
      offsets.push(instances);
    }
    this.#instances = offsets;
    return offsets;
  }
}

let jsoncParser: typeof JsoncParser | undefined;

/** jsonc-parser, loaded only to place a syntax error (a valid state never loads it). */
function jsonc(): typeof JsoncParser {
  jsoncParser ??= createRequire(import.meta.url)("jsonc-parser") as typeof JsoncParser;
  return jsoncParser;
}

/** Where JSON.parse's error is, and what it is: jsonc-parser's first error with comments and trailing commas refused, else the end of the text. */
function syntaxError(text: string, error: SyntaxError): { readonly offset: number; readonly reason: string } {
  const parser = jsonc();
  const errors: JsoncParser.ParseError[] = [];
  parser.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined) {
    const reason = parser.printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    return { offset: first.offset, reason: first.offset >= text.trimEnd().length ? `${reason} where the text ends (truncated?)` : reason };
  }
  return { offset: text.length, reason: error.message.toLowerCase() };
}

/**
 * The state a text holds, or the problems that refuse it, each naming the file (`name`), the
 * line and column, and the value received: a text that nests deeper than MAX_NESTING_DEPTH, that
 * is not JSON (or is truncated), whose `version` is not 4, whose `terraform_version` is not a
 * string, or whose resources and instances do not have format 4's shape.
 */
export function parseStateText(text: string, name: string): { readonly state: ParsedState } | { readonly problems: DesiredStateProblem[] } {
  const locator = new StateLocator(name, text);
  const problem = (location: SourceLocation, path: string, message: string): DesiredStateProblem => ({ ...location, path, message });
  const tooDeep = excessiveNestingOffset(text);
  if (tooDeep !== undefined) return { problems: [problem(locator.at(tooDeep), "", `is not a terraform state: ${nestingProblem()}`)] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const { offset, reason } = syntaxError(text, error as SyntaxError);
    return { problems: [problem(locator.at(offset), "", `is not a terraform state: not JSON: ${reason}; expected the JSON of terraform state pull`)] };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problems: [problem(locator.at(skipWhitespace(text, 0)), "", `is not a terraform state: received ${renderValue(value)}; expected an object (the JSON of terraform state pull)`)] };
  }
  const root = value as Record<string, unknown>;
  if (root.version !== STATE_FORMAT_VERSION) {
    return { problems: [problem(locator.locate(["version"]), "", `version ${renderValue(root.version)} is not supported: expected ${STATE_FORMAT_VERSION} (the state format of terraform 0.12 and later; terraform state pull writes it)`)] };
  }
  const problems: DesiredStateProblem[] = [];
  if (root.terraform_version !== undefined && typeof root.terraform_version !== "string") {
    problems.push(problem(locator.locate(["terraform_version"]), "", `terraform_version ${renderValue(root.terraform_version)} is not valid: expected a string (e.g. "1.11.4")`));
  }
  const resources = root.resources ?? [];
  if (!Array.isArray(resources)) {
    problems.push(problem(locator.locate(["resources"]), "", `resources ${renderValue(resources)} is not valid: expected an array of resources`));
    return { problems };
  }
  resources.forEach((resource: unknown, index) => {
    for (const [path, message] of resourceIssues(resource)) problems.push(problem(locator.locate(["resources", index, ...path]), `resources[${index}]`, message));
  });
  return problems.length > 0 ? { problems } : { state: { resources: resources as StateResource[], locator } };
}

/** What is wrong with a resource's envelope: each issue's path within the resource and its message. */
function resourceIssues(resource: unknown): Array<[ReadonlyArray<PropertyKey>, string]> {
  if (typeof resource !== "object" || resource === null || Array.isArray(resource)) return [[[], `${renderValue(resource)} is not valid: expected an object with mode, type, name and instances`]];
  const record = resource as Record<string, unknown>;
  const issues: Array<[ReadonlyArray<PropertyKey>, string]> = [];
  for (const key of ["mode", "type", "name"] as const) {
    if (typeof record[key] !== "string") issues.push([[key], `${key} ${renderValue(record[key])} is not valid: expected a string`]);
  }
  for (const key of ["module", "provider"] as const) {
    if (record[key] !== undefined && typeof record[key] !== "string") issues.push([[key], `${key} ${renderValue(record[key])} is not valid: expected a string`]);
  }
  const instances = record.instances;
  if (!Array.isArray(instances)) {
    issues.push([["instances"], `instances ${renderValue(instances)} is not valid: expected an array`]);
    return issues;
  }
  instances.forEach((instance: unknown, index) => {
    if (typeof instance !== "object" || instance === null || Array.isArray(instance)) {
      issues.push([["instances", index], `instances[${index}] ${renderValue(instance)} is not valid: expected an object with attributes`]);
      return;
    }
    const attributes = (instance as StateInstance).attributes;
    if (attributes !== undefined && (typeof attributes !== "object" || attributes === null || Array.isArray(attributes))) {
      issues.push([["instances", index, "attributes"], `instances[${index}].attributes ${renderValue(attributes)} is not valid: expected an object`]);
    }
  });
  return issues;
}
