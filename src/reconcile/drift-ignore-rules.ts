import { createHash } from "node:crypto";
import type * as YamlLibrary from "yaml";
import { LineIndex } from "../desired/line-index.js";
import { composeDocuments, yamlLibrary } from "../desired/yaml-library.js";
import { isBrandedError, ProblemsError } from "../contract/error-brand.js";
import { addressGlobProblem } from "./drift-ignore-glob.js";
import { DRIFT_OUTCOMES, type DriftOutcome } from "./drift-report.js";

/**
 * Ignore rules of `converge drift` (docs/manual/drift.md, "Ignore rules"): YAML files that each hold
 * a list of rules, read here into typed rules with the line of each, every problem of every file
 * reported at once. The files are read by the CLI (src/cli/ignore-files.ts); matching is
 * drift-ignore.ts.
 */

/** One rule, as written in its file. */
export interface IgnoreRule {
  /** The file the rule was read from, as the run named it. */
  readonly file: string;
  /** 1-based line of the rule's first key: what a report's `ignoredBy` and the warnings name. */
  readonly line: number;
  /** A glob over report addresses (drift-ignore-glob.ts). */
  readonly address: string;
  /** Globs of addresses the rule does not cover. @default [] */
  readonly except: ReadonlyArray<string>;
  /** The outcomes the rule accepts. @default every outcome but in-sync */
  readonly outcomes: ReadonlyArray<DriftOutcome>;
  /** When set, the rule accepts only a drifted resource every differing field of which is listed here. */
  readonly fields?: ReadonlyArray<string> | undefined;
  /** Why the findings are accepted: required, never blank. */
  readonly reason: string;
  /** `YYYY-MM-DD`: the last day (UTC) the rule applies; from the next day on it is expired. */
  readonly until?: string | undefined;
}

/** An ignore file's name, as the run names it in messages and reports, and its text. */
export interface IgnoreFile {
  readonly file: string;
  readonly text: string;
}

/** One problem of an ignore file: where (the line, when the problem has one), and what. */
export interface IgnoreRuleProblem {
  readonly file: string;
  readonly line?: number | undefined;
  readonly message: string;
}

/** `ops.yaml:4: until "2027-02-30" is not a date: …`, or `ops.yaml: …` for a problem of the whole file. */
export function formatIgnoreRuleProblem(problem: IgnoreRuleProblem): string {
  return `${problem.file}${problem.line !== undefined ? `:${problem.line}` : ""}: ${problem.message}`;
}

/** The largest ignore file converge reads: a rule takes a few lines, so this is tens of thousands of rules. */
export const MAX_IGNORE_FILE_BYTES = 1 << 20;

/** The outcomes a rule without `outcomes` accepts: every one but in-sync. */
export const DEFAULT_IGNORED_OUTCOMES: ReadonlyArray<DriftOutcome> = DRIFT_OUTCOMES.filter((outcome) => outcome !== "in-sync");

const RULE_KEYS = ["address", "fields", "outcomes", "except", "reason", "until"] as const;


/** Ignore files that cannot be used; the run stopped before reading anything live. `problems` holds every one. */
export class IgnoreRulesError extends ProblemsError<IgnoreRuleProblem> {
  readonly code = "CONVERGE_IGNORE_RULES" as const;

  constructor(problems: ReadonlyArray<IgnoreRuleProblem>) {
    super("ignore rules are not valid", problems, problems.map(formatIgnoreRuleProblem));
    this.name = "IgnoreRulesError";
  }
}

export function isIgnoreRulesError(value: unknown): value is IgnoreRulesError {
  return isBrandedError(value, "CONVERGE_IGNORE_RULES");
}

/** The rules of every file, in order (files in the order given); throws one IgnoreRulesError listing every problem of every file. */
export function parseIgnoreFiles(files: ReadonlyArray<IgnoreFile>): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  const problems: IgnoreRuleProblem[] = [];
  for (const file of files) {
    const parsed = parseIgnoreFile(file);
    rules.push(...parsed.rules);
    problems.push(...parsed.problems);
  }
  if (problems.length > 0) throw new IgnoreRulesError(problems);
  return rules;
}

/**
 * The rules of one file and its problems, in the file's order. The text must nest at most
 * MAX_NESTING_DEPTH deep (src/input-limits/nesting.ts; the CLI checks it as it reads the file).
 */
export function parseIgnoreFile({ file, text }: IgnoreFile): { rules: IgnoreRule[]; problems: IgnoreRuleProblem[] } {
  const lines = new LineIndex(text);
  const lineOf = (offset: number) => lines.position(offset).line;
  const documents = composeDocuments(text);
  const problems: IgnoreRuleProblem[] = [];
  const syntax = documents.flatMap((document) => document.errors);
  if (syntax.length > 0) {
    return { rules: [], problems: syntax.map((error) => ({ file, line: lineOf(error.pos[0]), message: `not valid YAML: ${error.message}` })) };
  }
  const { isSeq, isMap } = yamlLibrary();
  const root = documents.length === 1 ? documents[0]!.contents : null;
  if (documents.length > 1) {
    return { rules: [], problems: [{ file, line: lineOf(documents[1]!.range[0]), message: `holds ${documents.length} YAML documents: expected one list of rules` }] };
  }
  if (!isSeq(root)) {
    const value = valueOf(root, documents[0]!);
    const received = root === null ? "nothing" : isMap(root) ? "a mapping" : value instanceof Error ? `what cannot be read (${value.message})` : describeReceived(value);
    return {
      rules: [],
      problems: [{ file, line: root?.range ? lineOf(root.range[0]) : 1, message: `holds ${received}: expected a YAML list of rules (- address: …; an empty file is [])` }],
    };
  }
  const rules: IgnoreRule[] = [];
  for (const item of root.items) {
    const read = readRule(item as YamlLibrary.Node | null, documents[0]!, file, lineOf);
    if ("rule" in read) rules.push(read.rule);
    problems.push(...read.problems);
  }
  return { rules, problems };
}

/** One item of the list: a rule, or its problems (every one of them). */
function readRule(
  item: YamlLibrary.Node | null,
  document: YamlLibrary.Document.Parsed,
  file: string,
  lineOf: (offset: number) => number,
): { rule: IgnoreRule; problems: [] } | { problems: IgnoreRuleProblem[] } {
  const { isAlias, isMap } = yamlLibrary();
  const line = item?.range ? lineOf(item.range[0]) : undefined;
  // `- *rule`: the rule an anchor names, read again (its keys' lines are the anchor's)
  const node = isAlias(item) ? item.resolve(document) ?? null : item;
  if (!isMap(node)) {
    const received = valueOf(node, document);
    const message = received instanceof Error
      ? `a rule cannot be read: ${received.message}`
      : `a rule is ${describeReceived(received)}: expected a mapping with address and reason`;
    return { problems: [{ file, line, message }] };
  }
  return readRuleMapping(node, document, file, lineOf);
}

/** What a rule's mapping holds: the line of its first key, its values by key (with their lines), the keys whose value could not be built. */
interface RuleValues {
  readonly line: number;
  readonly values: ReadonlyMap<string, { readonly value: unknown; readonly line: number }>;
  readonly unreadable: ReadonlySet<string>;
}

type Report = (key: string, message: string) => void;

/** A rule written as a mapping: its values by key, then every check of them, problems in the order of the file. */
function readRuleMapping(
  item: YamlLibrary.YAMLMap,
  document: YamlLibrary.Document.Parsed,
  file: string,
  lineOf: (offset: number) => number,
): { rule: IgnoreRule; problems: [] } | { problems: IgnoreRuleProblem[] } {
  const problems: IgnoreRuleProblem[] = [];
  const read = ruleValues(item, document, lineOf, (line, message) => problems.push({ file, line, message }));
  const problem: Report = (key, message) => problems.push({ file, line: read.values.get(key)?.line ?? read.line, message });
  const checked = checkRule(read, problem);
  if (problems.length > 0 || !checked) return { problems: problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
  return { problems: [], rule: { file, line: read.line, ...checked } };
}

/** The known keys' values; an unknown key, or a value the yaml library cannot build, is a problem at the key's line. */
function ruleValues(
  item: YamlLibrary.YAMLMap,
  document: YamlLibrary.Document.Parsed,
  lineOf: (offset: number) => number,
  report: (line: number, message: string) => void,
): RuleValues {
  const { isScalar } = yamlLibrary();
  const start = item.items[0]?.key as YamlLibrary.Node | undefined;
  const line = start?.range ? lineOf(start.range[0]) : item.range ? lineOf(item.range[0]) : 1;
  const values = new Map<string, { value: unknown; line: number }>();
  const unreadable = new Set<string>();
  for (const pair of item.items) {
    const key = pair.key as YamlLibrary.Node | null;
    const keyLine = key?.range ? lineOf(key.range[0]) : line;
    const name = isScalar(key) ? key.value : valueOf(key, document);
    if (typeof name !== "string" || !(RULE_KEYS as ReadonlyArray<string>).includes(name)) {
      report(keyLine, `unknown key ${name instanceof Error ? "(unreadable)" : describeReceived(name)}: expected ${RULE_KEYS.join(", ")}`);
      continue;
    }
    const value = valueOf(pair.value as YamlLibrary.Node | null, document);
    if (value instanceof Error) {
      report(keyLine, `${name}: ${value.message}`);
      unreadable.add(name);
    } else {
      values.set(name, { value, line: keyLine });
    }
  }
  return { line, values, unreadable };
}

/** Every check of a rule's values, each failure reported; the rule's fields when it has no problem of its own. */
function checkRule({ values, unreadable }: RuleValues, problem: Report): Omit<IgnoreRule, "file" | "line"> | undefined {
  const required = (key: "address" | "reason", message: string) => {
    if (!values.has(key) && !unreadable.has(key)) problem(key, message);
    return values.get(key)?.value;
  };
  const address = required("address", "a rule without address: expected the address (or a glob) of the findings it accepts");
  const addressOk = address !== undefined && checkGlob("address", address, problem);
  const reason = required("reason", "a rule without reason: expected why its findings are accepted");
  const reasonOk = typeof reason === "string" && reason.trim() !== "";
  if (reason !== undefined && !reasonOk) {
    problem("reason", `reason ${describeReceived(reason)} is not a reason: expected text saying why the findings are accepted`);
  }

  const except = readStrings("except", values.get("except")?.value, problem);
  except?.forEach((glob, index) => checkGlob(`except[${index}]`, glob, problem));
  const fields = readStrings("fields", values.get("fields")?.value, problem);
  fields?.forEach((field, index) => {
    if (field.trim() === "") problem("fields", `fields[${index}] is empty: expected a field path as the report names it (e.g. authorizationScopes)`);
  });
  const outcomes = readOutcomes(values.get("outcomes")?.value, fields !== undefined, problem);

  const until = values.get("until")?.value;
  const dateProblem = until === undefined ? undefined : calendarDateProblem(until);
  if (dateProblem) problem("until", `until ${describeReceived(until)} ${dateProblem}`);

  if (!addressOk || !reasonOk) return undefined;
  return {
    address: address as string,
    except: except ?? [],
    outcomes: outcomes ?? DEFAULT_IGNORED_OUTCOMES,
    ...(fields ? { fields } : {}),
    reason: reason as string,
    ...(until !== undefined ? { until: until as string } : {}),
  };
}

/** `outcomes`: known outcomes only, and only `drifted` next to `fields` (which narrow drifted resources). */
function readOutcomes(value: unknown, withFields: boolean, problem: Report): DriftOutcome[] | undefined {
  const outcomes = readStrings("outcomes", value, problem);
  outcomes?.forEach((outcome, index) => {
    if (!(DRIFT_OUTCOMES as ReadonlyArray<string>).includes(outcome)) {
      problem("outcomes", `outcomes[${index}] ${describeReceived(outcome)} is not an outcome: expected one of ${DRIFT_OUTCOMES.join(", ")}`);
    }
  });
  if (withFields && outcomes && outcomes.some((outcome) => outcome !== "drifted")) {
    problem("outcomes", `outcomes ${describeReceived(outcomes)} with fields: fields narrow drifted resources only, expected outcomes [drifted] or none`);
  }
  return outcomes as DriftOutcome[] | undefined;
}

/** The most aliases a value may expand (more is an alias bomb, which the yaml library refuses). */
const MAX_ALIAS_COUNT = 100;

/** A value as plain data, or the yaml library's error, lower case, for one it cannot build (an alias bomb, an alias of no anchor). */
function valueOf(node: YamlLibrary.Node | null, document: YamlLibrary.Document.Parsed): unknown {
  if (node === null) return null;
  try {
    return node.toJS(document, { maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (error) {
    return new Error((error as Error).message.replace(/^\w/, (first) => first.toLowerCase()));
  }
}

/** Whether `glob` is a valid address glob; reports why not. `key` is where it stands (`address`, `except[1]`). */
function checkGlob(key: string, glob: unknown, problem: Report): boolean {
  const name = key.replace(/\[\d+\]$/, "");
  if (typeof glob !== "string") {
    problem(name, `${key} ${describeReceived(glob)} is not text: expected an address or a glob of addresses (e.g. "Route/a1b2c3d4e5/*")`);
    return false;
  }
  const why = addressGlobProblem(glob);
  if (why) problem(name, `${key} ${describeReceived(glob)} ${why}`);
  return why === undefined;
}

/** A list of strings, undefined when the key is absent or its value is not one (a problem then). */
function readStrings(key: string, value: unknown, problem: Report): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((entry) => typeof entry !== "string")) {
    problem(key, `${key} ${describeReceived(value)} is not a list of text: expected a non-empty list such as [${key === "outcomes" ? "drifted" : key === "fields" ? "authorizationScopes" : "\"Route/a1b2c3d4e5/GET /admin\""}]`);
    return undefined;
  }
  return value as string[];
}

/**
 * Why `value` is not a `YYYY-MM-DD` calendar date (`is not a date: …`), or undefined when it is one.
 * Unquoted in YAML, `2027-01-31` is text (YAML 1.2 has no timestamps).
 */
export function calendarDateProblem(value: unknown): string | undefined {
  const expected = "is not a date: expected YYYY-MM-DD (e.g. 2027-01-31)";
  if (typeof value !== "string") return expected;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return expected;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return `is not a date: ${value.slice(0, 7)} has no day ${match[3]}; expected YYYY-MM-DD (e.g. 2027-01-31)`;
  }
  return undefined;
}

/** When a rule valid `until` day ends: 00:00 UTC of the next day, from which the rule is expired. */
export function expiryOf(until: string): Date {
  const [year, month, day] = until.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + 1));
}

/** Whether a rule no longer applies at `now`: its `until` day (UTC) is over. */
export function isRuleExpired(rule: Pick<IgnoreRule, "until">, now: Date): boolean {
  return rule.until !== undefined && now.getTime() >= expiryOf(rule.until).getTime();
}

/**
 * sha256 of the ignore files' texts, in order (their names left out: the same rules checked out in
 * another directory are the same rules). Undefined when there is none.
 */
export function ignoreFilesFingerprint(files: ReadonlyArray<IgnoreFile>): string | undefined {
  if (files.length === 0) return undefined;
  const hash = createHash("sha256");
  for (const { text } of files) hash.update(`${Buffer.byteLength(text)}\n`).update(text);
  return hash.digest("hex");
}

/**
 * The fingerprint a drift report carries: the desired state's, with the ignore files' folded in, so
 * that shards run with other ignore rules never merge; the desired state's alone when there is none.
 */
export function foldIgnoreFiles(desiredFingerprint: string, files: ReadonlyArray<IgnoreFile>): string {
  const ignore = ignoreFilesFingerprint(files);
  if (ignore === undefined) return desiredFingerprint;
  return createHash("sha256").update(`${desiredFingerprint}\nignore ${ignore}`).digest("hex");
}

/** A received value for a message: text quoted, anything else as JSON (cut at 80 characters). */
function describeReceived(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}
