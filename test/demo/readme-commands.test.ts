import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { E2E_TIMEOUT_MS, useE2eResources } from "../e2e/e2e-fixture.js";
import { PACKAGE_ROOT } from "../support/converge-command.js";
import { commandLines, describeLine, runReadmeLines, type LineResult } from "../support/readme-commands.js";

/**
 * The commands of the README and of the examples' READMEs, run as written (test/support/readme-commands.ts:
 * the ```sh blocks in order, in one bash session, from a fresh `converge serve` where the doc starts
 * one), each line's exit code checked against its `# exit N` note. A line the test cannot run here is
 * skipped with its reason. examples/terraform-hcl's README: terraform-doc-commands.test.ts (it needs a
 * checkout: `converge provider install`); examples/cdktf-app's: test/constructs/example-app.test.ts
 * (cdktf-cli is downloaded by npx, which these machines cannot).
 */

const { dirs } = useE2eResources();

async function doc(path: string): Promise<string> {
  return readFile(join(PACKAGE_ROOT, path), "utf8");
}

/** A scratch directory and a working directory holding a copy of `copies` (paths of the checkout, kept relative). */
async function session(copies: ReadonlyArray<string>): Promise<{ cwd: string; scratch: string }> {
  const scratch = await dirs.make("readme");
  const cwd = join(scratch, "work");
  await mkdir(cwd);
  for (const path of copies) await cp(join(PACKAGE_ROOT, path), join(cwd, path), { recursive: true });
  return { cwd, scratch };
}

function expectAsNoted(results: ReadonlyArray<LineResult>): void {
  expect(results.length).toBeGreaterThan(0);
  for (const result of results) expect(result.line.exits, describeLine(result)).toContain(result.code);
}

const output = (results: ReadonlyArray<LineResult>, part: string) => results.find((result) => result.line.text.includes(part))?.output ?? "";

describe("README.md", () => {
  it("runs the Quickstart's desired-state path, the change by hand and the drift it finds, as written", { timeout: E2E_TIMEOUT_MS * 3 }, async () => {
    const results = await runReadmeLines(commandLines(await doc("README.md")), {
      ...await session(["examples"]),
      skip: {
        "npm ci": "installs and builds the checkout the tests run from",
        "npm test": "the whole suite",
        "npm start": "converge demo: test/demo/demo.test.ts runs it",
        "npx converge provider install": "the terraform path, from its own fresh serve: terraform-doc-commands.test.ts runs it with the README's configuration as main.tf",
        "terraform init": "the terraform path (as above)",
        "terraform apply": "the terraform path (as above)",
        "terraform state pull": "needs a terraform root module's state: test/e2e/drift-estate.test.ts runs drift --state - --unmanaged all",
        "--state-file converge-state.jsonl": "a serve in the foreground, instead of the Quickstart's (test/service/durability.test.ts runs --state-file)",
      },
    });
    expectAsNoted(results);
    expect(output(results, "reconcile -f examples/desired-state --once")).toContain("cycle success");
    expect(output(results, "grep '^converge_resources'")).toMatch(/converge_resources\{kind="Route",state="in-sync"\} \d+/);
    expect(output(results, "drift -f examples/desired-state        # exit 2")).toContain("AlternateContact/self/BILLING drifted");
    expect(output(results, "--report drift.xml")).toContain("No drift.");
  });
});

describe("examples/continuous-reconcile/README.md", () => {
  it("runs the reconciler on one machine as written: the change by hand put back, then a clean stop", { timeout: E2E_TIMEOUT_MS * 2 }, async () => {
    const lines = commandLines(await doc("examples/continuous-reconcile/README.md"), [0]);
    const results = await runReadmeLines(lines, await session(["examples"]));
    expectAsNoted(results);
    expect(output(results, "grep '\"reason\": \"corrected'")).toMatch(/"reason": "corrected in cycle \d+ \(update\)"/);
  });
});

describe("examples/environments/README.md (and docs/manual/desired-state.md's line, in the same directory)", () => {
  it("runs every command on the serve of its own world, the saved plan applied at its prompt", { timeout: E2E_TIMEOUT_MS * 3 }, async () => {
    const { cwd, scratch } = await session(["examples/environments"]);
    const lines = [...commandLines(await doc("examples/environments/README.md")), ...commandLines(await doc("docs/manual/desired-state.md"))];
    const results = await runReadmeLines(lines, {
      cwd: join(cwd, "examples/environments"),
      scratch,
      skip: { "ytt ": "ytt is not installed here", "jsonnet ": "jsonnet is not installed here" },
      answers: { "converge apply    plan-prod.json": "yes" },
    });
    expectAsNoted(results);
    expect(output(results, "apply    plan-prod.json")).toMatch(/plan-prod\.json was made with variable files \S*envs\/prod\.yaml/);
    expect(output(results, "apply    plan-prod.json")).toContain("Apply complete:");
  });
});

describe("examples/scheduled-drift/README.md", () => {
  it("reads the whole example estate with the demo world's reader token, and says what a token lacks", { timeout: E2E_TIMEOUT_MS * 2 }, async () => {
    const lines = commandLines(await doc("examples/scheduled-drift/README.md"), [0]);
    const results = await runReadmeLines(lines, await session(["examples"]));
    expectAsNoted(results);
    expect(output(results, "demo-reader-token")).toContain("0 unknown, 23 in sync");
    const security = output(results, "demo-security-token");
    expect(security).toContain("is not authorized to perform apigateway:GetRoutes");
    expect(security).toMatch(/coverage unknown \(\d+ could not be read/);
    expect(security).not.toContain("coverage 100%");
  });
});

describe("docs/manual/calling-services.md", () => {
  it("runs every curl against a fresh converge serve, and drift sees each change by hand", { timeout: E2E_TIMEOUT_MS * 3 }, async () => {
    const results = await runReadmeLines(commandLines(await doc("docs/manual/calling-services.md")), await session(["examples"]));
    expectAsNoted(results);
    expect(output(results, "npx converge serve")).toContain("docs/manual/calling-services.md");
    const curls = results.filter((result) => result.line.text.startsWith("curl "));
    expect(curls.length).toBeGreaterThanOrEqual(10);
    const drifted = output(results, "exit 2: the contact");
    expect(drifted).toContain("AlternateContact/self/BILLING drifted");
    expect(drifted).toMatch(/Route\/a1b2c3d4e5\/GET \/orders drifted/);
    expect(drifted).toMatch(/Route\/a1b2c3d4e5\/GET \/by-hand unmanaged/);
  });
});

describe("examples/ci-apply/README.md", () => {
  it("runs the environments' plan and apply lines with the workflow's variables", { timeout: E2E_TIMEOUT_MS * 2 }, async () => {
    const { cwd, scratch } = await session(["examples"]);
    // the README's lines run where the workflow's job runs them: against an endpoint with the environments' APIs
    const serve = commandLines("```sh\nnpx converge serve --port 4566 --world examples/environments/world.json &\nexport CONVERGE_ENDPOINT=http://127.0.0.1:4566\n```\n");
    const lines = [...serve, ...commandLines(await doc("examples/ci-apply/README.md"))];
    const results = await runReadmeLines(lines, {
      cwd, scratch,
      env: { DESIRED_STATE: "examples/environments/desired-state", ENVIRONMENTS: "examples/environments/envs", CONVERGE_TOKEN: "demo-admin-token" },
    });
    expectAsNoted(results);
    expect(output(results, "apply plan-dev.json")).toContain("Apply complete:");
  });
});
