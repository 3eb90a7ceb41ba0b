import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { MapCollection } from "../../src/service/map-collection.js";
import { NODE_STATE_FILE_SYSTEM, faultyStateFileSystem, type StateFileFaults } from "../../src/service/state-file-system.js";
import { StateWriteError, Store, type AttachOptions } from "../../src/service/store.js";
import { call } from "../support/http.js";
import { expectWellFormedJournal } from "../support/journal.js";
import { withWorld } from "../support/world.js";

/**
 * The journal behind --state-file, on real files: compaction keeps the record numbering, a failed
 * compaction is undone like a failed append, a failed write undoes the commits queued behind it,
 * and a mark waits for the sync. (The child-process tests cover what a client sees.)
 */

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

async function stateFile(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "converge-journal-"));
  directories.push(directory);
  return join(directory, "state.jsonl");
}

async function openStore(path: string, options: AttachOptions = {}): Promise<{ store: Store; items: MapCollection<string>; notices: string[] }> {
  const store = new Store();
  const items = new MapCollection<string>(z.string());
  store.register("items", items);
  const notices: string[] = [];
  await store.attach(path, { notice: (message) => notices.push(message), ...options });
  return { store, items, notices };
}

function faulty(faults: StateFileFaults): AttachOptions {
  return { fileSystem: faultyStateFileSystem(NODE_STATE_FILE_SYSTEM, faults) };
}

const put = (key: string) => [{ collection: "items", key, value: `value of ${key}` }];

describe("the state file journal", () => {
  it("compacts into a snapshot that carries the sequence it covers, and numbers the records after it on", async () => {
    const path = await stateFile();
    const { store, items } = await openStore(path, { compactAfterMutations: 10 });
    for (let i = 1; i <= 25; i += 1) await store.commit(put(`k${i}`));
    await store.close();

    const lines = await expectWellFormedJournal(path);
    expect(lines[0]!.seq, "the snapshot stands for records 1 to 20").toBe(20);
    expect(lines[0]!.snapshot!.filter(([collection]) => collection === "items")).toHaveLength(20);
    expect(lines.slice(1).map((line) => line.seq)).toEqual([21, 22, 23, 24, 25]);

    const reopened = await openStore(path, { compactAfterMutations: 10 });
    expect([...reopened.items.map]).toEqual([...items.map]);
    await reopened.store.commit(put("k26"));
    await reopened.store.close();
    expect((await expectWellFormedJournal(path)).at(-1)!.seq).toBe(26);
  });

  it("undoes a compaction that fails like an append that fails, and compacts on the next write", async () => {
    const path = await stateFile();
    // the 10th write of the journal is the compaction
    const { store, items, notices } = await openStore(path, { compactAfterMutations: 10, ...faulty({ failAfterWrites: 9, failingWrites: 1, failure: "write" }) });
    for (let i = 1; i <= 9; i += 1) await store.commit(put(`k${i}`));
    const before = await readFile(path);
    await expect(store.commit(put("k10"))).rejects.toThrow(StateWriteError);
    expect(items.map.has("k10"), "the failed change is undone in memory").toBe(false);
    expect(items.map.size).toBe(9);
    expect(await readFile(path), "the file is as before").toEqual(before);
    expect(notices.at(-1)).toMatch(/a write failed \(ENOSPC: .*\); 1 change was answered 500 and undone; the file ends at byte \d+, as before$/);

    await store.commit(put("k11"));
    await store.close();
    const lines = await expectWellFormedJournal(path);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.seq).toBe(10);
    expect(lines[0]!.snapshot!.map(([, key]) => key)).toEqual(["k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k11"]);
  });

  it("undoes the commits queued behind a failed write too, and tells a mark taken on them", async () => {
    const path = await stateFile();
    const { store, items } = await openStore(path, faulty({ failAfterWrites: 1, failingWrites: 1, failure: "sync" }));
    await store.commit(put("durable"));
    const first = store.commit(put("a")); // the failing write starts at once
    const queued = [store.commit(put("b")), store.commit(put("c"))]; // wait for it, applied in memory
    const mark = store.mark();
    expect([...items.map.keys()]).toEqual(["durable", "a", "b", "c"]);
    const durable = store.whenDurable(mark);
    expect(durable, "the state at the mark is not on disk yet").toBeInstanceOf(Promise);

    const outcomes = await Promise.allSettled([first, ...queued]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(await durable, "what the mark saw was undone").toBe(false);
    expect(store.whenDurable(mark), "a stale mark stays undone").toBeInstanceOf(Promise);
    expect(await store.whenDurable(mark)).toBe(false);
    expect([...items.map.keys()]).toEqual(["durable"]);

    await store.commit(put("d"));
    expect(store.whenDurable(store.mark()), "everything is on disk").toBeUndefined();
    await store.close();
    const keys = (await expectWellFormedJournal(path)).flatMap((line) => (line.snapshot ?? line.m ?? []).map(([, key]) => key));
    expect(keys.filter((key) => key !== "pagingKey")).toEqual(["durable", "d"]);
  });

  it("shares one record among the commits made during a sync, and resolves a mark once they are on disk", async () => {
    const path = await stateFile();
    const { store, items } = await openStore(path);
    const commits = Array.from({ length: 50 }, (_, i) => store.commit(put(`k${i}`)));
    const mark = store.mark();
    const durable = store.whenDurable(mark);
    await Promise.all(commits);
    expect(await durable).toBe(true);
    await store.close();
    const lines = await expectWellFormedJournal(path);
    expect(lines.length - 1, "fewer records than commits").toBeLessThan(50);
    expect(lines.slice(1).flatMap((line) => line.m!.map(([, key]) => key))).toEqual([...items.map.keys()]);
  });

  it("answers nothing once memory cannot be brought back in line with the file (the file vanished)", async () => {
    const path = await stateFile();
    const { store, items, notices } = await openStore(path, faulty({ failAfterWrites: 1, failingWrites: 1, failure: "write" }));
    await store.commit(put("k1"));
    await rm(path);
    await expect(store.commit(put("k2"))).rejects.toThrow(StateWriteError);
    expect(store.failure?.message).toBe("the service could not read its state file back after a failed write; it answers nothing until it is restarted (every acknowledged write is on disk)");
    expect(notices.at(-1)).toMatch(/a write failed \(ENOSPC: .*\); 1 change was answered 500; the file ends at byte \d+, as before$/);
    expect(notices.at(-2)).toMatch(/could not be read back after a failed write, so memory may hold changes that are not on disk; every request is answered 500 until the service is restarted: ENOENT/);
    await expect(store.commit(put("k3"))).rejects.toBe(store.failure);
    expect(items.map.has("k3")).toBe(false);
    await store.close();
  });

  it("the service answers every request 500 in that state", async () => {
    const path = await stateFile();
    const world = {
      accounts: ["111111111111"],
      identities: [{ token: "admin-token", accountId: "111111111111", allow: ["*"] }],
      faults: { stateFile: { failAfterWrites: 0, failingWrites: 1, failure: "write" as const } },
    };
    await withWorld({ world, stateFile: path }, async ({ service }) => {
      await rm(path);
      const created = await call(service, "/v2/apis", { body: { name: "lost", protocolType: "HTTP" } });
      expect(created.status).toBe(500);
      const listed = await call(service, "/v2/apis", { method: "GET" });
      expect(listed).toMatchObject({ status: 500, errorType: "InternalServerException", json: { message: expect.stringMatching(/^the service could not read its state file back/) } });
    });
  });
});
