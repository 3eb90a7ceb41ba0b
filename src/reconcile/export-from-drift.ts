import { ACCOUNT_ID_PATTERN } from "../contract/account.js";
import { API_ID_PATTERN } from "../contract/gateway.js";
import { modelOf } from "../desired/kinds/registry.js";
import { SELF, type AccountKey } from "../desired/read-key.js";
import type { Document, Kind } from "../desired/schema.js";
import { describeSource, DriftReportError, type DriftReport, type DriftSource } from "./drift-report.js";
import { exportAccountFrom, exportApi, type ExportScope, type ExportedFile } from "./export.js";
import type { ExportableApi } from "./kinds/kind-engine.js";
import { engineOf, exportingEngines } from "./kinds/registry.js";
import type { LiveState } from "./model.js";

/**
 * `converge export --from-drift REPORT.json`: codify what drift found. The unmanaged resources of a
 * drift report (live, in scope, declared by no source) are exported, and nothing else of their APIs
 * and accounts, so that adding the files to the sources leaves none unmanaged, and a terraform plan
 * of them shows only their imports. Pure: the selection reads only the report, the export only live state.
 */

/** An unmanaged resource of a drift report, and the API or account it is in (what export reads for it). */
export interface UnmanagedFinding {
  readonly address: string;
  readonly kind: Kind;
  readonly identity: string;
  readonly place: { readonly api: string } | { readonly account: AccountKey };
  /** The `Api` document that owns its API, when the report names one. */
  readonly owner: DriftSource | null;
}

/** What `--from-drift` exports, and what of the report it leaves out. */
export interface UnmanagedSelection {
  /** The report's file, as the headers of the written files name it. */
  readonly file: string;
  /** The APIs and accounts the findings are in, sorted: all that is read. */
  readonly scope: ExportScope;
  /** In the report's order (by address). */
  readonly findings: ReadonlyArray<UnmanagedFinding>;
  /** Addresses of unmanaged findings an ignore rule accepted (left out unless `includeIgnored`). */
  readonly ignored: ReadonlyArray<string>;
  /** Addresses of unmanaged findings outside the APIs and accounts `within` names. */
  readonly outside: ReadonlyArray<string>;
  /** Names of `within` (`--api a1b2c3d4e5`, `--account self`) the report has no finding in. */
  readonly unmatched: ReadonlyArray<string>;
  /** Per API, the identities the report's sources declare there, after `API_ID/` (an integration's logical name): exported names avoid them. */
  readonly declaredNames: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface SelectUnmanagedOptions {
  /** Export unmanaged findings an ignore rule accepted too. @default false: they are accepted as they are */
  readonly includeIgnored?: boolean;
  /** Only the findings in these APIs and accounts (`--api`/`--account` with `--from-drift`): an intersection. @default every finding */
  readonly within?: ExportScope | undefined;
}

/**
 * The unmanaged findings of a report, each with the API or account it is in: the first segment of
 * its identity (`API_ID/…` for an API's children, the whole identity of an `Api`, `ACCOUNT/…` for an
 * account's settings), an API for a kind export writes per API, else an account. Every identity that
 * names no valid API ID or account is reported at once, naming `file`.
 */
export function selectUnmanaged(report: DriftReport, file: string, options: SelectUnmanagedOptions = {}): UnmanagedSelection {
  const findings: UnmanagedFinding[] = [];
  const ignored: string[] = [];
  const outside: string[] = [];
  const problems: string[] = [];
  const declaredNames = new Map<string, Set<string>>();
  for (const resource of report.resources) {
    const identity = identityOf(resource.identity);
    const at = placeOf(resource.kind, identity);
    if (resource.outcome !== "unmanaged") {
      if (at !== undefined && "api" in at && identity.name !== undefined) {
        const names = declaredNames.get(at.api) ?? new Set<string>();
        names.add(identity.name);
        declaredNames.set(at.api, names);
      }
      continue;
    }
    if (at === undefined) {
      problems.push(`${resource.address}: identity ${JSON.stringify(resource.identity)} does not start with `
        + `${apiKind(resource.kind) ? "an apiId (10 lower-case letters or digits)" : "an account (12 digits, or self)"}`);
      continue;
    }
    if (resource.ignoredBy && !options.includeIgnored) {
      ignored.push(resource.address);
      continue;
    }
    if (options.within !== undefined && !inScope(at, options.within)) {
      outside.push(resource.address);
      continue;
    }
    findings.push({ address: resource.address, kind: resource.kind, identity: resource.identity, place: at, owner: resource.source });
  }
  if (problems.length > 0) {
    throw new DriftReportError(`${file} lists unmanaged resources export cannot place:\n${problems.map((line) => `  ${line}`).join("\n")}`);
  }
  const apis = [...new Set(findings.flatMap(({ place }) => ("api" in place ? [place.api] : [])))].sort();
  const accounts = [...new Set(findings.flatMap(({ place }) => ("account" in place ? [place.account] : [])))].sort();
  const unmatched = options.within === undefined ? [] : [
    ...options.within.apis.filter((apiId) => !apis.includes(apiId)).map((apiId) => `--api ${apiId}`),
    ...options.within.accounts.filter((account) => !accounts.includes(account)).map((account) => `--account ${account}`),
  ];
  return { file, scope: { apis, accounts }, findings, ignored, outside, unmatched, declaredNames };
}

/** The files of a `--from-drift` export, and the findings that are no longer live. */
export interface UnmanagedExport {
  /** One file per API, then per account, holding only the findings (the selection's scope order); none for a place whose findings are all gone. */
  readonly files: ReadonlyArray<ExportedFile>;
  /** Addresses of findings live state no longer has (deleted since the report): nothing to codify. */
  readonly gone: ReadonlyArray<string>;
  /** Accounts whose settings were not read. */
  readonly problems: ReadonlyArray<string>;
}

/**
 * The selected findings as exported files (src/reconcile/export.ts writes them): of each API, only
 * the routes and integrations listed (each child kind keeps its own, `unmanagedChildren`), its `Api`
 * document declared only when the API itself is unmanaged, else referred to (terraform's data
 * source; YAML leaves it to the owner's document). An integration not listed is not written, so a
 * route targeting it keeps the literal `integrations/<id>`. Of each account, only the settings listed.
 */
export function exportUnmanaged(live: LiveState, selection: UnmanagedSelection): UnmanagedExport {
  const files: ExportedFile[] = [];
  const gone: string[] = [];
  const problems: string[] = [];
  for (const apiId of selection.scope.apis) {
    const findings = selection.findings.filter(({ place }) => "api" in place && place.api === apiId);
    const api = live.apis[apiId];
    if (!api?.protocolType) {
      gone.push(...findings.map(({ address }) => address));
      continue;
    }
    const { file, missing } = exportApiFindings({ ...api, protocolType: api.protocolType }, findings, selection);
    gone.push(...missing);
    if (file.documents.length + file.commented.documents.length > 0) files.push(file);
  }
  for (const account of selection.scope.accounts) {
    if (!live.regions[account]) {
      problems.push(`the Regions of account ${account} were not read`);
      continue;
    }
    const findings = selection.findings.filter(({ place }) => "account" in place && place.account === account);
    const { file, missing } = exportAccountFindings(account, live, findings, selection.file);
    gone.push(...missing);
    if (file.documents.length > 0) files.push(file);
  }
  return { files, gone, problems };
}

function exportApiFindings(
  api: ExportableApi,
  findings: ReadonlyArray<UnmanagedFinding>,
  selection: UnmanagedSelection,
): { readonly file: ExportedFile; readonly missing: string[] } {
  let kept = api;
  const live = new FindingKeys();
  for (const engine of exportingEngines()) {
    const children = engine.unmanagedChildren;
    if (children === undefined) continue;
    const kind = engine.model.kind;
    for (const identity of children.identities(api)) live.add({ kind, identity });
    kept = children.keep(kept, new Set(findings.filter((finding) => finding.kind === kind).map(({ identity }) => identity)));
  }
  // a kind with no children in the API (the Api itself) is live as long as the API is
  const missing = findings
    .filter((finding) => engineOf(finding.kind).unmanagedChildren !== undefined && !live.has(finding))
    .map(({ address }) => address);
  const exported = exportApi(kept, { reservedNames: selection.declaredNames.get(api.apiId) ?? new Set() });
  const kinds = new Set(findings.map(({ kind }) => kind));
  const declared = exported.documents.filter((document) => kinds.has(document.kind));
  const referenced = exported.documents.filter((document) => !kinds.has(document.kind));
  const owner = findings.find((finding) => finding.owner !== null)?.owner;
  const wholeApi = referenced.length === 0;
  return {
    file: {
      ...exported,
      header: [
        `Unmanaged resources of API ${api.apiId}${api.name !== undefined ? ` ${JSON.stringify(api.name)}` : ""} (${api.protocolType}) `
          + `that converge drift found (${selection.file}), written by converge export --from-drift.`,
        wholeApi
          ? "The API itself was unmanaged: its Api document has no prune (routes and integrations not written here are left alone)."
          : `No Api document: ${owner ? `the one at ${describeSource(owner)}` : "the API's owner"} declares the API; these documents join it.`,
        "Integrations are pinned by integrationId; a route whose integration is not written here targets it as integrations/<id>.",
      ],
      documents: declared,
      ...(referenced.length > 0 ? { referenced } : {}),
    },
    missing,
  };
}

function exportAccountFindings(
  account: AccountKey,
  live: LiveState,
  findings: ReadonlyArray<UnmanagedFinding>,
  file: string,
): { readonly file: ExportedFile; readonly missing: string[] } {
  const wanted = new FindingKeys(findings);
  const exported = exportAccountFrom(account, live);
  // an exported document is a valid one and its defaults do not touch its identity (account, type or Region)
  const keyOf = (document: (typeof exported.documents)[number]): FindingKey => ({ kind: document.kind, identity: modelOf(document.kind).identity(document as Document) });
  const documents = exported.documents.filter((document) => wanted.has(keyOf(document)));
  const written = new FindingKeys(documents.map(keyOf));
  return {
    file: {
      ...exported,
      header: [
        `Unmanaged settings of ${account === SELF ? "the caller's own account" : `account ${account}`} that converge drift found (${file}), `
          + "written by converge export --from-drift.",
      ],
      documents,
    },
    missing: findings.filter((finding) => !written.has(finding)).map(({ address }) => address),
  };
}

/** A resource as a drift report and export name it: its kind and its identity (the one text form kinds give it). */
interface FindingKey {
  readonly kind: Kind;
  readonly identity: string;
}

/** A set of finding keys, compared by kind and identity. */
class FindingKeys {
  readonly #identities = new Map<Kind, Set<string>>();

  constructor(keys: Iterable<FindingKey> = []) {
    for (const key of keys) this.add(key);
  }

  add({ kind, identity }: FindingKey): void {
    const identities = this.#identities.get(kind) ?? new Set<string>();
    identities.add(identity);
    this.#identities.set(kind, identities);
  }

  has({ kind, identity }: FindingKey): boolean {
    return this.#identities.get(kind)?.has(identity) ?? false;
  }
}

/**
 * An identity as a report's text gives it, read once: the API or account it starts with (an `Api`'s
 * whole identity is its apiId), and what follows in it (an API child's name or key, an account
 * setting's type or Region), absent for an identity of one segment.
 */
interface ReportedIdentity {
  readonly head: string;
  readonly name: string | undefined;
}

function identityOf(text: string): ReportedIdentity {
  const slash = text.indexOf("/");
  return slash === -1 ? { head: text, name: undefined } : { head: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** Whether export writes a kind per API (else per account). */
function apiKind(kind: Kind): boolean {
  return engineOf(kind).exportApi !== undefined;
}

/** The API or account an identity starts with; undefined when that is no valid apiId or account. */
function placeOf(kind: Kind, { head }: ReportedIdentity): UnmanagedFinding["place"] | undefined {
  if (apiKind(kind)) return API_ID_PATTERN.test(head) ? { api: head } : undefined;
  return head === SELF || ACCOUNT_ID_PATTERN.test(head) ? { account: head } : undefined;
}

function inScope(place: UnmanagedFinding["place"], scope: ExportScope): boolean {
  return "api" in place ? scope.apis.includes(place.api) : scope.accounts.includes(place.account);
}
