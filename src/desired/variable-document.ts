import { formatFieldPath } from "../contract/field-issues.js";
import type { DesiredStateProblem } from "./desired-state-error.js";
import type { LoadedDocument } from "./loaded-document.js";
import type { RawDocument } from "./raw-document.js";
import { SubstitutionBudget, substituteVariables, type Substitution, type TextualValue, type WholeValue } from "./substitute-variables.js";
import { validateDocument } from "./validate-document.js";
import type { Variables } from "./variable-set.js";

/**
 * Validates a document once its variables are substituted, as if their values were written in it.
 * A field whose whole value is text from `--var` or the environment is read as that field needs:
 * when the text fails the field's check and YAML reads it as something else (`15000` a number,
 * `true` a boolean) that passes, the field takes that; otherwise the text's problem is reported.
 */
export function validateWithVariables(raw: RawDocument, variables: Variables, budget: SubstitutionBudget):
  { document: LoadedDocument } | { problems: DesiredStateProblem[] } {
  const substitution = substituteVariables(raw.value, variables, budget);
  if (substitution.problems.length > 0) {
    return {
      problems: substitution.problems.map(({ path, message }) => ({
        ...raw.locator.locate(path),
        path: path.length ? formatFieldPath(path) : "",
        message,
      })),
    };
  }
  const result = validateTyped(raw, substitution);
  if ("document" in result) return result;
  // which variable gave each failing field: a second walk that keeps the paths (only documents that fail pay for it)
  const { wholes } = substituteVariables(raw.value, variables, new SubstitutionBudget(), { wholes: true });
  return { problems: result.problems.map((problem) => naming(problem, wholes)) };
}

/** Validates the substituted document, then again with the text values that failed read typed, keeping that when it fixes them. */
function validateTyped(raw: RawDocument, substitution: Substitution): ReturnType<typeof validateDocument> {
  const first = validateDocument(substitution.value === raw.value ? raw : { value: substitution.value, locator: raw.locator });
  if ("document" in first || substitution.textual.length === 0) return first;
  const failing = new Set(first.problems.map((problem) => problem.path));
  const retyped = substitution.textual.filter((textual) => failing.has(formatFieldPath(textual.path)));
  if (retyped.length === 0) return first;
  const second = validateDocument({ value: retyped.reduce(withTyped, substitution.value), locator: raw.locator });
  if ("document" in second) return second;
  const still = new Set(second.problems.map((problem) => problem.path));
  return retyped.some((textual) => still.has(formatFieldPath(textual.path))) ? first : second;
}

/** A field's problem, saying which variable gave the field's value and from where. */
function naming(problem: DesiredStateProblem, wholes: ReadonlyArray<WholeValue>): DesiredStateProblem {
  const whole = problem.path === "" ? undefined : wholes.find((candidate) => formatFieldPath(candidate.path) === problem.path);
  return whole ? { ...problem, message: `${problem.message} (the value of ${whole.written}, from ${whole.from})` } : problem;
}

/** `root` with the value at `textual.path` replaced by its typed reading (copied along the path, the rest shared). */
function withTyped(root: unknown, textual: TextualValue): unknown {
  const replace = (node: unknown, depth: number): unknown => {
    if (depth === textual.path.length) return textual.typed;
    const key = textual.path[depth]!;
    const copy = (Array.isArray(node) ? [...node] : { ...(node as Record<PropertyKey, unknown>) }) as Record<PropertyKey, unknown>;
    copy[key] = replace(copy[key], depth + 1);
    return copy;
  };
  return replace(root, 0);
}
