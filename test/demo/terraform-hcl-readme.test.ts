import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { E2E_TIMEOUT_MS, useE2eResources } from "../e2e/e2e-fixture.js";
import { PACKAGE_ROOT } from "../support/converge-command.js";
import { commandLines, describeLine, runReadmeLines } from "../support/readme-commands.js";
import { assertTerraformAvailable } from "../support/terraform.js";

/**
 * examples/terraform-hcl/README.md's commands as written (test/support/readme-commands.ts): a fresh
 * `converge serve`, `converge provider install` into the session's HOME, terraform init, apply
 * (answered yes at its prompt), a plan in sync, destroy. Not in the packaged project: the release's
 * executable refuses `provider install` (it installs a checkout's provider).
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
