import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { E2E_TIMEOUT_MS, useE2eResources } from "../e2e/e2e-fixture.js";
import { PACKAGE_ROOT } from "../support/converge-command.js";
import { codeBlocks, commandLines, describeLine, runReadmeLines, type LineResult, type ReadmeRunOptions } from "../support/readme-commands.js";
import { assertTerraformAvailable } from "../support/terraform.js";

/**
 * The docs' commands that run terraform, as written (test/support/readme-commands.ts):
 * examples/terraform-hcl/README.md (a fresh `converge serve`, `converge provider install` into the
 * session's HOME, terraform init, apply answered yes at its prompt, a plan in sync, destroy) and
 * docs/manual/export.md's two blocks (codifying what drift found; bringing an estate under
 * terraform), after the lines that make the estate they start from. Not in the packaged project:
 * the release's executable refuses `provider install` (it installs a checkout's provider).
 */

const { dirs } = useE2eResources();

describe("examples/terraform-hcl/README.md", () => {
  it("runs every command from a fresh converge serve: init with no network, apply, a plan in sync, destroy with the Region's warning", { timeout: E2E_TIMEOUT_MS * 5 }, async () => {
    assertTerraformAvailable();
    const scratch = await dirs.make("terraform-hcl-readme");
    const cwd = join(scratch, "terraform-hcl");
    await mkdir(cwd);
    await cp(join(PACKAGE_ROOT, "examples/terraform-hcl/main.tf"), join(cwd, "main.tf"));
    const lines = commandLines(await readFile(join(PACKAGE_ROOT, "examples/terraform-hcl/README.md"), "utf8"));
    const results = await runReadmeLines(lines, { cwd, scratch, answers: { "terraform apply": "yes", "terraform destroy": "yes" }, timeoutMs: 400_000 });
    for (const result of results) expect(result.line.exits, describeLine(result)).toContain(result.code);
    const output = (part: string) => results.find((result) => result.line.text.startsWith(part))!.output;
    expect(output("terraform init")).toContain("Terraform has been successfully initialized!");
    expect(output("terraform apply")).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
    expect(output("terraform apply")).not.toContain("adopts a live resource");
    expect(output("terraform plan")).toContain("No changes.");
    expect(output("terraform destroy")).toContain("set enabled = false and apply before removing the resource");
    expect(output("terraform destroy")).toMatch(/Destroy complete! Resources: \d+ destroyed/);
  });
});

/** The lines that make the estate export.md's blocks start from: a fresh serve, the examples applied as `infra`, a route made by hand, the provider installed. */
const ESTATE = commandLines(`\`\`\`sh
npx converge serve --port 4566 &
export CONVERGE_ENDPOINT=http://127.0.0.1:4566 CONVERGE_TOKEN=demo-admin-token
npx converge provider install
converge apply -f infra --auto-approve
curl -sS --fail-with-body -X POST "$CONVERGE_ENDPOINT/v2/apis/a1b2c3d4e5/routes" -H "authorization: Bearer $CONVERGE_TOKEN" -H 'content-type: application/json' -d '{"routeKey": "GET /by-hand"}'
\`\`\`
`);

/** export.md's ```sh block `block` after the estate's lines, in a directory holding examples/desired-state as `infra`; every line's exit as noted. */
async function exportBlock(block: number, options: Pick<ReadmeRunOptions, "skip" | "answers"> = {}): Promise<LineResult[]> {
  assertTerraformAvailable();
  const scratch = await dirs.make("export-doc");
  const cwd = join(scratch, "work");
  await cp(join(PACKAGE_ROOT, "examples/desired-state"), join(cwd, "infra"), { recursive: true });
  const doc = commandLines(await readFile(join(PACKAGE_ROOT, "docs/manual/export.md"), "utf8"), [block]);
  const results = await runReadmeLines([...ESTATE, ...doc], { cwd, scratch, timeoutMs: 400_000, ...options });
  for (const result of results) expect(result.line.exits, describeLine(result)).toContain(result.code);
  return results;
}

describe("docs/manual/export.md", () => {
  it("codifies what drift found unmanaged, as terraform with import blocks and as documents, as written", { timeout: E2E_TIMEOUT_MS * 5 }, async () => {
    const results = await exportBlock(0);
    const output = (part: string) => results.find((result) => result.line.text.includes(part))!.output;
    expect(output("--report drift.json")).toContain("Route/a1b2c3d4e5/GET /by-hand unmanaged");
    expect(output("(cd codified")).toContain("Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.");
    expect(results.at(-1)!.output).toContain("No drift.");
  });

  it("brings the estate under terraform: imports only, then no changes, as written", { timeout: E2E_TIMEOUT_MS * 5 }, async () => {
    const results = await exportBlock(1, {
      skip: { "export CONVERGE_ENDPOINT=https://…": "placeholders for your endpoint and token: the session exported the test service's", "converge provider install                      # once": "installed by the estate's lines" },
      answers: { "terraform apply         # imports only": "yes" },
    });
    const output = (part: string) => results.find((result) => result.line.text.startsWith(part))!.output;
    expect(output("terraform plan          #")).toMatch(/Plan: \d+ to import, 0 to add, 0 to change, 0 to destroy\./);
    expect(output("terraform apply")).toMatch(/Apply complete! Resources: \d+ imported, 0 added, 0 changed, 0 destroyed/);
    expect(output("terraform plan -detailed-exitcode")).toContain("No changes.");
  });
});

/**
 * A doc's terraform commands (its ```sh block `sh`) in a directory holding its ```hcl block `hcl` as
 * main.tf, as the doc says, on a fresh serve of the demo world.
 */
async function terraformSection(path: string, sh: number, hcl: number): Promise<Array<{ readonly text: string; readonly code: number; readonly output: string }>> {
  assertTerraformAvailable();
  const text = await readFile(join(PACKAGE_ROOT, path), "utf8");
  const scratch = await dirs.make("terraform-section");
  const cwd = join(scratch, "work");
  await mkdir(cwd);
  const serve = commandLines("```sh\nnpx converge serve --port 4566 &\nexport CONVERGE_ENDPOINT=http://127.0.0.1:4566\n```\n");
  const results = await runReadmeLines([...serve, ...commandLines(text, [sh])], {
    cwd, scratch, timeoutMs: 400_000, files: { "main.tf": codeBlocks(text, "hcl")[hcl]! }, answers: { "terraform apply": "yes" },
  });
  for (const result of results) expect(result.line.exits, describeLine(result)).toContain(result.code);
  return results.map((result) => ({ text: result.line.text, code: result.code, output: result.output }));
}

describe("terraform in README.md and docs/manual/terraform-provider.md", () => {
  it.each([
    ["README.md", 3, 0],
    ["docs/manual/terraform-provider.md", 0, 0],
  ])("%s: provider install, init and apply of the configuration it shows, as written", { timeout: E2E_TIMEOUT_MS * 5 }, async (path, sh, hcl) => {
    const results = await terraformSection(path, sh, hcl);
    expect(results.find((result) => result.text.startsWith("terraform init"))!.output).toContain("Terraform has been successfully initialized!");
    expect(results.find((result) => result.text.includes("terraform apply"))!.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
  });
});
