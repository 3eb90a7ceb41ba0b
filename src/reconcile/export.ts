import type { AlternateContact, Region } from "../contract/account.js";
import type { Integration } from "../contract/gateway.js";
import { SELF, type AccountKey } from "../desired/read-key.js";
import type { ExportableApi, ExportedDocument } from "./kinds/kind-engine.js";
import { exportingEngines } from "./kinds/registry.js";
import type { LiveNeed, LiveState } from "./model.js";

export type { ExportedDocument } from "./kinds/kind-engine.js";

/**
 * `converge export`: live state as desired-state documents, such that planning the exported
 * documents against the same live state shows no changes. Pure: it reads only its arguments.
 */

/** What to export: APIs by ID, and accounts (`self` is the caller's own account). */
export interface ExportScope {
  readonly apis: ReadonlyArray<string>;
  readonly accounts: ReadonlyArray<AccountKey>;
}

/** One desired-state file: its documents, and live resources shown only as comments. */
export interface ExportedFile {
  /** File name, e.g. `api-a1b2c3d4e5.yaml` or `account-self.yaml`. */
  readonly name: string;
  /** Comment lines at the top of the file (without the leading `# `). */
  readonly header: ReadonlyArray<string>;
  readonly documents: ReadonlyArray<ExportedDocument>;
  /**
   * Resources written as comments, not documents (service-managed routes and integrations): visible
   * to readers, never declared, so converge leaves them alone. Empty when there are none.
   */
  readonly commented: { readonly note: ReadonlyArray<string>; readonly documents: ReadonlyArray<ExportedDocument> };
  /**
   * Documents the file's resources refer to without declaring them (`converge export --from-drift`
   * of routes in an API another `Api` document owns: that API's document): terraform writes the
   * data source the resources take `api_id` from; YAML writes nothing of them. Absent: none.
   */
  readonly referenced?: ReadonlyArray<ExportedDocument> | undefined;
}

/** How one API is exported. */
export interface ExportApiOptions {
  /** Logical names the derived integration names must not take (those other documents of the API declare). @default none */
  readonly reservedNames?: ReadonlySet<string>;
}

export interface ExportResult {
  readonly files: ReadonlyArray<ExportedFile>;
  /** What could not be exported (an API that does not exist or could not be read). */
  readonly problems: ReadonlyArray<string>;
}

/** The live reads an export needs: each API with its routes and integrations; what each exported kind reads of an account. */
export function exportNeeds(scope: ExportScope): LiveNeed[] {
  return [
    ...scope.apis.map((apiId): LiveNeed => ({ type: "api", ref: apiId })),
    ...scope.accounts.flatMap((account) => exportingEngines().flatMap((engine) => engine.exportNeeds?.(account) ?? [])),
  ];
}

/** Every file of an export: one per API, then one per account, in the order the scope names them. */
export function exportLiveState(live: LiveState, scope: ExportScope): ExportResult {
  const files: ExportedFile[] = [];
  const problems: string[] = [];
  for (const apiId of scope.apis) {
    const api = live.apis[apiId];
    if (!api?.protocolType) {
      problems.push(`API ${apiId} does not exist in this account (or the token may not read it): expected the apiId of one of the caller's APIs`);
    } else {
      files.push(exportApi({ ...api, protocolType: api.protocolType }));
    }
  }
  for (const account of scope.accounts) {
    if (!live.regions[account]) {
      problems.push(`the Regions of account ${account} were not read`);
      continue;
    }
    files.push(exportAccountFrom(account, live));
  }
  return { files, problems };
}

/**
 * One API's file: each exporting kind's documents of it (the `kind: Api` document declaring its
 * protocol without `prune`, its integrations pinned by integrationId under derived logical names,
 * its routes, whose targets name the exported integration they point at). Service-managed routes
 * and integrations become comments.
 */
export function exportApi(api: ExportableApi, options: ExportApiOptions = {}): ExportedFile {
  const names = integrationNames(api.integrations, options.reservedNames);
  const parts = exportingEngines().flatMap((engine) => {
    const part = engine.exportApi?.(api, names);
    return part ? [{ noun: engine.model.kind.toLowerCase(), documents: part.documents, commented: part.commented }] : [];
  });
  const managed = parts.flatMap((part) => (part.commented ? [{ noun: part.noun, documents: part.commented }] : []));
  const managedCount = managed.reduce((sum, part) => sum + part.documents.length, 0);
  return {
    name: `api-${api.apiId}.yaml`,
    header: [
      `API ${api.apiId}${api.name !== undefined ? ` ${JSON.stringify(api.name)}` : ""} (${api.protocolType}), written by converge export.`,
      "Integrations are pinned by integrationId; fields at their server defaults are left out, and so",
      "are fields that are not set (omitted means \"don't care\": write null to require a field absent).",
      "No prune: routes and integrations added later are left alone until you add `prune: true`.",
    ],
    documents: parts.flatMap((part) => part.documents),
    commented: {
      note: managedCount === 0 ? [] : [
        `Managed by the service (apiGatewayManaged: quick create): ${managed.map((part) => describeCount(part.documents.length, part.noun)).join(" and ")},`,
        "shown for reference and not declared, so converge leaves them alone. Uncomment them to claim",
        "them (e.g. before adding prune: true); converge never deletes them or changes a managed route's key.",
      ],
      documents: managed.flatMap((part) => part.documents),
    },
  };
}

/**
 * One account's file: each exporting kind's documents of it (its alternate contacts, a RegionOptIn
 * document for every opt-in Region). The caller's own account is written without `account`.
 */
export function exportAccount(
  account: AccountKey,
  contacts: Readonly<Partial<Record<AlternateContact["AlternateContactType"], AlternateContact | null>>>,
  regions: Readonly<Record<string, Region["RegionOptStatus"]>>,
): ExportedFile {
  const live: LiveState = {
    apis: {},
    apiIdsByName: {},
    contacts: Object.fromEntries(Object.entries(contacts).map(([type, contact]) => [`${account}/${type}`, contact ?? null])),
    regions: { [account]: regions },
  };
  return exportAccountFrom(account, live);
}

/** One account's file (exportAccount) from live state that holds the account's reads. */
export function exportAccountFrom(account: AccountKey, live: LiveState): ExportedFile {
  const parts = exportingEngines().flatMap((engine) => (engine.exportAccount ? [engine.exportAccount(account, live)] : []));
  return {
    name: `account-${account}.yaml`,
    header: [
      `${account === SELF ? "The caller's own account" : `Account ${account}`}: alternate contacts and opt-in Regions, written by converge export.`,
      ...parts.flatMap((part) => part.header),
    ],
    documents: parts.flatMap((part) => part.documents),
    commented: { note: [], documents: [] },
  };
}

/**
 * A logical name per integration, derived from its URI (host and path, or the last segment of an
 * ARN-like URI), else its type; made unique in listing (creation) order with `-2`, `-3`, … so that
 * the same live state always gives the same names. A `reserved` name is never given (it counts as taken).
 */
export function integrationNames(integrations: ReadonlyArray<Integration>, reserved: ReadonlySet<string> = new Set()): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>(reserved);
  for (const integration of integrations) {
    const base = baseName(integration);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
    taken.add(name);
    names.set(integration.integrationId, name);
  }
  return names;
}

const MAX_BASE_NAME = 60;

function baseName(integration: Integration): string {
  const uri = integration.integrationUri ?? "";
  let words: string[] = [];
  if (/^https?:\/\//i.test(uri)) {
    try {
      const url = new URL(uri);
      words = [url.hostname.split(".")[0] ?? "", ...url.pathname.split("/").map(decodePathSegment)];
    } catch {
      // not a URL after all (e.g. a template in the host): fall back to its last segment below
    }
  }
  if (words.length === 0 && uri !== "") words = [uri.split(/[:/]/).filter((part) => part !== "").at(-1) ?? ""];
  const slug = slugOf(words.join("-"));
  return slug !== "" ? slug : slugOf(integration.integrationType);
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape: the slug keeps its letters and digits
  }
}

/** Lower-case letters, digits, '.', '_' and '-', starting and ending with a letter or digit (a valid logical name). */
function slugOf(text: string): string {
  return text.toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .slice(0, MAX_BASE_NAME)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
}

function describeCount(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
