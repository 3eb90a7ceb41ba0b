import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Credentials, collect, createClients, type Clients } from "../../../src/clients/index.js";
import { DEMO_WORLD, startService, type RunningService, type WorldInput } from "../../../src/service/index.js";
import { runProcess } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";
import { ESTATE_TOKEN, estateWorld, writeEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";

/**
 * A refactoring's proof (docs/manual/benchmarks.md): the CLI of this checkout against the CLI of another
 * built checkout (BENCH_BASE_DIR, e.g. a `git worktree` of the commit before the change, built with
 * `npx tsc -p tsconfig.json`). Both run against the same live service, on the repository's examples
 * and on the benchmark estate: every plan, drift report and export must be byte-identical (the time
 * of the run aside), from empty and after an apply and changes made behind converge's back; an
 * apply from empty must send the same requests in the same order (IDs aside). Then the same-run A/B
 * of wall times: no-change plan, drift, and apply from empty, alternating the two builds each round.
 */

const REPOSITORY = resolve(import.meta.dirname, "../../../..");

interface Scenario {
  readonly name: string;
  readonly world: () => WorldInput;
  readonly token: string;
  /** Writes the desired state; returns the paths to pass with -f. */
  prepare(directory: string): Promise<string[]>;
  /** The `export` arguments that cover the scenario's APIs and accounts. */
  readonly exportArgs: ReadonlyArray<string>;
  /** Changes made behind converge's back after the first apply. */
  drift(clients: Clients): Promise<void>;
}

async function firstRoute(clients: Clients, apiId: string) {
  const routes = await collect(clients.gateway.routes(apiId));
  return routes.filter((route) => !route.apiGatewayManaged).sort((a, b) => a.routeKey.localeCompare(b.routeKey))[0]!;
}

const SCENARIOS: ReadonlyArray<Scenario> = [
  {
    name: "examples/desired-state",
    world: () => ({ ...DEMO_WORLD, regionTransitionMs: 0 }),
    token: "demo-admin-token",
    prepare: async () => [join(REPOSITORY, "examples/desired-state")],
    exportArgs: ["--api", "a1b2c3d4e5", "--api", "w5s0ck3t01", "--account", "self", "--account", "222222222222"],
    async drift(clients) {
      const contact = await clients.account.getAlternateContact({ AlternateContactType: "SECURITY" });
      if (contact) await clients.account.putAlternateContact({ ...contact, PhoneNumber: "+1 555 0199" });
      const route = await firstRoute(clients, "a1b2c3d4e5");
      await clients.gateway.updateRoute("a1b2c3d4e5", route.routeId, { authorizationScopes: ["changed.behind.our.back"] });
      await clients.gateway.createIntegration("a1b2c3d4e5", { integrationType: "HTTP_PROXY", integrationUri: "https://unmanaged.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
    },
  },
  {
    name: "benchmark estate",
    world: () => estateWorld({ latencyMs: 0 }),
    token: ESTATE_TOKEN,
    prepare: async (directory) => {
      await writeEstate(directory);
      return [directory];
    },
    exportArgs: ["--api", "estate0000", "--api", "estate0031", "--account", "self", "--account", "100000000007"],
    async drift(clients) {
      await clients.account.putAlternateContact({ AccountId: "100000000007", AlternateContactType: "BILLING", Name: "someone else", Title: "t", EmailAddress: "x@example.com", PhoneNumber: "+1 555 0000" });
      const route = await firstRoute(clients, "estate0000");
      await clients.gateway.updateRoute("estate0000", route.routeId, { authorizationScopes: ["changed"] });
      const websocketRoute = await firstRoute(clients, "estate0031");
      await clients.gateway.deleteRoute("estate0031", websocketRoute.routeId);
      await clients.gateway.createIntegration("estate0005", { integrationType: "HTTP_PROXY", integrationUri: "https://unmanaged.example", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
    },
  },
];

interface Build {
  readonly label: "base" | "this";
  readonly cli: string;
}

async function run(build: Build, args: ReadonlyArray<string>, env: Record<string, string>) {
  return runProcess(process.execPath, [build.cli, ...args], { env: { ...(process.env as Record<string, string>), NO_COLOR: "1", CI: "true", ...env } });
}

/** Outputs that must not differ, with the time of the run (drift's `generatedAt`, in every format's rendering) blanked. */
function normalized(text: string): string {
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, "<time of the run>");
}

/** The commands whose output is compared, each with its arguments. */
function readCommands(files: ReadonlyArray<string>, exportArgs: ReadonlyArray<string>, reportDir: string): Array<{ name: string; args: string[]; report?: string }> {
  const f = files.flatMap((file) => ["-f", file]);
  return [
    { name: "plan text", args: ["plan", ...f] },
    { name: "plan json", args: ["plan", ...f, "--output", "json"] },
    { name: "plan markdown", args: ["plan", ...f, "--output", "markdown"] },
    { name: "plan --prune json", args: ["plan", ...f, "--prune", "--output", "json"] },
    { name: "drift text", args: ["drift", ...f] },
    { name: "drift json", args: ["drift", ...f, "--output", "json"] },
    { name: "drift markdown", args: ["drift", ...f, "--output", "markdown"] },
    { name: "drift html", args: ["drift", ...f, "--report", join(reportDir, "drift.html")], report: join(reportDir, "drift.html") },
    { name: "drift junit", args: ["drift", ...f, "--report", join(reportDir, "drift.xml")], report: join(reportDir, "drift.xml") },
    { name: "export", args: ["export", ...exportArgs] },
  ];
}

/** Runs every read command with both builds against the same live state; the names of those that differ. */
async function compareReads(builds: ReadonlyArray<Build>, files: ReadonlyArray<string>, scenario: Scenario, env: Record<string, string>, stage: string): Promise<{ compared: number; differing: string[] }> {
  const reportDir = await mkdtemp(join(tmpdir(), "converge-compare-reports-"));
  const differing: string[] = [];
  let compared = 0;
  try {
    for (const command of readCommands(files, scenario.exportArgs, reportDir)) {
      const outputs: string[] = [];
      for (const build of builds) {
        const result = await run(build, command.args, env);
        const report = command.report && existsSync(command.report) ? await readFile(command.report, "utf8") : "";
        outputs.push(normalized(`exit ${result.code}\n${result.stdout}\n--- stderr\n${result.stderr}\n--- report\n${report}`));
      }
      compared += 1;
      if (outputs[0] !== outputs[1]) differing.push(`${scenario.name}, ${stage}: ${command.name}`);
    }
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
  return { compared, differing };
}

/** The IDs of every route and integration of the world's APIs, named by API and listing (creation) order. */
async function childIdNames(clients: Clients, apiIds: ReadonlyArray<string>, names: Map<string, string>): Promise<void> {
  for (const apiId of apiIds) {
    for (const [collection, items] of [
      ["integration", (await collect(clients.gateway.integrations(apiId))).map((item) => item.integrationId)],
      ["route", (await collect(clients.gateway.routes(apiId))).map((item) => item.routeId)],
    ] as const) {
      for (const id of items) if (!names.has(id)) names.set(id, `<${collection} ${names.size + 1} of ${apiId}>`);
    }
  }
}

/** Text with every known generated ID replaced by its name. */
function withIdsNamed(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(/[a-z0-9]+/g, (word) => names.get(word) ?? word);
}

/** An apply from empty on a fresh service: what it printed and the writes it sent, in order, IDs named. */
async function applyFromEmpty(build: Build, scenario: Scenario, f: ReadonlyArray<string>): Promise<{ output: string; writes: string; count: number }> {
  return withService(scenario, async (service, env) => {
    const clients = createClients({ endpoint: service.url, credentials: new Credentials(scenario.token) });
    try {
      const apiIds = (scenario.world().apis ?? []).map((api) => api.apiId!);
      const names = new Map<string, string>();
      await childIdNames(clients, apiIds, names);
      const applied = await run(build, ["apply", ...f, ...WRITES], env);
      await childIdNames(clients, apiIds, names);
      const writes = service.requests.records().filter((record) => record.write);
      return {
        output: withIdsNamed(`exit ${applied.code}\n${applied.stdout}\n--- stderr\n${applied.stderr}`, names),
        writes: withIdsNamed(writes.map((record) => `${record.method} ${record.path} ${record.status} ${JSON.stringify(record.body ?? null)}`).join("\n"), names),
        count: writes.length,
      };
    } finally {
      await clients.close();
    }
  });
}

async function withService<T>(scenario: Scenario, use: (service: RunningService, env: Record<string, string>) => Promise<T>): Promise<T> {
  const service = await startService({ port: 0, world: scenario.world(), recordRequests: true });
  try {
    return await use(service, { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: scenario.token });
  } finally {
    await service.close();
  }
}

const WRITES = ["--parallelism", "1", "--auto-approve"];

export const buildsCompared: BenchExperiment = {
  name: "builds-compared",
  description: "this build's CLI against another built checkout (BENCH_BASE_DIR): byte-identical plans, drift reports and exports, the same apply requests, and a same-run A/B of wall times",
  async run({ rounds }) {
    const baseDir = process.env.BENCH_BASE_DIR;
    if (!baseDir) {
      const markdown = "### This build against another\n\nNot run: BENCH_BASE_DIR names no built checkout to compare with (docs/manual/benchmarks.md).\n";
      return { markdown, data: { skipped: "BENCH_BASE_DIR not set" }, problems: [] };
    }
    const builds: Build[] = [{ label: "base", cli: join(resolve(baseDir), "dist/src/cli/main.js") }, { label: "this", cli: builtCliPath() }];
    if (!existsSync(builds[0]!.cli)) throw new Error(`BENCH_BASE_DIR ${JSON.stringify(baseDir)} holds no built CLI (dist/src/cli/main.js): build it with npx tsc -p tsconfig.json`);
    const problems: string[] = [];
    const lines: string[] = [];
    const timings: Record<string, Record<Build["label"], number[]>> = {};
    const time = (what: string, label: Build["label"], ms: number) => {
      timings[what] ??= { base: [], this: [] };
      timings[what]![label].push(ms);
    };
    let compared = 0;
    for (const scenario of SCENARIOS) {
      const directory = await mkdtemp(join(tmpdir(), "converge-compare-"));
      try {
        const files = await scenario.prepare(directory);
        const f = files.flatMap((file) => ["-f", file]);
        await withService(scenario, async (service, env) => {
          const clients = createClients({ endpoint: service.url, credentials: new Credentials(scenario.token) });
          try {
            const fromEmpty = await compareReads(builds, files, scenario, env, "from empty");
            const applied = await run(builds[1]!, ["apply", ...f, ...WRITES], env);
            if (applied.code !== 0) problems.push(`${scenario.name}: apply exited ${applied.code}: ${applied.stderr.slice(0, 300)}`);
            const inSync = await compareReads(builds, files, scenario, env, "after apply");
            await scenario.drift(clients);
            const drifted = await compareReads(builds, files, scenario, env, "after changes behind converge's back");
            compared += fromEmpty.compared + inSync.compared + drifted.compared;
            problems.push(...fromEmpty.differing, ...inSync.differing, ...drifted.differing);
          } finally {
            await clients.close();
          }
        });
        const [base, ours] = [await applyFromEmpty(builds[0]!, scenario, f), await applyFromEmpty(builds[1]!, scenario, f)];
        compared += 2;
        if (base.writes !== ours.writes) problems.push(`${scenario.name}: apply from empty sent different requests`);
        if (base.output !== ours.output) problems.push(`${scenario.name}: apply from empty printed differently`);
        lines.push(`- ${scenario.name}: the ${ours.count} write requests of an apply from empty (parallelism 1) compared in order, bodies included`);

        if (scenario.name !== "benchmark estate") continue;
        for (let round = 0; round < rounds; round += 1) {
          for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
            await withService(scenario, async (_, env) => {
              const applied = await run(build, ["apply", ...f, "--auto-approve"], env);
              time("apply from empty", build.label, applied.wallMs);
              const planned = await run(build, ["plan", ...f], env);
              time("no-change plan", build.label, planned.wallMs);
              const drift = await run(build, ["drift", ...f], env);
              time("no-change drift", build.label, drift.wallMs);
              if (applied.code !== 0 || planned.code !== 0 || drift.code !== 0) problems.push(`${build.label} round ${round + 1}: exits ${applied.code}/${planned.code}/${drift.code}`);
            });
          }
          process.stderr.write(`builds-compared: round ${round + 1}/${rounds}\n`);
        }
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    }
    const rows = Object.entries(timings).map(([what, byBuild]) => {
      const base = median(byBuild.base);
      const ours = median(byBuild.this);
      return `| ${what} | ${Math.round(base)} ms | ${Math.round(ours)} ms | ${(ours / base).toFixed(2)} |`;
    });
    const markdown = [
      "### This build against another (refactoring check)",
      "",
      `${compared} outputs compared byte for byte (plans as text, JSON and markdown, with --prune; drift as text, JSON, markdown, HTML and JUnit; export), on the examples and the benchmark estate, from empty, after an apply and after changes behind converge's back: ${problems.length === 0 ? "all identical" : `${problems.length} differ`}.`,
      ...lines,
      "",
      `Same-run A/B on the benchmark estate (5,440 documents, no latency or throttle; ${rounds} rounds, builds alternating; medians):`,
      "",
      "| run | base | this | ratio |",
      "| --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n");
    return { markdown, data: { compared, timings }, problems };
  },
};
