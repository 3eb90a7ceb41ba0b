import { cp, mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { collect, Credentials, createClients } from "../../src/clients/index.js";
import { runCli } from "../support/cli.js";
import { cycleAfter, eventually, startReconcileProcess, type ReconcileProcess } from "../support/reconcile-process.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, EXAMPLES_DIR, useE2eResources } from "../e2e/e2e-fixture.js";

/**
 * examples/continuous-reconcile: the Deployment, the sharded StatefulSet and the systemd unit carry
 * what they are about (probes on the endpoints, scrape annotations on the port listened on, the token
 * from a Secret or a credential), and their commands run as written against the embedded service —
 * with a git-sync checkout whose link is swapped to a new commit, four shards from the pods' indexes,
 * and the unit's reload and stop signals.
 */

const EXAMPLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/continuous-reconcile");
const { services, dirs } = useE2eResources();
const running: ReconcileProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((process) => process.stop("SIGKILL")));
});

async function manifest(name: string): Promise<any> {
  const text = await readFile(join(EXAMPLE_DIR, name), "utf8");
  const documents = parseAllDocuments(text);
  expect(documents, name).toHaveLength(1);
  expect(documents[0]!.errors.map((error) => error.message), name).toEqual([]);
  return parse(text);
}

function containerNamed(pod: any, name: string): any {
  const container = pod.spec.containers.find((candidate: { name: string }) => candidate.name === name);
  expect(container, `container ${name}`).toBeDefined();
  return container;
}

/**
 * A git-sync root as git-sync v4 leaves it: the commit checked out whole under .worktrees (with
 * `edit` made to its documents), then `current` linked to it by swapping the link atomically.
 */
async function gitSyncRoot(commit: string, root?: string, edit?: (desired: string) => Promise<void>): Promise<string> {
  const directory = root ?? (await dirs.make("git-sync"));
  const worktree = join(directory, ".worktrees", commit);
  await mkdir(worktree, { recursive: true });
  await cp(EXAMPLES_DIR, join(worktree, "desired-state"), { recursive: true });
  await edit?.(join(worktree, "desired-state"));
  await symlink(join(".worktrees", commit), join(directory, "current.tmp"));
  await rename(join(directory, "current.tmp"), join(directory, "current"));
  return directory;
}

/** The container's arguments for this machine: its mount paths mapped, --listen to a free loopback port (the helper adds it). */
function argsHere(args: ReadonlyArray<string>, mounts: Readonly<Record<string, string>>): string[] {
  expect(args[0]).toBe("reconcile");
  const out: string[] = [];
  for (let index = 1; index < args.length; index += 1) {
    if (args[index] === "--listen") {
      index += 1;
      continue;
    }
    out.push(Object.entries(mounts).reduce((arg, [from, to]) => arg.replace(from, to), args[index]!));
  }
  return out;
}

describe("examples/continuous-reconcile/deployment.yaml", () => {
  it("runs one replica beside a git-sync sidecar, probed on its endpoints and scraped by Prometheus, with the token from a Secret", async () => {
    const deployment = await manifest("deployment.yaml");
    expect(deployment).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment", spec: { replicas: 1, strategy: { type: "Recreate" } } });
    const pod = deployment.spec.template;
    const converge = containerNamed(pod, "converge");
    const gitSync = containerNamed(pod, "git-sync");
    expect(gitSync.image).toMatch(/^registry\.k8s\.io\/git-sync\/git-sync:v4\./);
    expect(gitSync.args).toEqual(expect.arrayContaining(["--root=/git", "--link=current"]));
    const listen = converge.args[converge.args.indexOf("--listen") + 1] as string;
    const port = Number(listen.split(":").at(-1));
    expect(listen.startsWith("0.0.0.0:")).toBe(true);
    expect(converge.ports).toEqual([{ name: "metrics", containerPort: port }]);
    expect(converge.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    expect(converge.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "metrics" });
    expect(pod.metadata.annotations).toEqual({ "prometheus.io/scrape": "true", "prometheus.io/port": String(port), "prometheus.io/path": "/metrics" });
    const env = Object.fromEntries(converge.env.map((entry: { name: string }) => [entry.name, entry]));
    expect(env.CONVERGE_TOKEN.valueFrom).toEqual({ secretKeyRef: { name: "converge-token", key: "token" } });
    const desired = converge.args[converge.args.indexOf("-f") + 1] as string;
    expect(desired.startsWith("/git/current/")).toBe(true);
    expect(converge.volumeMounts).toEqual([{ name: "git", mountPath: "/git", readOnly: true }]);
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(10);
  });

  it("runs as written: reconciles the checkout, and the next commit git-sync links in is in force at the next cycle", { timeout: E2E_TIMEOUT_MS }, async () => {
    const service = await services.start();
    const converge = containerNamed((await manifest("deployment.yaml")).spec.template, "converge");
    const root = await gitSyncRoot("1111111");
    const args = argsHere(converge.args, { "/git": root }).map((arg) => (arg === "5m" ? "1s" : arg));
    const reconcile = await startReconcileProcess(args, { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN }, logFormat: "json" });
    running.push(reconcile);
    const first = await cycleAfter(reconcile, 0);
    expect(first.last!.result).toBe("success");
    expect((await reconcile.request("/readyz")).status).toBe(200);
    expect(JSON.parse(reconcile.stderr().split("\n")[0]!)).toMatchObject({ level: "info", event: "start" });

    // the next commit: a contact's phone number changes; git-sync checks it out and swaps the link
    await gitSyncRoot("2222222", root, async (desired) => {
      const contacts = join(desired, "contacts.yaml");
      await writeFile(contacts, (await readFile(contacts, "utf8")).replace("+1 555 0101", "+1 555 0199"));
    });
    const changed = await eventually("the new commit applied", async () => {
      const status = await reconcile.status();
      return status.last?.writes.some((write) => write.address === "AlternateContact/self/BILLING" && write.type === "update" && write.status === "done") ? status : undefined;
    });
    expect(changed.last!.result).toBe("success");
    const clients = createClients({ endpoint: service.url, credentials: new Credentials(ADMIN_TOKEN) });
    try {
      expect((await clients.account.getAlternateContact({ AlternateContactType: "BILLING" }))?.PhoneNumber).toBe("+1 555 0199");
    } finally {
      await clients.close();
    }
    expect(await reconcile.stop("SIGTERM")).toEqual({ code: 0, signal: null });
  });
});

describe("examples/continuous-reconcile/statefulset.yaml", () => {
  it("splits the estate over as many shards as replicas, K from the pod's index", async () => {
    const statefulSet = await manifest("statefulset.yaml");
    expect(statefulSet).toMatchObject({ apiVersion: "apps/v1", kind: "StatefulSet" });
    const converge = containerNamed(statefulSet.spec.template, "converge");
    expect(converge.args[converge.args.indexOf("--shard") + 1]).toBe(`auto/${statefulSet.spec.replicas}`);
    const index = converge.env.find((entry: { name: string }) => entry.name === "JOB_COMPLETION_INDEX");
    expect(index.valueFrom).toEqual({ fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" } });
  });

  it("runs as written: the pods' shards together converge every resource once, none writing another's", { timeout: E2E_TIMEOUT_MS }, async () => {
    const service = await services.start();
    const statefulSet = await manifest("statefulset.yaml");
    const converge = containerNamed(statefulSet.spec.template, "converge");
    const root = await gitSyncRoot("3333333");
    const args = ["reconcile", ...argsHere(converge.args, { "/git": root }), "--once", "--output", "json"];
    const shards = await Promise.all(Array.from({ length: statefulSet.spec.replicas as number }, (_, index) =>
      runCli(args, { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, JOB_COMPLETION_INDEX: String(index) } })));
    expect(shards.map((shard) => shard.code), shards.map((shard) => shard.stderr).join("\n")).toEqual([0, 0, 0, 0]);
    const records = shards.map((shard) => JSON.parse(shard.stdout) as { resources: Array<{ address: string }>; writes: Array<{ address: string }> });
    const addresses = records.flatMap((record) => record.resources.map((resource) => resource.address));
    expect(new Set(addresses).size).toBe(addresses.length);
    const written = records.flatMap((record) => record.writes.map((write) => write.address));
    expect(new Set(written).size).toBe(written.length);
    expect((await runCli(["plan", "-f", join(root, "current", "desired-state")], { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN } })).code).toBe(0);
  });
});

describe("examples/continuous-reconcile/converge-reconcile.service (systemd)", () => {
  async function unit(): Promise<Record<string, string>> {
    const text = await readFile(join(EXAMPLE_DIR, "converge-reconcile.service"), "utf8");
    return Object.fromEntries(text.split("\n").filter((line) => /^[A-Za-z]+=/.test(line)).map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  }

  it("takes the token as a credential file, reloads with SIGHUP and stops with SIGTERM", async () => {
    const fields = await unit();
    expect(fields.LoadCredential).toBe("token:/etc/converge/token");
    expect(fields.ExecStart).toContain("--token-file ${CREDENTIALS_DIRECTORY}/token");
    expect(fields.ExecStart).not.toMatch(/CONVERGE_TOKEN=/);
    expect(fields.ExecReload).toBe("/bin/kill -HUP $MAINPID");
    expect(fields.KillSignal).toBe("SIGTERM");
    expect(Number(fields.TimeoutStopSec)).toBeGreaterThan(10);
  });

  it("runs as written: a cycle at start, one at each reload, and exit 0 on stop", { timeout: E2E_TIMEOUT_MS }, async () => {
    const service = await services.start();
    const fields = await unit();
    const credentials = await dirs.make("credentials");
    const state = await dirs.make("state");
    const desired = await dirs.copyOfExamples();
    await writeFile(join(credentials, "token"), `${ADMIN_TOKEN}\n`);
    const words = fields.ExecStart!.split(/\s+/).slice(1)
      .map((word) => word.replace("${CREDENTIALS_DIRECTORY}", credentials).replace("${STATE_DIRECTORY}", state).replace("/srv/infrastructure/desired-state", desired));
    const reconcile = await startReconcileProcess(argsHere(words, {}), { env: { CONVERGE_ENDPOINT: service.url } });
    running.push(reconcile);
    const first = await cycleAfter(reconcile, 0);
    expect(first).toMatchObject({ role: "leader", lock: join(state, "reconcile.lock") });
    reconcile.child.kill("SIGHUP");
    const reloaded = await cycleAfter(reconcile, first.last!.cycle);
    expect(reloaded.last!.result).toBe("success");
    const clients = createClients({ endpoint: service.url, credentials: new Credentials(ADMIN_TOKEN) });
    try {
      expect((await collect(clients.gateway.routes("a1b2c3d4e5"))).length).toBeGreaterThan(1);
    } finally {
      await clients.close();
    }
    expect(await reconcile.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(reconcile.stderr()).not.toContain(ADMIN_TOKEN);
  });
});
