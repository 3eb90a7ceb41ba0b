import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES } from "../../src/desired/load.js";
import { MAX_NESTING_DEPTH } from "../../src/input-limits/nesting.js";
import type { RunningService } from "../../src/service/index.js";
import { runCli, type CliResult } from "../support/cli.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, ORDERS_API, expectExit, useE2eResources, writeFiles } from "./e2e-fixture.js";

/**
 * Wrong and hostile variables (docs/manual/desired-state.md, "Environments and variables"): each
 * refused before any request (exit 1, the service's request log empty), every problem at once with
 * its file, line and column.
 */

const { services, dirs } = useE2eResources();

const ROUTE = (routeKey: string, extra = "") => `kind: Route\napi: ${ORDERS_API}\nspec:\n  routeKey: ${routeKey}\n${extra}`;

/** `converge plan ARGS` in `cwd` against a fresh service, with extra environment and standard input; and how many requests it made. */
async function planAgainst(args: ReadonlyArray<string>, cwd: string, options: { env?: Record<string, string>; stdin?: string } = {}): Promise<{ result: CliResult; requests: number }> {
  const service: RunningService = await services.start();
  const result = await runCli(["plan", ...args], {
    cwd,
    env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, ...options.env },
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
  return { result, requests: service.requests.count() };
}

function expectRefused({ result, requests }: { result: CliResult; requests: number }): string {
  expectExit(result, 1);
  expect(requests, "requests made").toBe(0);
  return result.stderr;
}

describe.concurrent("variables refused before any request", { timeout: E2E_TIMEOUT_MS }, () => {
  it("refuses an undefined variable, an unset ${var.a:?message} and malformed references, all at once, each at its place", async () => {
    const dir = await dirs.make("undefined");
    await writeFiles(dir, {
      "routes.yaml": [
        ROUTE("GET /${var.path}"),
        ROUTE("GET /orders", "  authorizerId: ${var.a:?give a}\n"),
        ROUTE("GET /bad", "  operationName: ${var.1x}\n"),
        ROUTE("GET /open", "  operationName: x-${var.\n"),
      ].join("---\n"),
    });
    const stderr = expectRefused(await planAgainst(["-f", "routes.yaml"], dir));
    expect(stderr).toContain("desired state is not valid (4 problems)");
    expect(stderr).toContain("routes.yaml:4:3: spec.routeKey: ${var.path}: variable path is not set and has no default: "
      + "give it with --var path=VALUE, in a --var-file, or as the environment variable CONVERGE_VAR_path, or write ${var.path:-DEFAULT}");
    expect(stderr).toContain("routes.yaml:10:3: spec.authorizerId: ${var.a:?give a}: variable a is not set: give a (give it with --var a=VALUE");
    expect(stderr).toContain('routes.yaml:16:3: spec.operationName: "${var.1x}" is not a valid variable reference: expected ${var.NAME}');
    expect(stderr).toContain('routes.yaml:22:3: spec.operationName: "${var." is not a valid variable reference');
  });

  it("refuses a variable file of 100,000 nested lists at the place it nests too deeply", async () => {
    const dir = await dirs.make("deep");
    await writeFiles(dir, { "routes.yaml": ROUTE("GET /${var.path}"), "deep.yaml": `path: ${"[".repeat(100_000)}` });
    const stderr = expectRefused(await planAgainst(["-f", "routes.yaml", "--var-file", "deep.yaml"], dir));
    // the mapping is level 1: the 64th bracket opens level 65
    expect(stderr).toContain(`deep.yaml:1:${6 + MAX_NESTING_DEPTH}: nested too deeply: a list or mapping opens at level ${MAX_NESTING_DEPTH + 1}`);
  });

  it("refuses a 20 MiB variable value as a desired-state file of that size is refused, and on standard input", async () => {
    const dir = await dirs.make("huge");
    const huge = "x".repeat(20 * 1024 * 1024);
    await writeFiles(dir, { "routes.yaml": ROUTE("GET /${var.path}"), "huge.yaml": `path: ${huge}\n` });
    const fromFile = expectRefused(await planAgainst(["-f", "routes.yaml", "--var-file", "huge.yaml"], dir));
    expect(fromFile).toContain(`huge.yaml:1:1: huge.yaml is 20.0 MiB: variable files are limited to ${MAX_FILE_BYTES / 1024 / 1024} MiB each`);
    const fromStdin = expectRefused(await planAgainst(["-f", "-"], dir, { stdin: `${ROUTE("GET /x")}# ${huge}\n` }));
    expect(fromStdin).toContain(`<stdin>:1:1: <stdin> is larger than that: desired-state files are limited to ${MAX_FILE_BYTES / 1024 / 1024} MiB each`);
  });

  it("refuses variables that would grow a file's documents past the file bound (a value used many times)", async () => {
    const dir = await dirs.make("amplified");
    const value = "y".repeat(3 * 1024 * 1024);
    const documents = Array.from({ length: 8 }, (_, i) => ROUTE(`GET /r${i}`, "  operationName: ${var.big}\n")).join("---\n");
    await writeFiles(dir, { "routes.yaml": documents, "big.yaml": `big: ${value}\n` });
    const stderr = expectRefused(await planAgainst(["-f", "routes.yaml", "--var-file", "big.yaml"], dir));
    expect(stderr).toMatch(/routes\.yaml:\d+:3: spec\.operationName: \$\{var\.big\}: substituting variables adds more than 16 MiB to this file's documents/);
    expect(stderr).toContain("(1 problem)");
  });

  it("never reads CONVERGE_TOKEN as a variable, and the token appears in no output", async () => {
    const dir = await dirs.make("token");
    const token = ADMIN_TOKEN;
    await writeFiles(dir, { "routes.yaml": ROUTE("GET /orders", "  authorizerId: ${var.CONVERGE_TOKEN}\n  operationName: ${var.TOKEN:-none}\n") });
    const { result, requests } = await planAgainst(["-f", "routes.yaml"], dir, { env: { CONVERGE_VAR_other: "1" } });
    expectRefused({ result, requests });
    expect(result.stderr).toContain("routes.yaml:5:3: spec.authorizerId: ${var.CONVERGE_TOKEN}: variable CONVERGE_TOKEN is not set and has no default");
    expect(`${result.stdout}${result.stderr}`).not.toContain(token);
    const rendered = await runCli(["render", "-f", "routes.yaml"], { cwd: dir, env: { CONVERGE_TOKEN: token } });
    expectExit(rendered, 1);
    expect(`${rendered.stdout}${rendered.stderr}`).not.toContain(token);
    // nor is a token ever taken from a variable documents may write out
    await writeFiles(dir, { "plain.yaml": ROUTE("GET /orders") });
    const tokenVariable = await planAgainst(["-f", "plain.yaml", "--token-env", "CONVERGE_VAR_token"], dir, { env: { CONVERGE_VAR_token: token } });
    expect(expectRefused(tokenVariable)).toContain("--token-env CONVERGE_VAR_token is not valid: CONVERGE_VAR_* variables give values to ${var.NAME} in documents");
    expect(`${tokenVariable.result.stdout}${tokenVariable.result.stderr}`).not.toContain(token);
  });

  it("refuses standard input named twice, -f - beside --state -, and variables where no -f document takes them", async () => {
    const dir = await dirs.make("flags");
    await writeFiles(dir, { "routes.yaml": ROUTE("GET /orders"), "plan.json": "{}" });
    const twice = expectRefused(await planAgainst(["-f", "-", "-f", "-"], dir, { stdin: ROUTE("GET /orders") }));
    expect(twice).toContain("<stdin>:1:1: standard input is read once: pass -f - once");
    const withState = expectRefused(await planAgainst(["-f", "-", "--state", "-"], dir, { stdin: ROUTE("GET /orders") }));
    expect(withState).toContain("-f - and --state - both read standard input, which can be read once");
    const badFlag = expectRefused(await planAgainst(["-f", "routes.yaml", "--var", "no-equals", "--var", "1x=secret-value"], dir));
    expect(badFlag).toContain('--var "no-equals" is not valid: expected NAME=VALUE');
    expect(badFlag).toContain('--var "1x=…" is not valid');
    expect(badFlag).not.toContain("secret-value");
    const onPlanFile = await runCli(["apply", "plan.json", "--var", "a=1", "--auto-approve"], { cwd: dir, env: { CONVERGE_ENDPOINT: "http://127.0.0.1:9", CONVERGE_TOKEN: ADMIN_TOKEN } });
    expectExit(onPlanFile, 1);
    expect(onPlanFile.stderr).toContain("--var and --var-file shape a plan: plan.json holds its documents with their variables substituted");
    const noDocuments = await runCli(["drift", "--state", "none.tfstate", "--var", "a=1"], { cwd: dir, env: { CONVERGE_ENDPOINT: "http://127.0.0.1:9", CONVERGE_TOKEN: ADMIN_TOKEN } });
    expectExit(noDocuments, 1);
    expect(noDocuments.stderr).toContain("--var and --var-file give values to ${var.NAME} in -f documents: pass -f PATH");
  });

  it("refuses a variable file that is not one mapping of names, naming what it received", async () => {
    const dir = await dirs.make("not-mapping");
    await writeFiles(dir, {
      "routes.yaml": ROUTE("GET /${var.path}"),
      "list.yaml": "- path\n",
      "names.yaml": "path: orders\nbad-name: 1\n",
      "two.yaml": "path: a\n---\npath: b\n",
    });
    const stderr = expectRefused(await planAgainst(["-f", "routes.yaml", "--var-file", "list.yaml", "--var-file", "names.yaml", "--var-file", "two.yaml"], dir));
    expect(stderr).toContain('list.yaml:1:1: a variable file holds one YAML mapping of NAME: value, received ["path"]');
    expect(stderr).toContain('names.yaml:2:1: variable name "bad-name" is not valid: expected a letter or _, then letters, digits or _');
    expect(stderr).toContain("two.yaml:3:1: a variable file holds one YAML mapping of NAME: value, received 2 documents");
  });

  it("refuses a list where a field takes text, and text that is not what a typed field takes, naming the variable", async () => {
    const dir = await dirs.make("types");
    await writeFiles(dir, {
      "routes.yaml": `${ROUTE("GET /orders-${var.scopes}")}---\n${ROUTE("GET /orders", "  apiKeyRequired: ${var.required}\n")}`,
      "values.yaml": "scopes: [a, b]\n",
    });
    const stderr = expectRefused(await planAgainst(["-f", "routes.yaml", "--var-file", "values.yaml", "--var", "required=maybe"], dir));
    expect(stderr).toContain("routes.yaml:4:3: spec.routeKey: ${var.scopes}: variable scopes is a list (from values.yaml), which cannot be part of a text");
    expect(stderr).toContain('routes.yaml:10:3: spec.apiKeyRequired: spec.apiKeyRequired "maybe" is not valid: expected boolean, received string (the value of ${var.required}, from --var)');
  });
});

describe("variables given but not used", { timeout: E2E_TIMEOUT_MS }, () => {
  it("warns about a name from --var or a variable file that no document uses (a typo), not about the environment's", async () => {
    const dir = await dirs.make("unused");
    await writeFiles(dir, { "routes.yaml": ROUTE("GET /${var.path}"), "values.yaml": "path: orders\ntimout: 5\n" });
    const result = await runCli(["validate", "-f", "routes.yaml", "--var-file", "values.yaml", "--var", "regoin=x"], { cwd: dir, env: { CONVERGE_VAR_unrelated: "1" } });
    expectExit(result, 0);
    expect(result.stderr.split("\n").filter(Boolean).sort()).toEqual([
      "converge: warning: values.yaml:2:1: variable timout (from values.yaml) is used by no document: a typo? the documents use path",
      "converge: warning: variable regoin (from --var) is used by no document: a typo? the documents use path",
    ]);
  });
});
