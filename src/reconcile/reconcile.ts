import { z } from "zod";
import type { Clients } from "../clients/index.js";
import type { LoadedDocument } from "../desired/load.js";
import { AnyDocument } from "../desired/schema.js";
import type { SourceLocation } from "../desired/desired-state-error.js";
import type { VariablesRecord } from "../desired/variable-record.js";
import { PLAN_FORMAT_VERSION, type LiveState, type Plan } from "./model.js";
import { needsOf, plan, type PlanResult } from "./plan.js";
import type { Progress } from "./progress.js";
import { readLive, withKnownProtocols } from "./live-reader.js";
import { managedByStates } from "./drift-estate.js";
import type { ProtocolType } from "../contract/gateway.js";

export interface ReconcileOptions {
  readonly prune?: boolean;
  readonly repairTwins?: boolean;
  readonly parallelism?: number;
  readonly signal?: AbortSignal | undefined;
  /** Documents no longer declared, to delete (PlanOptions.removed). */
  readonly removed?: ReadonlyArray<LoadedDocument>;
  /** Counts the reads (see read-live). */
  readonly progress?: Progress | undefined;
  /**
   * What terraform states manage (`--state`: their converge resources' documents and their stacks'
   * inventories): read with the documents, and never pruned.
   */
  readonly states?: {
    readonly documents: ReadonlyArray<LoadedDocument>;
    readonly claims: ReadonlyArray<LoadedDocument>;
    /** The protocols the states' `converge_api` data sources recorded (no GetApi for those APIs). */
    readonly apiProtocols?: ReadonlyMap<string, ProtocolType> | undefined;
  } | undefined;
}

/** Reads the live state the documents need, then plans against it. */
export async function readAndPlan(
  documents: ReadonlyArray<LoadedDocument>,
  clients: Clients,
  options: ReconcileOptions = {},
): Promise<PlanResult & { live: LiveState }> {
  const removed = options.removed ?? [];
  const states = options.states ?? { documents: [], claims: [] };
  const managed = [...states.documents, ...states.claims];
  const live = await readLive(withKnownProtocols(needsOf([...documents, ...removed, ...managed]), states.apiProtocols), clients, {
    parallelism: options.parallelism,
    signal: options.signal,
    progress: options.progress,
  });
  const managedElsewhere = managed.length > 0 ? managedByStates(states.documents, states.claims, live) : undefined;
  return { ...plan(documents, live, { prune: options.prune ?? false, repairTwins: options.repairTwins ?? false, removed, managedElsewhere }), live };
}

/**
 * A plan as written by `plan --out`: the plan plus the documents it was made from (to re-read and
 * verify), their variables substituted; and, when variables were given, which ones (for people:
 * `apply PLAN` shows it, and applies the file's documents whatever it says).
 */
export interface PlanFile extends Plan {
  readonly documents: ReadonlyArray<{ readonly document: unknown; readonly source: SourceLocation }>;
  readonly variables?: VariablesRecord | undefined;
}

export function toPlanFile(planned: Plan, documents: ReadonlyArray<LoadedDocument>, variables?: VariablesRecord): PlanFile {
  return { ...planned, documents: documents.map((loaded) => ({ document: loaded.document, source: loaded.source })), ...(variables ? { variables } : {}) };
}

const PlanFileShape = z.object({
  formatVersion: z.literal(PLAN_FORMAT_VERSION),
  liveFingerprint: z.string(),
  prune: z.boolean(),
  repairTwins: z.boolean().optional(),
  actions: z.array(z.object({
    address: z.string(),
    kind: z.string(),
    type: z.enum(["create", "update", "delete", "no-op", "refused"]),
    phase: z.number(),
  }).passthrough()),
  summary: z.object({ create: z.number(), update: z.number(), delete: z.number(), noop: z.number(), refused: z.number() }),
  documents: z.array(z.object({ document: AnyDocument, source: z.object({ file: z.string(), line: z.number(), column: z.number() }) })),
  variables: z.object({
    files: z.array(z.string()),
    names: z.array(z.object({ name: z.string(), from: z.string() })),
    digest: z.string(),
  }).optional(),
});

/** Reads a plan file back: its plan, its documents (located at their original sources) and the variables it records. */
export function fromPlanFile(json: unknown, file: string): { plan: Plan; documents: LoadedDocument[]; variables?: VariablesRecord | undefined } {
  const parsed = PlanFileShape.safeParse(json);
  if (!parsed.success) {
    throw new Error(`${file} is not a converge plan (formatVersion ${PLAN_FORMAT_VERSION}): `
      + `${parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  }
  const { documents: rawDocuments, variables: _variables, ...planned } = json as PlanFile;
  const documents = parsed.data.documents.map((entry): LoadedDocument => ({ document: entry.document, source: entry.source, locate: () => entry.source }));
  void rawDocuments;
  // a plan written before --repair-twins existed was made without it
  return { plan: { ...planned, repairTwins: planned.repairTwins ?? false } as Plan, documents, ...(parsed.data.variables ? { variables: parsed.data.variables } : {}) };
}
