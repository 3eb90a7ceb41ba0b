import { cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { runCli, type CliResult } from "../support/cli.js";
import { call } from "../support/http.js";
import {
  ADMIN_TOKEN, E2E_TIMEOUT_MS, ENVIRONMENTS_DIR, ENVIRONMENT_APIS, ORDERS_API, actionLines, converge, environmentsWorld, expectExit, liveContact, liveIntegrations, liveRoute,
  parsePlanJson, useE2eResources, writeFiles, writeRequests, type PlanJson,
} from "./e2e-fixture.js";

/**
 * One set of documents for several environments (docs/manual/desired-state.md, "Environments and
 * variables"): examples/environments, whose two variable files stand for two environments, each
 * an API of the embedded service (and an account of its organization), run through the real CLI.
 */

const API_OF = ENVIRONMENT_APIS;
const ACCOUNT_OF = { dev: "222222222222", prod: "333333333333" } as const;
type Environment = keyof typeof API_OF;

const { services, dirs } = useE2eResources();

/** A fresh service and a copy of examples/environments. */
async function environments(): Promise<{ service: RunningService; dir: string }> {
  const service = await services.start(environmentsWorld());
  const dir = await dirs.make("environments");
  await cp(ENVIRONMENTS_DIR, dir, { recursive: true });
  return { service, dir };
}

const varFile = (environment: Environment) => ["--var-file", `envs/${environment}.yaml`];

/** `converge ARGS` against `service`, with `stdin` (when given) on standard input. */
function convergeWith(service: RunningService, args: ReadonlyArray<string>, cwd: string, stdin?: string): Promise<CliResult> {
  return runCli(args, { cwd, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN }, ...(stdin === undefined ? {} : { stdin }) });
}

/** A plan's actions without where their documents stand (which differs between files and standard input). */
function withoutSources(plan: PlanJson): unknown[] {
  return plan.actions.map(({ source: _source, ...action }) => action);
}

describe("one set of documents, two environments", { timeout: E2E_TIMEOUT_MS * 3 }, () => {
  it("converges each environment's API to its own values, a no-change plan after each; drift per environment exits 0, and a hand change in prod is drift in prod only", async () => {
    const { service, dir } = await environments();
    for (const environment of ["dev", "prod"] as const) {
      expectExit(await converge(service, ["plan", "-f", "desired-state", ...varFile(environment)], dir), 2);
      const applied = await converge(service, ["apply", "-f", "desired-state", ...varFile(environment), "--auto-approve"], dir);
      expectExit(applied, 0);
      expect(applied.stdout).toContain(`Variables: variable files envs/${environment}.yaml; `);
      const again = await converge(service, ["plan", "-f", "desired-state", ...varFile(environment)], dir);
      expectExit(again, 0);
    }
    // each API holds its environment's values
    for (const [environment, uri, timeout, writeScopes, phone] of [
      ["dev", "https://orders.dev.internal.example/orders", 10000, ["orders.write"], "+1 555 0200"],
      ["prod", "https://orders.internal.example/orders", 15000, ["orders.write", "orders.admin"], "+44 20 7946 0100"],
    ] as const) {
      const integrations = await liveIntegrations(service, API_OF[environment]);
      const orders = integrations.find((integration) => integration.integrationUri === uri);
      expect(orders, `${environment}: ${JSON.stringify(integrations)}`).toMatchObject({
        timeoutInMillis: timeout,
        requestParameters: { "overwrite:header.x-environment": environment, "overwrite:header.x-original-request": "${request.method} ${request.path}" },
      });
      expect(integrations.map((integration) => integration.integrationUri).sort()).toEqual(["https://${stageVariables.host}/inventory", uri]);
      expect((await liveRoute(service, API_OF[environment], "POST /orders")).authorizationScopes).toEqual(writeScopes);
      expect(await liveContact(service, "OPERATIONS", ACCOUNT_OF[environment])).toMatchObject({ PhoneNumber: phone, Name: `Orders On-Call (${environment})` });
    }
    for (const environment of ["dev", "prod"] as const) {
      expectExit(await converge(service, ["drift", "-f", "desired-state", ...varFile(environment)], dir), 0);
    }

    const prodOrders = (await liveIntegrations(service, API_OF.prod)).find((integration) => integration.integrationUri === "https://orders.internal.example/orders")!;
    const patched = await call(service, `/v2/apis/${API_OF.prod}/integrations/${prodOrders.integrationId}`, { method: "PATCH", body: { timeoutInMillis: 29000 }, token: ADMIN_TOKEN });
    expect(patched.status, patched.text).toBe(200);
    expectExit(await converge(service, ["drift", "-f", "desired-state", ...varFile("dev")], dir), 0);
    const prodDrift = await converge(service, ["drift", "-f", "desired-state", ...varFile("prod"), "--output", "json"], dir);
    expectExit(prodDrift, 2);
    const report = JSON.parse(prodDrift.stdout) as { variables: { files: string[] }; resources: Array<{ address: string; outcome: string; fields: Array<{ path: string; desired: unknown; live: unknown }> }> };
    expect(report.variables.files).toEqual(["envs/prod.yaml"]);
    const drifted = report.resources.filter((resource) => resource.outcome !== "in-sync");
    expect(drifted.map((resource) => resource.outcome)).toEqual(["drifted"]);
    expect(drifted[0]!.fields).toEqual([{ path: "timeoutInMillis", desired: 15000, live: 29000 }]);
  });

  it("plans the same from a renderer's output on standard input as from the files", async () => {
    const { service, dir } = await environments();
    const fromFiles = parsePlanJson(await converge(service, ["plan", "-f", "desired-state", ...varFile("prod"), "--output", "json"], dir));
    const rendered = await converge(service, ["render", "-f", "desired-state", ...varFile("prod")], dir);
    expectExit(rendered, 0);
    expect(rendered.stdout).not.toContain("${var.");
    const fromRenderer = await convergeWith(service, ["plan", "-f", "-", "--output", "json"], dir, rendered.stdout);
    expectExit(fromRenderer, 2);
    expect(withoutSources(parsePlanJson(fromRenderer))).toEqual(withoutSources(fromFiles));
    expect(parsePlanJson(fromRenderer).actions[0]!.source?.file).toBe("<stdin>");
    // a shell loop is a renderer too: the files as one stream, their variables substituted by converge
    const files = ["contacts.yaml", "orders-api.yaml"];
    const stream = (await Promise.all(files.map((name) => readFile(join(dir, "desired-state", name), "utf8")))).join("---\n");
    const fromStream = await convergeWith(service, ["plan", "-f", "-", ...varFile("prod"), "--output", "json"], dir, stream);
    expectExit(fromStream, 2);
    expect(actionLines(parsePlanJson(fromStream))).toEqual(actionLines(fromFiles));
    expect(withoutSources(parsePlanJson(fromStream))).toEqual(withoutSources(fromFiles));
  });

  it("names the variable file of a saved plan when it is applied, and refuses to merge a dev shard with a prod shard", async () => {
    const { service, dir } = await environments();
    expectExit(await converge(service, ["plan", "-f", "desired-state", ...varFile("dev"), "--out", "plan-dev.json"], dir), 2);
    const saved = JSON.parse(await readFile(join(dir, "plan-dev.json"), "utf8")) as { variables: { files: string[]; names: Array<{ name: string; from: string }>; digest: string } };
    expect(saved.variables.files).toEqual(["envs/dev.yaml"]);
    expect(saved.variables.names).toContainEqual({ name: "api_name", from: "envs/dev.yaml" });
    expect(saved.variables.names.map((entry) => entry.name)).not.toContain("timeout"); // dev leaves it to the default
    expect(saved.variables.digest).toMatch(/^[0-9a-f]{64}$/);
    const applied = await converge(service, ["apply", "plan-dev.json", "--auto-approve"], dir);
    expectExit(applied, 0);
    const named = applied.stdout.indexOf("plan-dev.json was made with variable files envs/dev.yaml; ");
    expect(named, applied.stdout).toBeGreaterThanOrEqual(0);
    expect(named).toBeLessThan(applied.stdout.indexOf("Apply complete"));

    const shard = async (environment: Environment, k: number) => {
      const result = await converge(service, ["drift", "-f", "desired-state", ...varFile(environment), "--shard", `${k}/2`, "--report", `drift-${environment}-${k}.json`], dir);
      expect([0, 2], result.stderr).toContain(result.code);
      return `drift-${environment}-${k}.json`;
    };
    const dev = [await shard("dev", 1), await shard("dev", 2)];
    const prod2 = await shard("prod", 2);
    expectExit(await converge(service, ["drift-merge", ...dev], dir), 0);
    const mixed = await converge(service, ["drift-merge", dev[0]!, prod2], dir);
    expectExit(mixed, 1);
    expect(mixed.stderr).toContain(`${prod2} was made from other desired state or ignore rules than ${dev[0]}`);
    expect(mixed.stderr).toContain("variables: variable files envs/prod.yaml;");
    expect(mixed.stderr).toContain("vs variable files envs/dev.yaml;");
  });
});

describe("values substituted as the service receives them", { timeout: E2E_TIMEOUT_MS * 2 }, () => {
  const documents = (withVariables: boolean) => `kind: Integration
name: typed
api: ${ORDERS_API}
spec:
  integrationType: HTTP_PROXY
  integrationUri: https://\${stageVariables.host}/typed
  integrationMethod: ANY
  payloadFormatVersion: "1.0"
${withVariables ? "  timeoutInMillis: ${var.timeout}\n  description: \"$${var.x} and ${var.nested}\"\n" : ""}  requestParameters:
    "overwrite:header.x-route": \${request.method} \${request.path}
---
kind: Route
api: ${ORDERS_API}
spec:
  routeKey: GET /typed
  target: {integration: typed}
  authorizationType: JWT
  authorizerId: jwt1
${withVariables ? "  authorizationScopes: ${var.scopes}\n" : ""}`;

  it("sends a number from --var and a list from a variable file where the field takes them, the services' own ${…} and escapes as text, a variable's ${var.…} unexpanded", async () => {
    const service = await services.start();
    const dir = await dirs.make("typed");
    await writeFiles(dir, { "typed.yaml": documents(true), "values.yaml": 'scopes: [typed.read, typed.write]\nnested: "${var.b}"\n' });
    const applied = await converge(service, ["apply", "-f", "typed.yaml", "--var-file", "values.yaml", "--var", "timeout=15000", "--auto-approve"], dir);
    expectExit(applied, 0);
    const bodies = Object.fromEntries(writeRequests(service).map((request) => [request.operation, request.body as Record<string, unknown>]));
    expect(bodies.CreateIntegration).toMatchObject({
      timeoutInMillis: 15000,
      integrationUri: "https://${stageVariables.host}/typed",
      description: "${var.x} and ${var.b}",
      requestParameters: { "overwrite:header.x-route": "${request.method} ${request.path}" },
    });
    expect(bodies.CreateRoute).toMatchObject({ authorizationScopes: ["typed.read", "typed.write"] });
    const again = await converge(service, ["plan", "-f", "typed.yaml", "--var-file", "values.yaml", "--var", "timeout=15000"], dir);
    expectExit(again, 0);
  });

  it("never interpolates a cdktf synth's output, also beside -f documents that take variables", async () => {
    const service = await services.start();
    const dir = await dirs.make("synth");
    const synthDocument = { kind: "Integration", name: "from-synth", api: ORDERS_API, spec: { integrationType: "HTTP_PROXY", integrationUri: "https://synth.example/${var.path}", integrationMethod: "ANY", payloadFormatVersion: "1.0" } };
    await writeFiles(dir, { "converge.desired.json": JSON.stringify([synthDocument]), "typed.yaml": documents(true), "values.yaml": 'scopes: [typed.read]\nnested: "x"\n' });
    const alone = await converge(service, ["plan", "--from-synth", ".", "--output", "json"], dir);
    expectExit(alone, 2);
    expect(JSON.stringify(parsePlanJson(alone))).toContain("https://synth.example/${var.path}");
    const beside = await converge(service, ["drift", "-f", "typed.yaml", "--var-file", "values.yaml", "--var", "timeout=15000", "--from-synth", ".", "--output", "json"], dir);
    expectExit(beside, 2);
    const report = JSON.parse(beside.stdout) as { resources: Array<{ outcome: string; fields: Array<{ path: string; desired: unknown }> }> };
    expect(report.resources.filter((resource) => resource.outcome === "missing").flatMap((resource) => resource.fields.map((field) => field.desired)))
      .toEqual(expect.arrayContaining(["https://synth.example/${var.path}", 15000]));
    const refused = await converge(service, ["plan", "--from-synth", ".", "--var", "path=x"], dir);
    expectExit(refused, 1);
    expect(refused.stderr).toContain("a cdktf synth's output, --from-synth, is a program's result and is never interpolated");
  });

  it("sends the services' own ${…} as written when no variable is given", async () => {
    const service = await services.start();
    const dir = await dirs.make("untyped");
    await writeFiles(dir, { "plain.yaml": documents(false) });
    const applied = await converge(service, ["apply", "-f", "plain.yaml", "--auto-approve"], dir);
    expectExit(applied, 0);
    expect(applied.stderr).toBe("");
    const created = writeRequests(service).find((request) => request.operation === "CreateIntegration")!.body as Record<string, unknown>;
    expect(created).toMatchObject({
      integrationUri: "https://${stageVariables.host}/typed",
      requestParameters: { "overwrite:header.x-route": "${request.method} ${request.path}" },
    });
  });
});
