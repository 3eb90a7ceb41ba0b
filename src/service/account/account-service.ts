import { z } from "zod";
import {
  ACCOUNT_OPERATIONS,
  AlternateContact,
  RegionOptStatus,
  MAX_LIST_REGIONS_RESULTS,
  type Region,
} from "../../contract/account.js";
import { accountDialect, accountErrors } from "../service-error.js";
import { operationsOf, parseInput, type Operation, type OperationCall, type OperationReply } from "../operation.js";
import { MapCollection } from "../map-collection.js";
import type { PageTokens } from "../page-token.js";
import type { Store } from "../store.js";
import type { World } from "../world.js";
import { resolveTargetAccount } from "./organization.js";

type OptStatus = Region["RegionOptStatus"];

/** A Region's state on one account, when it differs from the catalog. `settleAt` is epoch ms. */
interface RegionOverride {
  readonly status: OptStatus;
  readonly settleAt?: number;
}

/** A RegionOverride as the state file holds it. */
const StoredRegionOverride = z.object({ status: RegionOptStatus, settleAt: z.number().optional() });

const SETTLED: Partial<Record<OptStatus, OptStatus>> = { ENABLING: "ENABLED", DISABLING: "DISABLED" };

/** The embedded account management service: alternate contacts and Region opt-in. */
export class AccountService {
  readonly #world: World;
  readonly #store: Store;
  readonly #tokens: PageTokens;
  readonly #contacts = new MapCollection<AlternateContact>(AlternateContact);
  readonly #regions = new MapCollection<RegionOverride>(StoredRegionOverride);
  readonly #catalog: ReadonlyMap<string, OptStatus>;
  readonly #sortedRegionNames: ReadonlyArray<string>;
  readonly #now: () => number;

  constructor(world: World, store: Store, tokens: PageTokens, now: () => number = Date.now) {
    this.#world = world;
    this.#store = store;
    this.#tokens = tokens;
    this.#now = now;
    this.#catalog = new Map(world.regions.map((r) => [r.regionName, r.optStatus]));
    this.#sortedRegionNames = [...this.#catalog.keys()].sort();
    store.register("contacts", this.#contacts);
    store.register("regions", this.#regions);
  }

  operations(): Operation[] {
    return operationsOf("account", ACCOUNT_OPERATIONS, {
      PutAlternateContact: (call) => this.#putAlternateContact(call),
      GetAlternateContact: (call) => this.#getAlternateContact(call),
      DeleteAlternateContact: (call) => this.#deleteAlternateContact(call),
      ListRegions: (call) => this.#listRegions(call),
      GetRegionOptStatus: (call) => this.#getRegionOptStatus(call),
      EnableRegion: (call) => this.#changeRegion(call, "enable"),
      DisableRegion: (call) => this.#changeRegion(call, "disable"),
    });
  }

  async #putAlternateContact(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(ACCOUNT_OPERATIONS.PutAlternateContact.request, bodyOf(call), accountDialect);
    const account = resolveTargetAccount(this.#world, call.identity, input.AccountId);
    const contact: AlternateContact = {
      AlternateContactType: input.AlternateContactType,
      EmailAddress: input.EmailAddress,
      Name: input.Name,
      PhoneNumber: input.PhoneNumber,
      Title: input.Title,
    };
    await this.#store.commit([{ collection: "contacts", key: `${account}/${input.AlternateContactType}`, value: contact }]);
    return { status: 200 };
  }

  #getAlternateContact(call: OperationCall): OperationReply {
    const input = parseInput(ACCOUNT_OPERATIONS.GetAlternateContact.request, bodyOf(call), accountDialect);
    const account = resolveTargetAccount(this.#world, call.identity, input.AccountId);
    const contact = this.#contacts.map.get(`${account}/${input.AlternateContactType}`);
    if (!contact) throw accountErrors.notFound(`account ${account} has no ${input.AlternateContactType} alternate contact`);
    return { status: 200, body: { AlternateContact: contact } };
  }

  async #deleteAlternateContact(call: OperationCall): Promise<OperationReply> {
    const input = parseInput(ACCOUNT_OPERATIONS.DeleteAlternateContact.request, bodyOf(call), accountDialect);
    const account = resolveTargetAccount(this.#world, call.identity, input.AccountId);
    const key = `${account}/${input.AlternateContactType}`;
    if (!this.#contacts.map.has(key)) throw accountErrors.notFound(`account ${account} has no ${input.AlternateContactType} alternate contact`);
    await this.#store.commit([{ collection: "contacts", key, value: null }]);
    return { status: 200 };
  }

  #listRegions(call: OperationCall): OperationReply {
    const input = parseInput(ACCOUNT_OPERATIONS.ListRegions.request, bodyOf(call), accountDialect);
    const account = resolveTargetAccount(this.#world, call.identity, input.AccountId);
    const filter = input.RegionOptStatusContains ? new Set<OptStatus>(input.RegionOptStatusContains) : undefined;
    const scope = `ListRegions\u0000${account}\u0000${filter ? [...filter].sort().join(",") : "*"}`;
    const limit = input.MaxResults ?? MAX_LIST_REGIONS_RESULTS;
    let after: string | undefined;
    if (input.NextToken) {
      after = this.#tokens.read(scope, input.NextToken);
      if (after === undefined) {
        throw accountErrors.validation("NextToken is not valid: it was altered, or it belongs to another listing (account or filter)", [
          {
            name: "NextToken",
            message: "NextToken is not a token this listing issued: pass the NextToken of the previous response unchanged, "
              + "with the same AccountId and RegionOptStatusContains",
          },
        ]);
      }
    }
    const names = this.#sortedRegionNames;
    const regions: Region[] = [];
    let last: string | undefined;
    let more = false;
    for (let i = after === undefined ? 0 : upperBound(names, after); i < names.length; i += 1) {
      const name = names[i]!;
      const status = this.#statusOf(account, name);
      if (filter && !filter.has(status)) continue;
      if (regions.length === limit) {
        more = true;
        break;
      }
      regions.push({ RegionName: name, RegionOptStatus: status });
      last = name;
    }
    const body = more && last !== undefined ? { Regions: regions, NextToken: this.#tokens.issue(scope, last) } : { Regions: regions };
    return { status: 200, body };
  }

  #getRegionOptStatus(call: OperationCall): OperationReply {
    const input = parseInput(ACCOUNT_OPERATIONS.GetRegionOptStatus.request, bodyOf(call), accountDialect);
    const account = resolveTargetAccount(this.#world, call.identity, input.AccountId);
    this.#requireRegion(input.RegionName);
    return { status: 200, body: { RegionName: input.RegionName, RegionOptStatus: this.#statusOf(account, input.RegionName) } };
  }

  async #changeRegion(call: OperationCall, change: "enable" | "disable"): Promise<OperationReply> {
    const schema = change === "enable" ? ACCOUNT_OPERATIONS.EnableRegion.request : ACCOUNT_OPERATIONS.DisableRegion.request;
    const input = parseInput(schema, bodyOf(call), accountDialect);
    const account = resolveTargetAccount(this.#world, call.identity, input.AccountId);
    const region = input.RegionName;
    this.#requireRegion(region);
    const status = this.#statusOf(account, region);
    if (status === "ENABLED_BY_DEFAULT") {
      throw accountErrors.validation(`Region ${region} is enabled by default and cannot be ${change}d`, [
        { name: "RegionName", message: `RegionName ${JSON.stringify(region)} is ENABLED_BY_DEFAULT: only opt-in Regions can be enabled or disabled` },
      ], "invalidRegionOptTarget");
    }
    const [transitional, settled, opposite] = change === "enable"
      ? (["ENABLING", "ENABLED", "DISABLING"] as const)
      : (["DISABLING", "DISABLED", "ENABLING"] as const);
    if (status === transitional || status === settled) return { status: 200 };
    if (status === opposite) {
      throw accountErrors.conflict(`Region ${region} of account ${account} is ${status}: wait until it settles before you ${change} it`);
    }
    const delay = this.#world.regionTransitionMs;
    const next: RegionOverride = delay > 0 ? { status: transitional, settleAt: this.#now() + delay } : { status: settled };
    await this.#store.commit([{ collection: "regions", key: `${account}/${region}`, value: next }]);
    return { status: 200 };
  }

  #requireRegion(region: string): void {
    if (!this.#catalog.has(region)) {
      throw accountErrors.validation(`Region ${region} does not exist`, [
        { name: "RegionName", message: `RegionName ${JSON.stringify(region)} is not a Region of this service: call ListRegions for the valid names` },
      ]);
    }
  }

  #statusOf(account: string, region: string): OptStatus {
    const override = this.#regions.map.get(`${account}/${region}`);
    if (!override) return this.#catalog.get(region)!;
    if (override.settleAt !== undefined && this.#now() >= override.settleAt) return SETTLED[override.status] ?? override.status;
    return override.status;
  }
}

/**
 * The request body to validate: an empty body reads as `{}`, so that ListRegions (every field
 * optional) accepts it and the other operations name each missing required field.
 */
function bodyOf(call: OperationCall): unknown {
  return call.body === undefined ? {} : call.body;
}

/** Index of the first name strictly greater than `key` in a sorted array. */
function upperBound(sorted: ReadonlyArray<string>, key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! <= key) low = mid + 1;
    else high = mid;
  }
  return low;
}

