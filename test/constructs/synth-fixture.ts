import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as cdktf from "cdktf";
import * as cdktn from "cdktn";
import { ConvergeConfig, type ConvergeConfigProps } from "../../constructs/index.js";

/** The libraries a stack can be built with: cdktf 0.21 (deprecated upstream) and its maintained fork cdktn 0.24. */
export const LIBRARIES = { cdktf, cdktn } as const;
export type LibraryName = keyof typeof LIBRARIES;
type TerraformStack = cdktf.TerraformStack;

/**
 * Synthesizes stacks of converge constructs into a temp directory with cdktf's own App.synth()
 * (validations included, converge.desired.json written), and reads what it wrote.
 */

export interface LocalExecJson {
  readonly command: string;
  readonly environment?: Record<string, string>;
  readonly when?: "create" | "destroy";
}

export interface ResourceJson {
  readonly triggers?: Record<string, string>;
  readonly triggers_replace?: Record<string, string>;
  readonly lifecycle?: Record<string, unknown>;
  readonly depends_on?: string[];
  readonly provisioner?: Array<{ "local-exec": LocalExecJson }>;
}

export interface SynthOutput {
  /** The stack's directory (where cdk.tf.json and converge.desired.json are). */
  readonly stackDir: string;
  readonly outdir: string;
  /** cdk.tf.json as text and parsed. */
  readonly text: string;
  readonly tf: { resource?: Record<string, Record<string, ResourceJson>>; provider?: Record<string, unknown>; terraform?: Record<string, unknown> };
  readonly desiredText: string;
  readonly desired: unknown[];
}

const made: string[] = [];

/** Removes every directory synthesized so far. */
export function cleanupSynthDirs(): void {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
}

/** A fresh outdir under the system temp directory. */
export function makeOutdir(label = "synth"): string {
  const directory = mkdtempSync(join(tmpdir(), `converge-cdktf-${label}-`));
  made.push(directory);
  return directory;
}

/**
 * Builds stack `name` in a new App (a ConvergeConfig with `config`, then `build`), synthesizes it
 * into `outdir` and reads the result. The local backend keeps state in the stack's directory.
 */
export function synthStack(build: (stack: TerraformStack) => void, config: ConvergeConfigProps, options: { outdir?: string; name?: string; library?: LibraryName } = {}): SynthOutput {
  const outdir = options.outdir ?? makeOutdir();
  const name = options.name ?? "shop";
  const library = LIBRARIES[options.library ?? "cdktf"] as typeof cdktf;
  const app = new library.App({ outdir });
  const stack = new library.TerraformStack(app, name);
  const stackDir = join(outdir, "stacks", name);
  new library.LocalBackend(stack, { path: join(stackDir, "terraform.tfstate") });
  new ConvergeConfig(stack, "converge", config);
  build(stack);
  app.synth();
  return readSynth(outdir, name);
}

export function readSynth(outdir: string, name = "shop"): SynthOutput {
  const stackDir = join(outdir, "stacks", name);
  const text = readFileSync(join(stackDir, "cdk.tf.json"), "utf8");
  const desiredText = readFileSync(join(stackDir, "converge.desired.json"), "utf8");
  return { stackDir, outdir, text, tf: JSON.parse(text) as SynthOutput["tf"], desiredText, desired: JSON.parse(desiredText) as unknown[] };
}

/** The resource `type.name` of a synthesized stack; fails when it is missing. */
export function resourceOf(output: SynthOutput, type: string, name: string): ResourceJson {
  const resource = output.tf.resource?.[type]?.[name];
  if (!resource) throw new Error(`no ${type}.${name} in cdk.tf.json; resources: ${Object.entries(output.tf.resource ?? {}).flatMap(([t, byName]) => Object.keys(byName).map((n) => `${t}.${n}`)).join(", ")}`);
  return resource;
}

/** The triggers of a resource, whichever the vehicle (`triggers` or `triggers_replace`). */
export function triggersOf(resource: ResourceJson): Record<string, string> {
  const triggers = resource.triggers ?? resource.triggers_replace;
  if (!triggers) throw new Error("the resource has no triggers");
  return triggers;
}

/** The local-exec provisioners of a resource. */
export function localExecsOf(resource: ResourceJson): LocalExecJson[] {
  return (resource.provisioner ?? []).map((entry) => entry["local-exec"]);
}

/**
 * cdk.tf.json made comparable across runs and machines: cdktf's metadata removed, sha256 hashes and
 * the given paths replaced by placeholders.
 */
export function normalizeSynth(text: string, paths: Readonly<Record<string, string>>): unknown {
  let normalized = text.replace(/\b[0-9a-f]{64}\b/g, "<sha256>");
  for (const [placeholder, path] of Object.entries(paths)) normalized = normalized.split(path).join(placeholder);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "//").map(([key, inner]) => [key, strip(inner)]));
  };
  return strip(JSON.parse(normalized));
}
