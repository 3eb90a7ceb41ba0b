import { z } from "zod";
import type { SourceLocation } from "../desired/desired-state-error.js";
import type { LoadedDocument, TerraformOrigin } from "../desired/loaded-document.js";
import { describeVariables, type VariablesRecord } from "../desired/variable-record.js";
import { KINDS, type Kind } from "../desired/schema.js";

/**
 * The drift report (docs/manual/drift.md): every resource in exactly one outcome.
 * Plain JSON, versioned, so that shard reports written by separate processes merge into the report
 * one process would have written.
 */

export const DRIFT_OUTCOMES = ["in-sync", "drifted", "missing", "unmanaged", "conflict", "refused", "unknown"] as const;
export type DriftOutcome = (typeof DRIFT_OUTCOMES)[number];

/**
 * Outcomes that are drift: `converge drift` exits 2 when any resource not ignored has one (and none
 * is unknown). `conflict`: a live resource two sources claim (two managers will fight over it).
 */
export const DRIFT_FOUND: ReadonlySet<DriftOutcome> = new Set(["drifted", "missing", "unmanaged", "conflict"]);

/** Exit codes of `drift` and `drift merge` (docs/manual/commands.md, "Exit codes"); errors exit 1. */
export const DRIFT_EXIT = { inSync: 0, driftFound: 2, unknown: 3 } as const;

/** One field that differs: its path in the document's spec, the value the document wants and the live one (`null`: absent). */
export interface DriftField {
  readonly path: string;
  readonly desired: unknown;
  readonly live: unknown;
}

/** A resource a terraform state manages: the state file as the run named it, and the instance's terraform address. */
export type StateSource = TerraformOrigin;

/** What declares a resource: a place in a desired-state file, or an instance in a terraform state. */
export type DriftSource = SourceLocation | StateSource;

/** What a report names as a document's source: its instance in a terraform state, else its place in its file. */
export function sourceOfDocument(loaded: LoadedDocument): DriftSource {
  return loaded.terraform ?? loaded.source;
}

/** The ignore rule that accepted a finding: its file, its line there, and its reason. */
export interface IgnoredBy {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export function isStateSource(source: DriftSource): source is StateSource {
  return "state" in source;
}

/** A source for people: `infra/a.yaml:12`, or `infra/terraform.tfstate module.edge.converge_route.get_orders`. */
export function describeSource(source: DriftSource): string {
  return isStateSource(source) ? `${source.state} ${source.address}` : `${source.file}:${source.line}`;
}

export interface DriftResource {
  /** Stable address, as in plans: `Route/a1b2c3d4e5/GET /orders`. */
  readonly address: string;
  readonly kind: Kind;
  /** Identity within the kind (API references resolved where the API was read). */
  readonly identity: string;
  readonly outcome: DriftOutcome;
  /** For drifted (and missing) resources, the fields that differ; empty otherwise. */
  readonly fields: ReadonlyArray<DriftField>;
  /** Why: the refusal, why the resource is unmanaged, or why it could not be compared. */
  readonly reason: string | null;
  /**
   * What declares the resource: a document, or an instance of a terraform state (with terraform's
   * attribute names in `fields`); for an unmanaged one, the `Api` document that owns its API (null
   * when it was found by `--unmanaged all` outside every owned API).
   */
  readonly source: DriftSource | null;
  /** For a `conflict`: every source that claims the live resource (this entry's own among them). */
  readonly claimedBy?: ReadonlyArray<DriftSource> | undefined;
  /** Set when an ignore rule accepts the finding: it stays in the report, counted as ignored, not in the exit code. */
  readonly ignoredBy?: IgnoredBy | undefined;
}

/** Shard `index` of `count`, 1-based as on the command line (`--shard 1/4` … `--shard 4/4`). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

export const DRIFT_FORMAT_VERSION = 2;

/** Live resources in scope that some source manages: `percent` of `live` (100 when nothing is live), one decimal. */
export interface DriftCoverage {
  readonly managed: number;
  readonly live: number;
  readonly percent: number;
}

/**
 * Resources by outcome, an ignored resource counted in `ignored` instead of its outcome (so the
 * outcome counts are what the exit code reads); and the coverage of the scope.
 */
export type DriftSummary = Readonly<Record<DriftOutcome, number>> & {
  readonly ignored: number;
  readonly coverage: DriftCoverage;
};

export interface DriftReport {
  readonly formatVersion: typeof DRIFT_FORMAT_VERSION;
  /** When the live reads started (ISO 8601); for a merged report, the earliest of its shards'. */
  readonly generatedAt: string;
  /** Present on the report of one shard; absent on a whole (or merged) report. */
  readonly shard?: ShardSpec | undefined;
  /**
   * sha256 of every desired document (not only the shard's), with the ignore files' texts folded in
   * when there are some (drift-ignore-rules.ts): shards of different desired states or rules never merge.
   */
  readonly desiredFingerprint: string;
  /**
   * The variables the documents were read with (docs/manual/desired-state.md, "Environments and
   * variables"): their files, the names used and a digest of the values, which the fingerprint
   * covers. Absent when none was given.
   */
  readonly variables?: VariablesRecord | undefined;
  readonly summary: DriftSummary;
  /** Sorted by address. */
  readonly resources: ReadonlyArray<DriftResource>;
}

/** Coverage of `managed` live resources among `live` ones. */
export function driftCoverage(managed: number, live: number): DriftCoverage {
  return { managed, live, percent: live === 0 ? 100 : Math.floor((managed / live) * 1000) / 10 };
}

export function summarizeDrift(resources: ReadonlyArray<DriftResource>, coverage: Pick<DriftCoverage, "managed" | "live">): DriftSummary {
  const counts = Object.fromEntries(DRIFT_OUTCOMES.map((outcome) => [outcome, 0])) as Record<DriftOutcome, number>;
  let ignored = 0;
  for (const resource of resources) {
    if (resource.ignoredBy) ignored += 1;
    else counts[resource.outcome] += 1;
  }
  return { ...counts, ignored, coverage: driftCoverage(coverage.managed, coverage.live) };
}

/** 3 when a resource (not ignored) could not be compared, else 2 when there is drift not ignored, else 0. */
export function driftExitCode(report: Pick<DriftReport, "summary">): number {
  if (report.summary.unknown > 0) return DRIFT_EXIT.unknown;
  return DRIFT_OUTCOMES.some((outcome) => DRIFT_FOUND.has(outcome) && report.summary[outcome] > 0) ? DRIFT_EXIT.driftFound : DRIFT_EXIT.inSync;
}

/** Order of resources in every report: by address (then kind and identity, which never tie in practice). */
export function compareResources(a: DriftResource, b: DriftResource): number {
  return compareText(a.address, b.address) || compareText(a.kind, b.kind) || compareText(a.identity, b.identity);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Builds a report: resources sorted, summary counted. */
export function driftReport(fields: {
  generatedAt: string;
  shard?: ShardSpec | undefined;
  desiredFingerprint: string;
  variables?: VariablesRecord | undefined;
  resources: ReadonlyArray<DriftResource>;
  coverage: Pick<DriftCoverage, "managed" | "live">;
}): DriftReport {
  // keys in the documented order, whatever order the resources were built or parsed in
  const resources = fields.resources
    .map(({ address, kind, identity, outcome, fields: differing, reason, source, claimedBy, ignoredBy }): DriftResource => ({
      address, kind, identity, outcome, fields: differing, reason, source,
      ...(claimedBy ? { claimedBy } : {}),
      ...(ignoredBy ? { ignoredBy } : {}),
    }))
    .sort(compareResources);
  return {
    formatVersion: DRIFT_FORMAT_VERSION,
    generatedAt: fields.generatedAt,
    ...(fields.shard ? { shard: fields.shard } : {}),
    desiredFingerprint: fields.desiredFingerprint,
    ...(fields.variables ? { variables: fields.variables } : {}),
    summary: summarizeDrift(resources, fields.coverage),
    resources,
  };
}

const BRAND = Symbol.for("converge.error");

/** A drift report that cannot be read or merged (wrong format, shards missing or of another desired state). */
export class DriftReportError extends Error {
  readonly code = "CONVERGE_DRIFT_REPORT" as const;
  readonly [BRAND] = true;
  constructor(message: string) {
    super(message);
    this.name = "DriftReportError";
  }
}

export function isDriftReportError(value: unknown): value is DriftReportError {
  return typeof value === "object" && value !== null
    && (value as Record<symbol, unknown>)[BRAND] === true
    && (value as { code?: unknown }).code === "CONVERGE_DRIFT_REPORT";
}

const Source = z.union([
  z.object({ file: z.string(), line: z.number().int(), column: z.number().int() }),
  z.object({ state: z.string(), address: z.string() }),
]);

const DriftReportShape = z.object({
  formatVersion: z.literal(DRIFT_FORMAT_VERSION),
  generatedAt: z.string(),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).optional(),
  desiredFingerprint: z.string(),
  variables: z.object({
    files: z.array(z.string()),
    names: z.array(z.object({ name: z.string(), from: z.string() })),
    digest: z.string(),
  }).optional(),
  summary: z.object({
    ...(Object.fromEntries(DRIFT_OUTCOMES.map((outcome) => [outcome, z.number().int().min(0)])) as Record<DriftOutcome, z.ZodNumber>),
    ignored: z.number().int().min(0),
    coverage: z.object({ managed: z.number().int().min(0), live: z.number().int().min(0), percent: z.number() }),
  }),
  resources: z.array(z.object({
    address: z.string(),
    kind: z.enum(KINDS),
    identity: z.string(),
    outcome: z.enum(DRIFT_OUTCOMES),
    fields: z.array(z.object({ path: z.string(), desired: z.unknown(), live: z.unknown() })),
    reason: z.string().nullable(),
    source: Source.nullable(),
    claimedBy: z.array(Source).optional(),
    ignoredBy: z.object({ file: z.string(), line: z.number().int(), reason: z.string() }).optional(),
  })),
});

/** Reads a JSON drift report back (`drift --output json` or `--report FILE.json`); `file` names it in errors. */
export function parseDriftReport(json: unknown, file: string): DriftReport {
  const parsed = DriftReportShape.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join(".") || "(top)"}: ${issue.message}`).join("; ");
    throw new DriftReportError(`${file} is not a converge drift report (formatVersion ${DRIFT_FORMAT_VERSION}): ${issues}`);
  }
  return parsed.data as DriftReport;
}

/**
 * Merges the reports of `drift --shard K/N` runs into the report one process would have written:
 * every shard 1..N exactly once, all of the same desired state, no resource twice. The merged report
 * has no `shard` and is dated by its earliest shard. A single whole report merges to itself.
 */
export function mergeDriftReports(inputs: ReadonlyArray<{ readonly report: DriftReport; readonly file: string }>): DriftReport {
  if (inputs.length === 0) throw new DriftReportError("no reports to merge: pass the JSON report of every shard");
  const first = inputs[0]!;
  for (const { report, file } of inputs) {
    if (report.desiredFingerprint !== first.report.desiredFingerprint) {
      throw new DriftReportError(`${file} was made from other desired state or ignore rules than ${first.file} `
        + `(desiredFingerprint ${report.desiredFingerprint.slice(0, 12)}… vs ${first.report.desiredFingerprint.slice(0, 12)}…`
        + `${variablesDiffer(report.variables, first.report.variables) ? `; variables: ${describeRecord(report.variables)} vs ${describeRecord(first.report.variables)}` : ""}): `
        + `run every shard on the same files, with the same variables and ignore files`);
    }
  }
  const whole = inputs.filter(({ report }) => !report.shard);
  if (whole.length > 0 && inputs.length > 1) {
    throw new DriftReportError(`${whole[0]!.file} is a whole report, not a shard's: merge only the reports of drift --shard K/N runs`);
  }
  if (whole.length === 0) {
    const count = first.report.shard!.count;
    const byIndex = new Map<number, string>();
    for (const { report, file } of inputs) {
      if (report.shard!.count !== count) {
        throw new DriftReportError(`${file} is shard ${report.shard!.index}/${report.shard!.count}, but ${first.file} is of ${count} shards: `
          + `merge the shards of one run`);
      }
      const twin = byIndex.get(report.shard!.index);
      if (twin) throw new DriftReportError(`${file} and ${twin} are both shard ${report.shard!.index}/${count}`);
      byIndex.set(report.shard!.index, file);
    }
    const absent = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !byIndex.has(index));
    if (absent.length > 0) {
      throw new DriftReportError(`shard${absent.length > 1 ? "s" : ""} ${absent.map((index) => `${index}/${count}`).join(", ")} missing: `
        + `the merged report would not cover every resource`);
    }
  }
  const resources = inputs.flatMap(({ report }) => report.resources);
  const seen = new Map<string, string>();
  for (const { report, file } of inputs) {
    for (const resource of report.resources) {
      const key = `${resource.kind}\u0000${resource.address}`;
      const other = seen.get(key);
      if (other !== undefined && other !== file) {
        throw new DriftReportError(`${resource.address} is reported by both ${other} and ${file}: shards must be disjoint`);
      }
      seen.set(key, file);
    }
  }
  const generatedAt = inputs.map(({ report }) => report.generatedAt).sort()[0]!;
  // shards are disjoint by read key, so a live resource is counted in one shard only
  const coverage = {
    managed: inputs.reduce((sum, { report }) => sum + report.summary.coverage.managed, 0),
    live: inputs.reduce((sum, { report }) => sum + report.summary.coverage.live, 0),
  };
  return driftReport({ generatedAt, desiredFingerprint: first.report.desiredFingerprint, variables: first.report.variables, resources, coverage });
}

function variablesDiffer(a: VariablesRecord | undefined, b: VariablesRecord | undefined): boolean {
  return JSON.stringify(a ?? null) !== JSON.stringify(b ?? null);
}

function describeRecord(record: VariablesRecord | undefined): string {
  return record ? describeVariables(record) : "none";
}
