import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Credentials, collect, createClients, type Clients } from "../../clients/index.js";
import { DesiredStateError } from "../../desired/desired-state-error.js";
import { loadDesiredState, type DesiredState, type LoadedDocument } from "../../desired/load.js";
import { applyPlan, type ApplyReport } from "../../reconcile/apply.js";
import { detectDrift } from "../../reconcile/drift.js";
import { DRIFT_EXIT, DRIFT_FOUND, driftExitCode, type DriftReport } from "../../reconcile/drift-report.js";
import { hasChanges, type Plan, type PlannedAction } from "../../reconcile/model.js";
import { readAndPlan } from "../../reconcile/reconcile.js";
import { driftSummaryLine } from "../../reconcile/render-drift.js";
import { summaryLine } from "../../reconcile/render-plan.js";
import { startService, type RunningService, type WorldInput } from "../../service/index.js";
import { renderValue } from "../../contract/field-issues.js";
import { CliError } from "../cli-error.js";

export interface DemoOptions {
  /** Where the narration goes. @default process.stdout */
  readonly out?: NodeJS.WritableStream;
  /** The desired state to converge. @default examples/desired-state of this installation */
  readonly desiredState?: string;
  /** The world the embedded services boot. @default the demo world */
  readonly world?: WorldInput;
}

/** The demo world's administrator (valid only on the local embedded service). */
const DEMO_TOKEN = "demo-admin-token";
/** What the demo changes behind converge's back: both are declared in examples/desired-state. */
const TAMPERED_CONTACT = { account: "222222222222", type: "SECURITY", phoneNumber: "+1 555 0199" } as const;
const TAMPERED_ROUTE = { apiId: "a1b2c3d4e5", routeKey: "GET /orders", extraScope: "orders.admin" } as const;

/**
 * `converge demo` (what `npm start` runs): the first run of a newcomer, in one process and with no
 * cloud account. It starts the embedded services with the demo world on a free port, plans and
 * applies examples/desired-state, changes a contact's phone number and a route's scopes directly
 * through the API clients, detects that drift, repairs it by applying again, and ends with a clean
 * drift check, narrating each step. Exit 0 when every step went as described, 1 otherwise.
 */
export async function demoCommand(options: DemoOptions = {}): Promise<number> {
  const out = options.out ?? process.stdout;
  const started = performance.now();
  const desiredState = options.desiredState ?? findExamples();
  const say = (step: string, headline: string, details: ReadonlyArray<string> = []) =>
    out.write(`${[`[${step}] ${headline}`, ...details.map((line) => `      ${line}`)].join("\n")}\n`);

  out.write("converge demo: a first run, all in this process (no cloud account; nothing is kept after it)\n\n");
  const service = await startService({ port: 0, ...(options.world !== undefined ? { world: options.world } : {}) });
  const clients = createClients({ endpoint: service.url, credentials: new Credentials(DEMO_TOKEN, "the demo world") });
  try {
    say("1/7", `Started the embedded account and API gateway services with the demo world on ${service.url}`, describeWorld(service));
    const run: DemoRun = { desired: await loadDesiredState([desiredState]), shown: relative(process.cwd(), desiredState) || ".", clients, say };
    await planAndApply(run);
    await driftBehindConvergesBack(run);
    await repairTheDrift(run);
    out.write([
      "",
      `Done in ${seconds(performance.now() - started)}. Next: run the services yourself (npx converge serve) and follow the`,
      "Quickstart in README.md; converge plan, apply and drift do the steps above from the command line.",
      "",
    ].join("\n"));
    return 0;
  } finally {
    await clients.close();
    await service.close();
  }
}

/** What every step of the demo works with: the desired state, its path as shown, the clients of the demo world, the narration. */
interface DemoRun {
  readonly desired: DesiredState;
  readonly shown: string;
  readonly clients: Clients;
  say(step: string, headline: string, details?: ReadonlyArray<string>): void;
}

/** Steps 2 and 3: plans the desired state against the new world, applies it, and plans again to show that nothing is left to do. */
async function planAndApply({ desired, shown, clients, say }: DemoRun): Promise<void> {
  const documents = desired.documents;
  const first = await planOrFail(documents, clients);
  say("2/7", `Planned ${shown} (${documents.length} documents) against it:`, [summaryLine(first), describePlan(first)]);

  const applyStarted = performance.now();
  expectApplied(await applyPlan(first, clients, { regionPollIntervalMs: 100 }));
  const afterApply = await planOrFail(documents, clients);
  if (hasChanges(afterApply)) throw new CliError(`live state still differs after applying: ${summaryLine(afterApply)}`);
  say("3/7", `Applied it in ${seconds(performance.now() - applyStarted)} (Region opt-ins wait until ENABLING turns ENABLED); `
    + `planning again shows no changes.`);
}

/** Steps 4 and 5: changes two things through the API clients, and shows that the drift check finds them. */
async function driftBehindConvergesBack({ desired, shown, clients, say }: DemoRun): Promise<void> {
  say("4/7", "Changed two things behind converge's back, directly through the API clients:", await tamper(clients));

  const drift = await detectDrift(desired, clients);
  const drifted = drift.resources.filter((resource) => DRIFT_FOUND.has(resource.outcome));
  if (driftExitCode(drift) !== DRIFT_EXIT.driftFound) {
    throw new CliError(`the drift check after two changes behind converge's back did not find drift (${driftSummaryLine(drift)})`);
  }
  say(
    "5/7",
    `Drift detected (converge drift would exit 2): ${drifted.length} resource${drifted.length === 1 ? "" : "s"} `
      + `no longer match${drifted.length === 1 ? "es" : ""} ${shown}:`,
    describeDrift(drift),
  );
}

/** Steps 6 and 7: applies again, which updates only what drifted, and shows that the drift check comes out clean. */
async function repairTheDrift({ desired, shown, clients, say }: DemoRun): Promise<void> {
  const repairPlan = await planOrFail(desired.documents, clients);
  const repair = await applyPlan(repairPlan, clients, { regionPollIntervalMs: 100 });
  expectApplied(repair);
  say("6/7", `Repaired the drift by applying again: ${repair.done} update${repair.done === 1 ? "" : "s"}, only to what drifted.`);

  const final = await detectDrift(desired, clients);
  if (driftExitCode(final) !== DRIFT_EXIT.inSync) {
    throw new CliError(`the drift check after the repair does not come out clean: ${driftSummaryLine(final)}\n`
      + `${describeDrift(final).join("\n")}`);
  }
  say("7/7", `Drift check: no drift, live state matches ${shown} (${final.summary["in-sync"]} resources in sync).`);
}

/**
 * examples/desired-state of this installation: beside the nearest package.json above this module
 * (the module runs from src/ under the test runner and from dist/src/ once built).
 */
function findExamples(): string {
  for (let directory = dirname(fileURLToPath(import.meta.url)); dirname(directory) !== directory; directory = dirname(directory)) {
    if (!existsSync(join(directory, "package.json"))) continue;
    const examples = join(directory, "examples", "desired-state");
    if (existsSync(examples)) return examples;
    break;
  }
  throw new CliError("examples/desired-state was not found beside this converge installation (the published package leaves examples out): "
    + "run converge demo from a clone of the repository");
}

/** A plan of the documents against live state; problems found with live state fail the demo. */
async function planOrFail(documents: ReadonlyArray<LoadedDocument>, clients: Clients): Promise<Plan> {
  const { plan, problems } = await readAndPlan(documents, clients);
  if (problems.length > 0) throw new DesiredStateError(problems);
  return plan;
}

function expectApplied(report: ApplyReport): void {
  if (report.failed === 0) return;
  const failures = report.outcomes.filter((outcome) => outcome.status === "failed").map((outcome) => `${outcome.address}: ${outcome.error}`);
  throw new CliError(`${report.failed} action${report.failed === 1 ? "" : "s"} failed:\n  ${failures.join("\n  ")}`);
}

/** The two changes made behind converge's back, as lines to narrate. */
async function tamper(clients: Clients): Promise<string[]> {
  const target = { AccountId: TAMPERED_CONTACT.account, AlternateContactType: TAMPERED_CONTACT.type };
  const contact = await clients.account.getAlternateContact(target);
  if (!contact) throw new CliError(`the ${TAMPERED_CONTACT.type} contact of ${TAMPERED_CONTACT.account} is missing after apply`);
  await clients.account.putAlternateContact({ ...contact, AccountId: TAMPERED_CONTACT.account, PhoneNumber: TAMPERED_CONTACT.phoneNumber });

  const route = (await collect(clients.gateway.routes(TAMPERED_ROUTE.apiId))).find((live) => live.routeKey === TAMPERED_ROUTE.routeKey);
  if (!route) throw new CliError(`route ${TAMPERED_ROUTE.routeKey} of API ${TAMPERED_ROUTE.apiId} is missing after apply`);
  const scopes = [...(route.authorizationScopes ?? []), TAMPERED_ROUTE.extraScope];
  await clients.gateway.updateRoute(TAMPERED_ROUTE.apiId, route.routeId, { authorizationScopes: scopes });
  return [
    `the ${TAMPERED_CONTACT.type} contact of account ${TAMPERED_CONTACT.account}: `
      + `phoneNumber ${renderValue(contact.PhoneNumber)} -> ${renderValue(TAMPERED_CONTACT.phoneNumber)}`,
    `route ${TAMPERED_ROUTE.routeKey} of API ${TAMPERED_ROUTE.apiId}: `
      + `authorizationScopes ${renderValue(route.authorizationScopes ?? [])} -> ${renderValue(scopes)}`,
  ];
}

function isChange(action: PlannedAction): boolean {
  return action.type === "create" || action.type === "update" || action.type === "delete";
}

/** One line per drifted field (what the desired state says, what is live), or per resource that is not in sync otherwise. */
function describeDrift(report: DriftReport): string[] {
  return report.resources.filter((resource) => resource.outcome !== "in-sync").flatMap((resource) => resource.fields.length === 0
    ? [`${resource.outcome} ${resource.address}${resource.reason ? `: ${resource.reason}` : ""}`]
    : resource.fields.map((field) => `~ ${resource.address}: ${field.path} is ${renderValue(field.live)}, desired ${renderValue(field.desired)}`));
}

/** What a plan would do, by action type and kind: `create: 4 Integration, 6 Route · update: 3 RegionOptIn`. */
function describePlan(plan: Plan): string {
  const byType = new Map<string, Map<string, number>>();
  for (const action of plan.actions.filter(isChange)) {
    const kinds = byType.get(action.type) ?? new Map<string, number>();
    kinds.set(action.kind, (kinds.get(action.kind) ?? 0) + 1);
    byType.set(action.type, kinds);
  }
  return [...byType].map(([type, kinds]) => `${type}: ${[...kinds].map(([kind, count]) => `${count} ${kind}`).join(", ")}`).join(" · ");
}

function describeWorld(service: RunningService): string[] {
  const world = service.world;
  const organization = world.organization
    ? `organization ${world.organization.managementAccountId} with members ${world.organization.memberAccountIds.join(", ")}`
    : `accounts ${world.accounts.join(", ")}`;
  const apis = world.apis.map((api) => `${api.name} (${api.apiId ?? "generated ID"}, ${api.protocolType})`).join(" and ");
  const optIn = world.regions.filter((region) => region.optStatus !== "ENABLED_BY_DEFAULT").length;
  return [`${organization}; APIs ${apis}; ${optIn} opt-in Regions; token ${DEMO_TOKEN} (valid only here)`];
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
