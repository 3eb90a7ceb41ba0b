import { accountOf } from "../../desired/kinds/account-common.js";
import { SELF, type AccountKey } from "../../desired/read-key.js";
import { REGION_OPT_IN_SERVICE_NAMES, regionOptInModel } from "../../desired/kinds/region-opt-in.js";
import { RegionOptInDocument } from "../../desired/schema.js";
import { accountOfResource, terraformSlug } from "../export-fields.js";
import type { Region } from "../../contract/account.js";
import { sleep } from "../../clients/wire.js";
import { PHASE } from "../model.js";
import type { LiveNeed } from "../model.js";
import { liveKeyOf } from "../live-keys.js";
import { decide, type ApplyContext, type KindEngine, type ReadKeySource, type ExportedDocument } from "./kind-engine.js";
import { accountIdField, describeAccount } from "./account-common.js";

type Status = Region["RegionOptStatus"];

const ENABLED_LIKE: ReadonlySet<Status> = new Set(["ENABLED", "ENABLING", "ENABLED_BY_DEFAULT"]);
/** The statuses of a Region an account opted into (by converge or by hand): a live opt-in. */
export const OPTED_IN: ReadonlySet<Status> = new Set(["ENABLED", "ENABLING"]);
const DISABLED_LIKE: ReadonlySet<Status> = new Set(["DISABLED", "DISABLING"]);

/** The request of the RegionOptIn engine. */
export type RegionOptInRequest = { readonly op: "setRegion"; readonly account: AccountKey; readonly region: string; readonly enabled: boolean };

const OPT_IN_ENABLED: ReadonlySet<Status> = new Set(["ENABLED", "ENABLING"]);

/**
 * RegionOptIn: one ListRegions per account. Enabling a Region that is
 * ENABLED, ENABLING or ENABLED_BY_DEFAULT (or disabling a DISABLED or DISABLING one) is a no-op,
 * never a call; a Region mid-transition the other way is waited for, then changed.
 */
export const regionOptInEngine = {
  model: regionOptInModel,
  planOrder: 3,
  ops: ["setRegion"],

  plan(loaded, context) {
    const { document } = loaded;
    const account = accountOf(document);
    const key = `${account}/${document.spec.region}`;
    const wanted = document.spec.enabled;
    const status = context.live.regions[account]?.[document.spec.region];
    // an opt-in is live while the Region is enabled by choice (not by default)
    if (status !== undefined && OPTED_IN.has(status)) context.declare(liveKeyOf("regions", account, document.spec.region));
    return decide<Status>({
      base: { kind: "RegionOptIn", address: `RegionOptIn/${key}`, name: key, identity: key, source: loaded.source, phase: PHASE.independent },
      ensure: document.ensure,
      live: status,
      phases: { present: PHASE.independent, delete: PHASE.independent },
      create: () => ({ refused: `Region ${document.spec.region} is not offered to account ${account}: check the name against ListRegions` }),
      compare(status) {
        if (wanted ? ENABLED_LIKE.has(status) : DISABLED_LIKE.has(status)) return { changes: [] };
        if (!wanted && status === "ENABLED_BY_DEFAULT") return { refused: `Region ${document.spec.region} is enabled by default and cannot be disabled` };
        return {
          changes: [{ path: "status", before: status, after: wanted ? "ENABLED" : "DISABLED" }],
          request: { op: "setRegion", account, region: document.spec.region, enabled: wanted },
        };
      },
    });
  },

  liveResources: (live) => Object.entries(live.regions).flatMap(([account, regions]) => Object.entries(regions)
    .filter(([, status]) => OPTED_IN.has(status))
    .map(([region]) => ({ key: liveKeyOf("regions", account, region), address: `RegionOptIn/${account}/${region}`, identity: `${account}/${region}`, serviceManaged: false }))),

  async execute(request, context) {
    const target = { ...accountIdField(request.account), RegionName: request.region };
    const settled = await waitForSettled(request.account, request.region, context);
    const wanted = request.enabled;
    if (wanted ? ENABLED_LIKE.has(settled) : DISABLED_LIKE.has(settled)) return;
    if (wanted) await context.clients.account.enableRegion(target, { signal: context.signal });
    else await context.clients.account.disableRegion(target, { signal: context.signal });
    await waitForSettled(request.account, request.region, context);
  },

  /** `converge_region_opt_in` (src/provider/resources/region-opt-in.ts), imported by `ACCOUNT_ID/REGION_NAME` (`REGION_NAME` for the caller's own). */
  terraformExport: {
    fields: RegionOptInDocument.shape.spec.shape,
    serviceNames: REGION_OPT_IN_SERVICE_NAMES,
    label: (document) => `${terraformSlug(String((document as RegionInput).spec.region))}${accountOfResource(document as RegionInput).labelSuffix}`,
    importId: (document) => `${accountOfResource(document as RegionInput).importPrefix}${String((document as RegionInput).spec.region)}`,
  },
  exportOrder: 1,
  exportNeeds: (account) => [{ type: "regions", account }],
  /**
   * A document for every opt-in Region (Regions enabled by default cannot be opted out of and are
   * left out): enabled for ENABLED and ENABLING, disabled for DISABLED and DISABLING.
   */
  exportAccount(account, live) {
    const documents = Object.entries(live.regions[account] ?? {})
      .filter(([, status]) => status !== "ENABLED_BY_DEFAULT")
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([region, status]): ExportedDocument => ({
        kind: "RegionOptIn",
        ...(account === SELF ? {} : { account }),
        spec: { region, enabled: OPT_IN_ENABLED.has(status) },
      }));
    return { documents, header: ["Regions enabled by default are left out: they cannot be opted out of."] };
  },
  flowPaths: [["spec"]],
} satisfies KindEngine<RegionOptInDocument, RegionOptInRequest>;

type RegionInput = { readonly account?: string | undefined; readonly spec: { readonly region?: unknown } };

/** Polls GetRegionOptStatus until the Region is neither ENABLING nor DISABLING (saying so once). */
async function waitForSettled(account: string, region: string, context: ApplyContext): Promise<Status> {
  const timeoutMs = context.options.regionSettleTimeoutMs ?? 300_000;
  const pollIntervalMs = context.options.regionPollIntervalMs ?? 250;
  const deadline = performance.now() + timeoutMs;
  for (let polls = 0; ; polls += 1) {
    const { RegionOptStatus: status } = await context.clients.account.getRegionOptStatus(
      { ...accountIdField(account), RegionName: region },
      { signal: context.signal },
    );
    if (status !== "ENABLING" && status !== "DISABLING") return status;
    if (performance.now() > deadline) throw new Error(`Region ${region} of ${account} is still ${status} after ${timeoutMs} ms`);
    if (polls === 0) context.notice(`waiting for Region ${region} of ${account} (${status})`);
    await sleep(pollIntervalMs, context.signal);
  }
}

/** The `regions` read key: one ListRegions listing of an account (every page), status by Region name. */
export const regionsSource: ReadKeySource<Extract<LiveNeed, { type: "regions" }>> = {
  count: () => 1,
  describe: (need) => `the Regions of ${describeAccount(need.account)}`,
  async read(need, { clients, signal }) {
    const statuses: Record<string, Region["RegionOptStatus"]> = {};
    for await (const region of clients.account.listRegions(accountIdField(need.account), { signal })) statuses[region.RegionName] = region.RegionOptStatus;
    return { regions: { [need.account]: statuses } };
  },
  /** A Region of the account enabled or disabled is read again (its status moves on by itself). */
  afterWrite(need, _read, write) {
    const body = write.body as { readonly AccountId?: string; readonly RegionName?: string };
    if (write.service !== "account" || body.RegionName === undefined) return undefined;
    const account = body.AccountId ?? SELF;
    return account === need.account || account === SELF || need.account === SELF ? "reread" : undefined;
  },
};
