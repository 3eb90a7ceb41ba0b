import { accountOf } from "../../desired/kinds/alternate-contact.js";
import { regionOptInModel } from "../../desired/kinds/region-opt-in.js";
import type { RegionOptInDocument } from "../../desired/schema.js";
import type { Region } from "../../spec/account.js";
import { sleep } from "../../clients/wire.js";
import { PHASE, type PlannedAction } from "../model.js";
import type { ApplyContext, KindEngine } from "./kind-engine.js";
import { accountIdField } from "./alternate-contact.js";

type Status = Region["RegionOptStatus"];

const ENABLED_LIKE: ReadonlySet<Status> = new Set(["ENABLED", "ENABLING", "ENABLED_BY_DEFAULT"]);
const DISABLED_LIKE: ReadonlySet<Status> = new Set(["DISABLED", "DISABLING"]);

/**
 * RegionOptIn: one ListRegions per account. Enabling a Region that is
 * ENABLED, ENABLING or ENABLED_BY_DEFAULT (or disabling a DISABLED or DISABLING one) is a no-op,
 * never a call; a Region mid-transition the other way is waited for, then changed.
 */
export const regionOptInEngine: KindEngine<RegionOptInDocument> = {
  model: regionOptInModel,
  planOrder: 3,
  ops: ["setRegion"],

  plan(loaded, context) {
    const { document } = loaded;
    const account = accountOf(document);
    const key = `${account}/${document.spec.region}`;
    const base = { kind: "RegionOptIn" as const, address: `RegionOptIn/${key}`, name: key, identity: key, source: loaded.source, phase: PHASE.independent };
    const action = (fields: Omit<PlannedAction, keyof typeof base>): PlannedAction => ({ ...base, ...fields });
    const status = context.live.regions[account]?.[document.spec.region];
    if (status === undefined) {
      return { problems: [], actions: [action({ type: "refused", changes: [], reason: `Region ${document.spec.region} is not offered to account ${account}: check the name against ListRegions` })] };
    }
    const wanted = document.spec.enabled;
    if (wanted ? ENABLED_LIKE.has(status) : DISABLED_LIKE.has(status)) return { problems: [], actions: [action({ type: "no-op", changes: [] })] };
    if (!wanted && status === "ENABLED_BY_DEFAULT") {
      return { problems: [], actions: [action({ type: "refused", changes: [], reason: `Region ${document.spec.region} is enabled by default and cannot be disabled` })] };
    }
    return {
      problems: [],
      actions: [action({
        type: "update",
        changes: [{ path: "status", before: status, after: wanted ? "ENABLED" : "DISABLED" }],
        request: { op: "setRegion", account, region: document.spec.region, enabled: wanted },
      })],
    };
  },

  async execute(request, context) {
    if (request.op !== "setRegion") return;
    const target = { ...accountIdField(request.account), RegionName: request.region };
    const settled = await waitForSettled(request.account, request.region, context);
    const wanted = request.enabled;
    if (wanted ? ENABLED_LIKE.has(settled) : DISABLED_LIKE.has(settled)) return;
    if (wanted) await context.clients.account.enableRegion(target, { signal: context.signal });
    else await context.clients.account.disableRegion(target, { signal: context.signal });
    await waitForSettled(request.account, request.region, context);
  },
};

/** Polls GetRegionOptStatus until the Region is neither ENABLING nor DISABLING (saying so once). */
async function waitForSettled(account: string, region: string, context: ApplyContext): Promise<Status> {
  const deadline = performance.now() + context.regionSettleTimeoutMs;
  for (let polls = 0; ; polls += 1) {
    const { RegionOptStatus: status } = await context.clients.account.getRegionOptStatus({ ...accountIdField(account), RegionName: region }, { signal: context.signal });
    if (status !== "ENABLING" && status !== "DISABLING") return status;
    if (performance.now() > deadline) throw new Error(`Region ${region} of ${account} is still ${status} after ${context.regionSettleTimeoutMs} ms`);
    if (polls === 0) context.notice(`waiting for Region ${region} of ${account} (${status})`);
    await sleep(context.regionPollIntervalMs, context.signal);
  }
}
