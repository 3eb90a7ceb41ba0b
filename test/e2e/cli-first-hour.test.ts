import { existsSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, type CliResult } from "../support/cli.js";
import { convergeCommandLine } from "../support/converge-command.js";
import { runProcess } from "../support/run-process.js";
import {
  ADMIN_TOKEN, E2E_TIMEOUT_MS, ENVIRONMENTS_DIR, ORDERS_API, convergedExamples, converge, createIntegrationOverHttp, expectExit, liveRoute, useE2eResources, writeFiles,
} from "./e2e-fixture.js";

/**
 * The errors a newcomer meets in the first hour (issue 52), each through the real CLI: what it says
 * (the mistake, what to do, where a value came from), that it fits in a few lines, and that it
 * changed and read nothing it should not have.
 */

const { services, dirs } = useE2eResources();

/** The lines of stderr, which must be few: an error is one screen, never the help around it. */
function fewLines(result: CliResult, most = 4): string[] {
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines.length, result.stderr).toBeLessThanOrEqual(most);
  expect(result.stderr).not.toMatch(/\bundefined\b|\bnothing\b|Usage: converge/);
  return lines;
}

const offline = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) => runCli(args, { cwd, env });

describe("usage errors", { timeout: E2E_TIMEOUT_MS }, () => {
  it("refuses drift --output junit naming --report drift.xml, in 3 lines", async () => {
    const result = await offline(["drift", "-f", ".", "--output", "junit"], await dirs.make());
    expectExit(result, 1);
    expect(fewLines(result, 3)).toEqual([
      'converge: --output "junit" is not valid: expected one of text, json, markdown',
      "  a report file is written with --report drift.xml (its extension names the format: .xml JUnit, .json, .md, .html); --output is what is printed on stdout",
      "Run 'converge drift --help' for usage.",
    ]);
  });

  it("refuses apply --auto-aprove with the close match, not the help", async () => {
    const result = await offline(["apply", "-f", ".", "--auto-aprove"], await dirs.make());
    expectExit(result, 1);
    expect(fewLines(result, 3)).toEqual(["converge: unknown option --auto-aprove", "  did you mean --auto-approve?", "Run 'converge apply --help' for usage."]);
  });

  it("refuses plan DIR naming -f DIR", async () => {
    const result = await offline(["plan", "examples/desired-state"], await dirs.make());
    expectExit(result, 1);
    expect(fewLines(result, 3)[1]).toBe("  desired-state files and directories are given with -f: converge plan -f examples/desired-state");
  });

  it.each([
    ["a directory", "desired", /^converge: desired is a directory, not a plan file: .*converge apply -f desired$/],
    ["a YAML file", "desired/orders.yaml", /^converge: desired\/orders\.yaml is YAML, not a plan file: .*converge apply -f desired\/orders\.yaml$/],
    ["JSON documents", "desired/doc.json", /^converge: desired\/doc\.json holds no plan \(no formatVersion and actions\), not a plan file: .*converge apply -f desired\/doc\.json$/],
  ])("refuses apply with %s where a plan file is expected, naming -f, before any request", async (_what, path, message) => {
    const service = await services.start();
    const dir = await dirs.make();
    await mkdir(join(dir, "desired"));
    await writeFiles(join(dir, "desired"), {
      "orders.yaml": `# yaml-language-server: $schema=x\nkind: Api\napi: ${ORDERS_API}\n`,
      "doc.json": `[{"kind": "Api", "api": "${ORDERS_API}"}]\n`,
    });
    const result = await converge(service, ["apply", path, "--auto-approve"], dir);
    expectExit(result, 1);
    expect(fewLines(result, 1)[0]).toMatch(message);
    expect(service.requests.count()).toBe(0);
  });
});

describe("system errors in converge's words", { timeout: E2E_TIMEOUT_MS }, () => {
  it("refuses serve on a port in use, naming the port and --port", async () => {
    const service = await services.start();
    const port = new URL(service.url).port;
    const result = await offline(["serve", "--port", port], await dirs.make());
    expectExit(result, 1);
    expect(fewLines(result, 1)).toEqual([`converge: cannot listen on 127.0.0.1:${port}: the port is in use (another converge serve?); stop what holds it, or pick another port with --port PORT (--port 0 picks a free one)`]);
  });

  it("refuses serve --world of no such file, naming the flag and the path", async () => {
    const dir = await dirs.make();
    const result = await offline(["serve", "--port", "0", "--world", "nope.json"], dir);
    expectExit(result, 1);
    expect(fewLines(result, 1)[0]).toBe(`converge: --world nope.json: no such file or directory (ENOENT); check the path, relative to the working directory ${dir}`);
  });

  it("says a missing -f file cannot be read, apart from documents that are not valid", async () => {
    const result = await offline(["validate", "-f", "missing.yaml"], await dirs.make());
    expectExit(result, 1);
    expect(fewLines(result, 2)[0]).toBe("converge: cannot read the desired state (1 problem):");
  });

  it("prints validate --output json's problems once on a terminal: the JSON, and one line on stderr", async () => {
    const dir = await dirs.make();
    await writeFiles(dir, { "bad.yaml": "kind: Route\nspec:\n  routeKey: GET /x\n" });
    const piped = await offline(["validate", "-f", ".", "--output", "json"], dir);
    expectExit(piped, 1);
    expect((JSON.parse(piped.stdout) as { error: { problems: unknown[] } }).error.problems).toHaveLength(1);
    // stdout in a file (a CI job's report): the problems are in the job's log too
    expect(fewLines(piped, 2)[1]).toMatch(/^ {2}bad\.yaml:1:1: api: api is required/);
    // on a terminal (util-linux script's pty): the JSON, then one line, and no problem twice
    const command = `${convergeCommandLine()} validate -f . --output json`;
    const terminal = await runProcess("/usr/bin/script", ["-qfec", command, "/dev/null"], { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir, NO_COLOR: "1", TERM: "dumb" } });
    expect(terminal.code).toBe(1);
    const lines = terminal.stdout.replace(/\r/g, "").trimEnd().split("\n");
    expect(lines.at(-1)).toBe("converge: desired state is not valid (1 problem): listed above (--output json)");
    expect(terminal.stdout.match(/api is required/g)).toHaveLength(1);
  });
});

describe("documents that do not fit the live state", { timeout: E2E_TIMEOUT_MS }, () => {
  it("says examples/environments planned on the demo world names APIs it does not have, apart from invalid documents", async () => {
    const service = await services.start();
    const dir = await dirs.make();
    await cp(ENVIRONMENTS_DIR, dir, { recursive: true });
    const result = await converge(service, ["plan", "-f", "desired-state", "--var-file", "envs/dev.yaml"], dir);
    expectExit(result, 1);
    const lines = fewLines(result, 7);
    expect(lines[0]).toBe("converge: desired state cannot be planned against the live state (6 problems):");
    expect(lines[1]).toMatch(/^ {2}desired-state\/orders-api\.yaml:\d+:1: api: no API is named "orders-dev" in this account \(converge manages an API's routes and integrations, never the API itself: create it first, or check the endpoint and token\)$/);
    // in the order of the file's lines, as numbers: line 8 before line 14
    const listedLines = lines.slice(1).map((line) => Number(/orders-api\.yaml:(\d+):/.exec(line)?.[1]));
    expect(listedLines).toEqual([8, 14, 28, 38, 48, 58]);
  });
});

describe("values named by where they came from", { timeout: E2E_TIMEOUT_MS }, () => {
  it("names CONVERGE_ENDPOINT, not --endpoint, when the environment gave the bad value", async () => {
    const dir = await dirs.make();
    await writeFiles(dir, { "api.yaml": `kind: Api\napi: ${ORDERS_API}\n` });
    const result = await offline(["plan", "-f", "."], dir, { CONVERGE_ENDPOINT: "127.0.0.1:4566", CONVERGE_TOKEN: ADMIN_TOKEN });
    expectExit(result, 1);
    expect(fewLines(result, 1)).toEqual(['converge: CONVERGE_ENDPOINT "127.0.0.1:4566" is not valid: expected an http(s) origin such as http://127.0.0.1:4566']);
  });

  it.each([
    ["CONVERGE_TOKEN", [], "the token from CONVERGE_TOKEN was refused"],
    ["a --token-file", ["--token-file", "token.txt"], "the token from the token file token.txt (--token-file) was refused"],
  ])("names %s when the service refuses an unknown token", async (_what, flags, named) => {
    const service = await services.start();
    const dir = await dirs.make();
    await writeFiles(dir, { "api.yaml": `kind: Api\napi: ${ORDERS_API}\n`, "token.txt": "wrong-token-0123" });
    const result = await converge(service, ["plan", "-f", "api.yaml", ...flags], dir, "wrong-token-0123");
    expectExit(result, 1);
    const lines = fewLines(result, 2);
    expect(lines[0]).toMatch(/^converge: apigateway Get\w+ failed: 403 AccessDeniedException: /);
    expect(lines[1]).toBe(`  ${named}: check that it is a token of this endpoint, and that its identity is allowed ${/apigateway Get\w+/.exec(lines[0]!)![0].replace(" ", ":")}; give another with CONVERGE_TOKEN, --token-file FILE or --token-env NAME`);
    expect(result.stderr).not.toContain("wrong-token-0123");
  });
});

describe("fields of documents", { timeout: E2E_TIMEOUT_MS }, () => {
  it.each([
    ["a misspelt field", "kind: Route\napi: a1b2c3d4e5\nspec:\n  routeKey: GET /x\n  authorizationScope: [a]\n", 'doc.yaml:5:3: spec.authorizationScope: unknown field "authorizationScope": did you mean "authorizationScopes"?'],
    ["a missing api", "kind: Route\nspec:\n  routeKey: GET /x\n", "doc.yaml:1:1: api: api is required: expected an apiId (10 lower-case letters or digits) or {name: <api name>}"],
    ["a missing field", "kind: AlternateContact\nspec:\n  type: SECURITY\n  name: a\n  emailAddress: a@b.co\n  phoneNumber: \"1\"\n", "doc.yaml:2:1: spec.title: spec.title is required: expected string"],
    ["a misspelt kind", "kind: Rout\napi: a1b2c3d4e5\nspec: {routeKey: GET /x}\n", 'doc.yaml:1:1: kind: kind "Rout" is not valid: expected one of AlternateContact, Integration, Route, RegionOptIn, Api (did you mean Route?)'],
  ])("says %s with its close match, never undefined or nothing", async (_what, text, problem) => {
    const dir = await dirs.make();
    await writeFiles(dir, { "doc.yaml": text });
    const result = await offline(["validate", "-f", "doc.yaml"], dir);
    expectExit(result, 1);
    expect(fewLines(result, 2)).toEqual(["converge: desired state is not valid (1 problem):", `  ${problem}`]);
  });
});

describe("reports", { timeout: E2E_TIMEOUT_MS }, () => {
  it("makes --report's folder: the drift found, its exit code and its text report are kept", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    const changed = await runCli(["apply", "-f", ".", "--auto-approve"], { cwd: dir, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN } });
    expectExit(changed, 0);
    await writeFile(join(dir, "contacts.yaml"), (await readFile(join(dir, "contacts.yaml"), "utf8")).replace("+1 555 0100", "+1 555 0177"));
    const result = await converge(service, ["drift", "-f", ".", "--report", "out/deeper/drift.xml"], dir);
    expectExit(result, 2);
    expect(result.stdout).toContain("AlternateContact/self/SECURITY drifted");
    expect(await readFile(join(dir, "out/deeper/drift.xml"), "utf8")).toContain("<testsuite");
  });

  it("refuses a --report path whose folder cannot be made before any read", async () => {
    const service = await services.start();
    const dir = await dirs.make();
    await writeFiles(dir, { "api.yaml": `kind: Api\napi: ${ORDERS_API}\n`, "file": "" });
    const result = await converge(service, ["drift", "-f", ".", "--report", "file/drift.xml"], dir);
    expectExit(result, 1);
    expect(fewLines(result, 1)[0]).toBe("converge: --report file/drift.xml: cannot write there: a file of that name is in the way, where a directory was needed (EEXIST)");
    expect(service.requests.count()).toBe(0);
  });

  it("makes plan --out's folder", async () => {
    const service = await services.start();
    const dir = await dirs.make();
    await writeFiles(dir, { "api.yaml": `kind: Api\napi: ${ORDERS_API}\n` });
    const result = await converge(service, ["plan", "-f", "api.yaml", "--out", "plans/today/plan.json"], dir);
    expectExit(result, 0);
    expect(existsSync(join(dir, "plans/today/plan.json"))).toBe(true);
  });

  it("says coverage is unknown, never 100%, beside resources that could not be read", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    const result = await converge(service, ["drift", "-f", "."], dir, "demo-security-token");
    expectExit(result, 3);
    expect(result.stdout).toMatch(/; coverage unknown \(\d+ could not be read; \d+ of \d+ live resources read managed\)\.\n/);
    expect(result.stdout).not.toContain("coverage 100%");
    const reader = await converge(service, ["drift", "-f", "."], dir, "demo-reader-token");
    expectExit(reader, 0);
  });
});

describe("two managers of one resource", { timeout: E2E_TIMEOUT_MS }, () => {
  it("warns in plan and apply with --state of a route a terraform state manages too, as drift's conflict", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    const route = await liveRoute(service, ORDERS_API, "GET /orders");
    const attributes = {
      id: `${ORDERS_API}/${route.routeId}`, api_id: ORDERS_API, route_id: route.routeId, api_gateway_managed: false, route_key: "GET /orders",
      target: route.target, authorization_type: "JWT", authorizer_id: "jwtauth1", authorization_scopes: ["orders.read"], api_key_required: null,
      model_selection_expression: null, operation_name: null, request_models: null, request_parameters: null, route_response_selection_expression: null,
    };
    const state = { version: 4, terraform_version: "1.11.4", serial: 1, lineage: "x", outputs: {}, check_results: null, resources: [
      { mode: "managed", type: "converge_route", name: "get_orders", provider: 'provider["registry.terraform.io/converge/converge"]', instances: [{ schema_version: 0, sensitive_attributes: [], attributes }] },
    ] };
    const stateDir = await dirs.make("state");
    await writeFile(join(stateDir, "terraform.tfstate"), JSON.stringify(state, null, 2));
    const warning = `converge: warning: Route/${ORDERS_API}/GET /orders claimed by 2 sources (orders-api.yaml:30; ${relative(dir, join(stateDir, "terraform.tfstate"))} converge_route.get_orders): two managers will fight over it; keep it in one of them`;
    for (const args of [["plan"], ["apply", "--auto-approve"]]) {
      const result = await converge(service, [...args, "-f", ".", "--state", join(stateDir, "terraform.tfstate")], dir);
      expectExit(result, 0);
      expect(result.stderr.split("\n"), result.stderr).toContain(warning);
    }
    const without = await converge(service, ["plan", "-f", "."], dir);
    expect(without.stderr).not.toContain("warning");
  });

  it("leaves to a state the twin integration it pins: the documents' plan goes on with --state, and says how without it", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    // what terraform-hcl's configuration makes beside the documents: the same backend, other values
    const twin = await createIntegrationOverHttp(service, ORDERS_API, {
      integrationType: "HTTP_PROXY", integrationUri: "https://orders.internal.example/v2", integrationMethod: "ANY", payloadFormatVersion: "1.0", description: "made by terraform",
    });
    const attributes = {
      id: `${ORDERS_API}/${twin.integrationId}`, api_id: ORDERS_API, integration_id: twin.integrationId, api_gateway_managed: false,
      integration_type: "HTTP_PROXY", integration_uri: "https://orders.internal.example/v2", integration_method: "ANY", payload_format_version: "1.0",
      timeout_in_millis: null, connection_type: null, connection_id: null, description: "made by terraform", credentials_arn: null, integration_subtype: null,
      passthrough_behavior: null, content_handling_strategy: null, template_selection_expression: null, request_templates: null, request_parameters: null,
      response_parameters: null, tls_config: null,
    };
    const state = { version: 4, terraform_version: "1.11.4", serial: 1, lineage: "x", outputs: {}, check_results: null, resources: [
      { mode: "managed", type: "converge_integration", name: "orders_backend", provider: 'provider["registry.terraform.io/converge/converge"]', instances: [{ schema_version: 0, sensitive_attributes: [], attributes }] },
    ] };
    await writeFile(join(dir, "..", `${twin.integrationId}.tfstate`), JSON.stringify(state, null, 2));
    const refused = await converge(service, ["plan", "-f", "."], dir);
    expectExit(refused, 1);
    expect(refused.stderr).toContain("give its state (terraform state pull | converge plan -f … --state -) and the twin it holds is left to it");
    const planned = await converge(service, ["plan", "-f", ".", "--state", join("..", `${twin.integrationId}.tfstate`)], dir);
    expectExit(planned, 0);
    expect(planned.stderr).not.toContain("warning");
  });
});
