import { z } from "zod";
import type { SourceLocation } from "../desired/desired-state-error.js";
import { KINDS, type Kind } from "../desired/schema.js";

/**
 * The drift report (docs/manual/drift.md): every resource in exactly one outcome.
 * Plain JSON, versioned, so that shard reports written by separate processes merge into the report
 * one process would have written.
 */

export const DRIFT_OUTCOMES = ["in-sync", "drifted", "missing", "unmanaged", "refused", "unknown"] as const;
export type DriftOutcome = (typeof DRIFT_OUTCOMES)[number];

/** Outcomes that are drift: `converge drift` exits 2 when any resource has one (and none is unknown). */
export const DRIFT_FOUND: ReadonlySet<DriftOutcome> = new Set(["drifted", "missing", "unmanaged"]);

/** Exit codes of `drift` and `drift merge` (docs/manual/commands.md, "Exit codes"); errors exit 1. */
export const DRIFT_EXIT = { inSync: 0, driftFound: 2, unknown: 3 } as const;

/** One field that differs: its path in the document's spec, the value the document wants and the live one (`null`: absent). */
export interface DriftField {
  readonly path: string;
  readonly desired: unknown;
  readonly live: unknown;
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
  /** The document that declares the resource; for an unmanaged one, the `Api` document that owns its API. */
  readonly source: SourceLocation | null;
}

/** Shard `index` of `count`, 1-based as on the command line (`--shard 1/4` … `--shard 4/4`). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

export const DRIFT_FORMAT_VERSION = 1;

export type DriftSummary = Readonly<Record<DriftOutcome, number>>;

export interface DriftReport {
  readonly formatVersion: typeof DRIFT_FORMAT_VERSION;
  /** When the live reads started (ISO 8601); for a merged report, the earliest of its shards'. */
  readonly generatedAt: string;
  /** Present on the report of one shard; absent on a whole (or merged) report. */
  readonly shard?: ShardSpec | undefined;
  /** sha256 of every desired document (not only the shard's): shards of different desired states never merge. */
  readonly desiredFingerprint: string;
  readonly summary: DriftSummary;
  /** Sorted by address. */
  readonly resources: ReadonlyArray<DriftResource>;
}

export function summarizeDrift(resources: ReadonlyArray<DriftResource>): DriftSummary {
  const summary = Object.fromEntries(DRIFT_OUTCOMES.map((outcome) => [outcome, 0])) as Record<DriftOutcome, number>;
  for (const resource of resources) summary[resource.outcome] += 1;
  return summary;
}

/** 3 when a resource could not be compared, else 2 when there is drift, else 0. */
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
  resources: ReadonlyArray<DriftResource>;
}): DriftReport {
  // keys in the documented order, whatever order the resources were built or parsed in
  const resources = fields.resources
    .map(({ address, kind, identity, outcome, fields: differing, reason, source }): DriftResource => ({
      address, kind, identity, outcome, fields: differing, reason, source,
    }))
    .sort(compareResources);
  return {
    formatVersion: DRIFT_FORMAT_VERSION,
    generatedAt: fields.generatedAt,
    ...(fields.shard ? { shard: fields.shard } : {}),
    desiredFingerprint: fields.desiredFingerprint,
    summary: summarizeDrift(resources),
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

const Source = z.object({ file: z.string(), line: z.number().int(), column: z.number().int() });

const DriftReportShape = z.object({
  formatVersion: z.literal(DRIFT_FORMAT_VERSION),
  generatedAt: z.string(),
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).optional(),
  desiredFingerprint: z.string(),
  summary: z.object(Object.fromEntries(DRIFT_OUTCOMES.map((outcome) => [outcome, z.number().int().min(0)])) as Record<DriftOutcome, z.ZodNumber>),
  resources: z.array(z.object({
    address: z.string(),
    kind: z.enum(KINDS),
    identity: z.string(),
    outcome: z.enum(DRIFT_OUTCOMES),
    fields: z.array(z.object({ path: z.string(), desired: z.unknown(), live: z.unknown() })),
    reason: z.string().nullable(),
    source: Source.nullable(),
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
      throw new DriftReportError(`${file} was made from other desired state than ${first.file} `
        + `(desiredFingerprint ${report.desiredFingerprint.slice(0, 12)}… vs ${first.report.desiredFingerprint.slice(0, 12)}…): `
        + `run every shard on the same files`);
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
  return driftReport({ generatedAt, desiredFingerprint: first.report.desiredFingerprint, resources });
}
