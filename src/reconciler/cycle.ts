import { isConvergeError } from "../clients/index.js";
import { isDesiredStateError } from "../desired/desired-state-error.js";
import type { LoadedDocument } from "../desired/load.js";
import { readKeyText } from "../desired/read-key.js";
import { applyPlan, type ApplyReport } from "../reconcile/apply.js";
import type { DriftInput } from "../reconcile/drift.js";
import { classifyEstate, managedByStates } from "../reconcile/drift-estate.js";
import { driftReport, type DriftReport } from "../reconcile/drift-report.js";
import { documentsOfShard } from "../reconcile/drift-shards.js";
import { needsOfDocument } from "../reconcile/kinds/registry.js";
import { listApis, readLiveTolerant, withKnownProtocols, type ApiDirectory, type TolerantLive } from "../reconcile/live-reader.js";
import type { LiveState, PlannedAction } from "../reconcile/model.js";
import { needsOf, plan, type PlanResult } from "../reconcile/plan.js";
import { isWrite, type CycleContext, type DesiredSource } from "./cycle-context.js";
import { summarizeStates, type CycleRecord, type Finding, type ResourceStatus, type WriteRecord } from "./cycle-record.js";
import { decideWrites, type WriteDecisions } from "./decide-writes.js";
import { sizeOf, type CycleRefusal, type DesiredInForce, type LoadAttempt } from "./guards.js";
import type { ReconcilerOptions } from "./reconciler-options.js";
import { resourceStatuses } from "./resource-status.js";

/**
 * One cycle of the continuous reconciler (docs/manual/continuous-reconcile.md, "A cycle"): load the
 * desired state, read live state once (drift's tolerant reader: the reads plan makes), classify in
 * drift's terms, plan with plan's function, let the policy and the guards decide what may be
 * written, apply that through apply's function, and record it all. The cycle is plan, apply and
 * drift as they are; what it adds is what it remembers between cycles (guards.ts).
 */

/** Runs cycle `number` to its end; never throws for what the endpoint or the desired state do (they are the record's). */
export async function runCycle(context: CycleContext, number: number): Promise<CycleRecord> {
  const started = context.now();
  context.findings.begin();
  const attempt = await loadAttempt(context.source);
  const inForce = context.memory.settle(attempt, number, context.options.allowShrink);
  const finish = (fields: CycleFindings) => recordOf(context, number, started, inForce, fields);
  if (!inForce.desired) {
    return finish({ error: "no desired state has loaded yet: nothing can be compared", resources: [], writes: [], findings: guardFindings(context, inForce.refusal) });
  }
  const desired = await shardOf(inForce.desired, context);
  const read = await readTolerant(desired, context);
  const classified = classifyEstate({ ...desired, scope: "owned" }, read.live, read.failures);
  const report = driftReport({
    generatedAt: started.toISOString(), desiredFingerprint: desired.fingerprint, variables: desired.variables,
    resources: classified.resources, coverage: classified.coverage,
  });
  const planned = planComparable(desired, read, context.options);
  const refusal = inForce.refusal ?? problemsRefusal(planned);
  const decisions = decideWrites(planned, { context, number, settled: inForce.settled, refusal });
  const applied = decisions.allowed.length > 0 ? await applyAllowed(planned, decisions, context) : undefined;
  const writes = writesOf(decisions.allowed, applied);
  const resources = resourceStatuses(report.resources, planned, decisions, writes, context, number);
  const readError = read.failures.size > 0 ? `${read.failures.size} read${read.failures.size === 1 ? "" : "s"} failed: ${[...read.failures.values()][0]}` : undefined;
  const writeError = writes.some((write) => write.status === "failed") ? `${writes.filter((write) => write.status === "failed").length} write(s) failed` : undefined;
  return finish({
    refusal: decisions.refusal,
    report,
    resources,
    writes,
    findings: [...guardFindings(context, decisions.refusal), ...decisions.findings],
    ...(readError ?? writeError ? { error: [readError, writeError].filter(Boolean).join("; ") } : {}),
  });
}

/** The desired state, or why it did not load. */
async function loadAttempt(source: DesiredSource): Promise<LoadAttempt> {
  try {
    return { ok: true, desired: await source.load() };
  } catch (error) {
    if (isDesiredStateError(error)) return { ok: false, message: error.message, problems: error.problems };
    return { ok: false, message: error instanceof Error ? error.message : String(error), problems: [] };
  }
}

/**
 * A shard's share of the desired state (the loader kept the shard's documents and those whose shard
 * only the list of APIs tells: the list is read then, as drift does).
 */
async function shardOf(desired: DriftInput, context: CycleContext): Promise<DriftInput> {
  const shard = context.options.shard;
  if (!shard) return desired;
  const every = [...desired.documents, ...(desired.stateDocuments ?? []), ...(desired.claims ?? [])];
  let directory: ApiDirectory | undefined;
  if (needsOf(every).some((need) => need.type === "api" && typeof need.ref !== "string")) {
    try {
      directory = await listApis(context.clients, context.readSignal);
    } catch (error) {
      if (!isConvergeError(error)) throw error;
      // the documents that name their API by name cannot be placed: the reader reports them unknown
    }
  }
  const select = (documents: ReadonlyArray<LoadedDocument> | undefined) => documentsOfShard(documents ?? [], shard, directory);
  return { ...desired, documents: select(desired.documents), stateDocuments: select(desired.stateDocuments), claims: select(desired.claims) };
}

/** Live state as far as it could be read; when no read succeeded, every need fails with the first error. */
async function readTolerant(desired: DriftInput, context: CycleContext): Promise<TolerantLive> {
  const needs = withKnownProtocols(needsOf([...desired.documents, ...(desired.stateDocuments ?? []), ...(desired.claims ?? [])]), desired.apiProtocols);
  try {
    return await readLiveTolerant(needs, context.clients, { parallelism: context.options.parallelism, signal: context.readSignal });
  } catch (error) {
    if (!isConvergeError(error) && !context.readSignal.aborted) throw error;
    const reason = context.readSignal.aborted ? "the cycle was stopped before its reads were done" : (error as Error).message;
    const live: LiveState = { apis: {}, apiIdsByName: {}, contacts: {}, regions: {} };
    return { live, failures: new Map(needs.map((need) => [readKeyText(need), `could not read: ${reason}`])) };
  }
}

/**
 * The plan of the documents whose reads all succeeded (documents that share a read key are read,
 * and so left out, together: an API's children with its `Api` document), with apply's options.
 */
function planComparable(desired: DriftInput, read: TolerantLive, options: ReconcilerOptions): PlanResult {
  const readable = (loaded: LoadedDocument) => !needsOfDocument(loaded.document).some((need) => read.failures.has(readKeyText(need)));
  const stateDocuments = desired.stateDocuments ?? [];
  const claims = desired.claims ?? [];
  const managedElsewhere = stateDocuments.length + claims.length > 0 ? managedByStates(stateDocuments, claims, read.live) : undefined;
  return plan(desired.documents.filter(readable), read.live, { prune: options.prune, repairTwins: options.repairTwins, managedElsewhere });
}

/** Problems only live state shows (an API that does not exist, an ambiguous match) stop the cycle's writes, as they stop apply. */
function problemsRefusal(planned: PlanResult): CycleRefusal | undefined {
  if (planned.problems.length === 0) return undefined;
  const first = planned.problems[0]!;
  return {
    guard: "desired-state",
    message: `the desired state does not plan against live state (${planned.problems.length} problem${planned.problems.length === 1 ? "" : "s"}; `
      + `${first.file}:${first.line}: ${first.path ? `${first.path}: ` : ""}${first.message})`,
    problems: planned.problems,
  };
}

/** Applies the writes the policy and guards allowed (with the plan's no-ops, which name what later actions refer to). */
async function applyAllowed(planned: PlanResult, decisions: WriteDecisions, context: CycleContext): Promise<ApplyReport> {
  const allowed = new Set<PlannedAction>(decisions.allowed);
  const actions = planned.plan.actions.filter((action) => !isWrite(action) || allowed.has(action));
  return applyPlan({ ...planned.plan, actions }, context.clients, {
    parallelism: context.options.parallelism,
    signal: context.signal,
    stop: context.stop,
  });
}

function writesOf(allowed: ReadonlyArray<PlannedAction>, applied: ApplyReport | undefined): WriteRecord[] {
  if (!applied) return [];
  const outcomes = new Map(applied.outcomes.map((outcome) => [outcome.address, outcome]));
  return allowed.filter(isWrite).map((action) => {
    const outcome = outcomes.get(action.address);
    return {
      address: action.address,
      kind: action.kind,
      type: action.type,
      changes: action.changes,
      status: outcome?.status ?? "skipped",
      ...(outcome?.error !== undefined ? { error: outcome.error } : {}),
    };
  });
}

function guardFindings(context: CycleContext, refusal: CycleRefusal | undefined): Finding[] {
  if (!refusal) return [];
  return [{ guard: refusal.guard, message: refusal.message, new: context.findings.report(`guard:${refusal.guard}`, refusal.message) }];
}

interface CycleFindings {
  readonly refusal?: CycleRefusal | undefined;
  readonly report?: DriftReport | undefined;
  readonly resources: ReadonlyArray<ResourceStatus>;
  readonly writes: ReadonlyArray<WriteRecord>;
  readonly findings: ReadonlyArray<Finding>;
  readonly error?: string | undefined;
}

function recordOf(context: CycleContext, number: number, started: Date, inForce: DesiredInForce, fields: CycleFindings): CycleRecord {
  context.findings.end();
  const finished = context.now();
  const refusal = fields.refusal ?? inForce.refusal;
  const error = fields.error ?? (context.readSignal.aborted ? "the cycle was stopped" : undefined);
  const withheld = fields.resources.some((resource) => resource.withheld !== undefined && resource.withheld.guard !== "protection");
  return {
    cycle: number,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    result: error !== undefined ? "error" : refusal ? "refused" : withheld ? "drift" : "success",
    policy: context.options.policy,
    ...(refusal ? { guard: refusal } : {}),
    desiredState: {
      loaded: inForce.fresh,
      inForceSince: inForce.since ?? null,
      documents: inForce.desired ? sizeOf(inForce.desired) : 0,
      fingerprint: inForce.desired?.fingerprint ?? null,
      problems: refusal?.problems ?? [],
    },
    ...(error !== undefined ? { error } : {}),
    requests: context.meter.requests,
    throttled: context.meter.throttled,
    summary: summarizeStates(fields.resources),
    resources: fields.resources,
    writes: fields.writes,
    findings: fields.findings,
    report: fields.report,
  };
}
