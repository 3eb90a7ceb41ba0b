import { createClients, type AcknowledgedWrite, type Clients, type ClientsOptions } from "../clients/index.js";
import { readKeyText } from "../desired/read-key.js";
import type { LiveCollections } from "../reconcile/kinds/kind-engine.js";
import { listApis, mergedCollections, readLive, sourceOf, type ApiDirectory } from "../reconcile/live-reader.js";
import type { LiveNeed, LiveState } from "../reconcile/model.js";

interface Entry {
  readonly need: LiveNeed;
  /** The read under way, or done. */
  readonly pending: Promise<Partial<LiveCollections>>;
  /** What the read answered, as this process's writes have changed it since. */
  value: Partial<LiveCollections> | undefined;
}

/**
 * Live state for one provider process, which serves one terraform command (docs/manual/terraform-provider.md, "Terraform
 * provider"): each need (an API's routes and integrations, a contact, an account's Regions) is read
 * once, by the live reader of `converge plan`, however many resources ask for it and however many
 * ask at once; the process's own writes change what was read, as each read key's source says
 * (`afterWrite`), so that nothing is read twice. A change made by anyone else during the command is
 * not seen: terraform reads everything at the start of a command, and so does this.
 */
export class LiveCache {
  readonly clients: Clients;
  readonly #entries = new Map<string, Entry>();
  /** What each need's first read answered, before any write of this process. */
  readonly #first = new Map<string, Partial<LiveCollections>>();
  #directory: Promise<ApiDirectory> | undefined;

  /** Clients for `options` whose acknowledged writes this cache follows. */
  constructor(options: Omit<ClientsOptions, "onWrite">) {
    this.clients = createClients({ ...options, onWrite: (write) => this.#followWrite(write) });
  }

  /** The caller's APIs by name, with their protocols (one GetApis listing, all pages), read once. */
  directory(signal?: AbortSignal): Promise<ApiDirectory> {
    this.#directory ??= listApis(this.clients, signal).catch((error: unknown) => {
      this.#directory = undefined;
      throw error;
    });
    return this.#directory;
  }

  /** The directory if it was read, without reading it. */
  async knownDirectory(): Promise<ApiDirectory | undefined> {
    return this.#directory?.catch(() => undefined);
  }

  /**
   * Live state for `needs`: each need read at most once (concurrent callers share the read); an
   * API's protocol and name come from the directory when it was read, sparing a GetApi. A read
   * that fails is not kept, so that a later call reads again.
   */
  async read(needs: ReadonlyArray<LiveNeed>, signal?: AbortSignal): Promise<LiveState> {
    const directory = await this.knownDirectory();
    return { ...mergedCollections(await Promise.all(needs.map((need) => this.#part(withDirectory(need, directory), signal)))), apiIdsByName: {} };
  }

  /**
   * Live state for `needs` as the command first read it: without what this process has created
   * since (nor its other writes). A new resource may adopt what was live before the command, never
   * what another resource of the same command has just made.
   */
  async firstRead(needs: ReadonlyArray<LiveNeed>, signal?: AbortSignal): Promise<LiveState> {
    await this.read(needs, signal);
    return { ...mergedCollections(needs.map((need) => this.#first.get(readKeyText(need)) ?? {})), apiIdsByName: {} };
  }

  /** Forgets what was read for `needs` (a write that found nothing to do, answered 404, was not acknowledged). */
  forget(needs: ReadonlyArray<LiveNeed>): void {
    for (const need of needs) this.#entries.delete(readKeyText(need));
  }

  close(): Promise<void> {
    return this.clients.close();
  }

  async #part(need: LiveNeed, signal: AbortSignal | undefined): Promise<Partial<LiveCollections>> {
    const key = readKeyText(need);
    const existing = this.#entries.get(key);
    if (existing) return existing.value ?? existing.pending;
    const pending = readLive([need], this.clients, { signal }).then((live): Partial<LiveCollections> => ({
      apis: live.apis,
      contacts: live.contacts,
      regions: live.regions,
    }));
    const entry: Entry = { need, pending, value: undefined };
    this.#entries.set(key, entry);
    try {
      const value = await pending;
      if (!this.#first.has(key)) this.#first.set(key, value);
      if (this.#entries.get(key) === entry) entry.value = value;
      return entry.value ?? value;
    } catch (error) {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
      throw error;
    }
  }

  /** An acknowledged write: every need it touches takes it in, or is read again next time. */
  #followWrite(write: AcknowledgedWrite): void {
    for (const [key, entry] of this.#entries) {
      const after = sourceOf(entry.need).afterWrite(entry.need, entry.value ?? {}, write);
      if (after === undefined) continue;
      // a read still under way may answer from before or after the write: read again
      if (after === "reread" || entry.value === undefined) this.#entries.delete(key);
      else entry.value = { ...entry.value, ...after };
    }
  }
}

/** An API need with the protocol and name the directory knows. */
function withDirectory(need: LiveNeed, directory: ApiDirectory | undefined): LiveNeed {
  if (need.type !== "api" || typeof need.ref !== "string" || need.protocolType || !directory) return need;
  const protocolType = directory.protocols.get(need.ref);
  const name = directory.names.get(need.ref);
  return protocolType ? { ...need, protocolType, ...(name !== undefined ? { name } : {}) } : need;
}
