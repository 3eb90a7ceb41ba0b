import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";
import type { Variables } from "./variable-set.js";

/**
 * What a saved plan and a drift report record of the variables they were made with, so that a
 * reviewer sees which environment they are for: the variable files in order, the names the
 * documents use that were given (and where), and a digest of those values (never the values).
 */
export interface VariablesRecord {
  readonly files: ReadonlyArray<string>;
  readonly names: ReadonlyArray<{ readonly name: string; readonly from: string }>;
  /** sha256 of the canonical JSON of `{name: value}` for `names`: equal values, equal digests. */
  readonly digest: string;
}

/** The record of `variables` for documents that use `used` (names sorted). */
export function recordVariables(variables: Variables, used: ReadonlySet<string>): VariablesRecord {
  const names = [...used].filter((name) => variables.values.has(name)).sort();
  const values = Object.fromEntries(names.map((name) => [name, variables.values.get(name)!.value]));
  return {
    files: [...variables.files],
    names: names.map((name) => ({ name, from: variables.values.get(name)!.from })),
    digest: createHash("sha256").update(canonicalJson(values)).digest("hex"),
  };
}

/**
 * One warning per name given by `--var` or a variable file that no document uses (a typo must not
 * pass silently); the environment's `CONVERGE_VAR_*` may serve other runs and are not warned about.
 */
export function unusedVariableWarnings(variables: Variables, used: ReadonlySet<string>): string[] {
  const known = [...used].sort().slice(0, 8).join(", ");
  return [...variables.flagged.values()]
    .filter((variable) => !used.has(variable.name))
    .map((variable) => {
      const location = variable.locate?.();
      const where = location ? `${location.file}:${location.line}:${location.column}: ` : "";
      return `${where}variable ${variable.name} (from ${variable.from}) is used by no document: a typo? `
        + (known ? `the documents use ${known}${used.size > 8 ? ", …" : ""}` : "the documents use no variable");
    });
}

/** A record for people, on one line: `envs/dev.yaml; api_name, timeout (envs/dev.yaml), region (--var); digest 1a2b3c4d5e6f`. */
export function describeVariables(record: VariablesRecord): string {
  const byFrom = new Map<string, string[]>();
  for (const { name, from } of record.names) byFrom.set(from, [...(byFrom.get(from) ?? []), name]);
  const names = [...byFrom].map(([from, listed]) => `${listed.join(", ")} (${from})`).join("; ");
  const files = record.files.length > 0 ? `variable files ${record.files.join(", ")}` : "no variable file";
  return `${files}; ${names || "no variable used"}; values digest ${record.digest.slice(0, 12)}`;
}
