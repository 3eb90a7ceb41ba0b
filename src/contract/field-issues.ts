import type { z } from "zod";

/** One invalid field: its dotted path in the input and a message naming the value received and what was expected. */
export interface FieldIssue {
  readonly name: string;
  readonly message: string;
  /** The raw path of the field, when known (to locate it in a source file). */
  readonly path?: ReadonlyArray<PropertyKey>;
}

const MAX_RENDERED_VALUE = 80;

/** Renders a received value for a message: JSON, cut to a readable length. */
export function renderValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // too deeply nested (stack overflow) or cyclic: String() may throw too
    text = Array.isArray(value) ? "[…]" : typeof value === "object" && value !== null ? "{…}" : "(value cannot be shown)";
  }
  return text.length > MAX_RENDERED_VALUE ? `${text.slice(0, MAX_RENDERED_VALUE)}…` : text;
}

/** Joins a zod path the way users write it: `spec.requestParameters["a.b"]`, `items[2]`. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_$][\w$]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out || "(body)";
}

export function valueAtPath(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment as string];
  }
  return current;
}

/**
 * Turns zod issues into field issues, one per invalid field (the first issue of a field wins),
 * each message naming the value received and what was expected.
 */
export function describeZodIssues(issues: ReadonlyArray<z.core.$ZodIssue>, input: unknown): FieldIssue[] {
  const byField = new Map<string, FieldIssue>();
  for (const issue of issues) {
    const name = formatFieldPath(issue.path);
    if (byField.has(name)) continue;
    byField.set(name, { name, message: describeIssue(issue, input), path: issue.path });
  }
  return [...byField.values()];
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const value = valueAtPath(input, issue.path);
  const parentIsObject = issue.path.length === 0 || isPlainObject(valueAtPath(input, issue.path.slice(0, -1)));
  if (value === undefined && parentIsObject && issue.code !== "unrecognized_keys") {
    return `${formatFieldPath(issue.path)} is required: ${stripInvalidInput(issue.message)}`;
  }
  if (issue.code === "invalid_key") {
    const key = issue.path[issue.path.length - 1];
    const expected = issue.issues.map((inner) => stripInvalidInput(inner.message)).join("; ");
    return `${formatFieldPath(issue.path.slice(0, -1))} key ${renderValue(String(key))} is not valid: ${expected}`;
  }
  if (issue.code === "unrecognized_keys") {
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
  }
  return `${formatFieldPath(issue.path)} ${renderValue(value)} is not valid: ${stripInvalidInput(issue.message)}`;
}

/** zod's default messages start with "Invalid input: "; ours say what was expected. */
function stripInvalidInput(message: string): string {
  // "received undefined" says nothing a person can act on: the field is missing, which the message says first
  return message.replace(/^Invalid input: /, "").replace(/^Invalid /, "invalid ").replace(/, received undefined$/, "");
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Issues at the field they are about: an unknown field at its own key (zod reports it on the
 * mapping), and a union whose every branch got the right shape but a bad field (an AlternateContact
 * spec with a lower-case type) as the fields of its closest branch, not as "invalid input".
 */
export function pinpointZodIssues(issues: ReadonlyArray<z.core.$ZodIssue>): z.core.$ZodIssue[] {
  return issues.flatMap((issue): z.core.$ZodIssue[] => {
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ ...issue, keys: [key], path: [...issue.path, key] }));
    if (issue.code !== "invalid_union" || issue.errors.length === 0
      || !issue.errors.every((branch) => branch.length > 0 && branch.every((inner) => inner.path.length > 0))) {
      return [issue];
    }
    const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return pinpointZodIssues(closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
  });
}
