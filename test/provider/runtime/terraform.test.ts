import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { TERRAFORM } from "../../support/terraform.js";
import { TOY_PROVIDER } from "./plugin-process.js";

/**
 * The toy provider under terraform 1.11 itself, found in terraform's implied local mirror of a
 * temporary HOME with an empty CLI configuration and no network, through one life of a resource.
 */

const VERSION = "0.1.0";

let root: string;
let work: string;
let store: string;
let env: Record<string, string>;

function terraform(args: ReadonlyArray<string>, extra: Readonly<Record<string, string>> = {}): Promise<ProcessResult> {
  return runProcess(TERRAFORM, [...args], { cwd: work, env: { ...env, ...extra }, timeoutMs: 120_000 });
}

/** main.tf with the provider and these resource bodies (HCL), each named by its key. */
function configure(items: Readonly<Record<string, string>>): void {
  const resources = Object.entries(items).map(([name, body]) => `resource "toy_item" "${name}" {\n${body}\n}\n`);
  writeFileSync(
    join(work, "main.tf"),
    `terraform {\n  required_providers {\n    toy = { source = "converge/toy" }\n  }\n}\n\nprovider "toy" {\n  store = ${JSON.stringify(store)}\n}\n\n${resources.join("\n")}`,
  );
}

const items = () => JSON.parse(readFileSync(store, "utf8")) as Record<string, Record<string, unknown>>;
/** The ERROR lines of a TF_LOG=trace log (terraform's own and the plugin client's). */
const errorLines = (log: string) => readFileSync(log, "utf8").split("\n").filter((line) => line.includes("[ERROR]"));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "provider-runtime-terraform-"));
  const home = join(root, "home");
  const mirror = join(home, ".terraform.d/plugins/registry.terraform.io/converge/toy", VERSION, "linux_amd64");
  mkdirSync(mirror, { recursive: true });
  const executable = join(mirror, `terraform-provider-toy_v${VERSION}`);
  writeFileSync(executable, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(TOY_PROVIDER)}\n`);
  chmodSync(executable, 0o755);
  writeFileSync(join(root, "cli.tfrc"), "");
  work = join(root, "work");
  mkdirSync(work);
  store = join(root, "store.json");
  env = { PATH: process.env["PATH"] ?? "", HOME: home, TF_CLI_CONFIG_FILE: join(root, "cli.tfrc"), CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1" };
  configure({ alpha: '  name  = "alpha"\n  value = "one"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }' });
  const init = await terraform(["init", "-input=false", "-no-color"]);
  expect(init.stderr).toBe("");
  expect(init.code).toBe(0);
}, 120_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("terraform 1.11 with the toy provider", { timeout: 120_000 }, () => {
  it("applies a create, with no error in terraform's trace log and the plugin's log lines at their level", async () => {
    const log = join(root, "apply.log");
    const apply = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], { TF_LOG: "trace", TF_LOG_PATH: log });
    expect(apply.stderr).toBe("");
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.");
    expect(items()["item-alpha"]).toMatchObject({ name: "alpha", value: "one", tags: { env: "dev" }, size: 1, revision: 1, rule: [{ port: 80, note: "port 80" }] });
    expect(errorLines(log)).toEqual([]);
    expect(readFileSync(log, "utf8")).toMatch(/\[DEBUG\] provider\.terraform-provider-toy_v0\.1\.0: plugin listening: /);
  });

  it("plans no change after the apply (plan -detailed-exitcode is 0)", async () => {
    const plan = await terraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"]);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  });

  it("updates in place", async () => {
    configure({ alpha: '  name  = "alpha"\n  value = "two"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }' });
    const apply = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"]);
    expect(apply.stdout).toContain("toy_item.alpha will be updated in-place");
    expect(apply.stdout).toContain("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.");
    expect(items()["item-alpha"]).toMatchObject({ value: "two", revision: 2 });
  });

  it("replaces the item when its name changes", async () => {
    configure({ alpha: '  name  = "beta"\n  value = "two"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }' });
    const apply = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"]);
    expect(apply.stdout).toContain("toy_item.alpha must be replaced");
    expect(apply.stdout).toContain("# forces replacement");
    expect(apply.stdout).toContain("Apply complete! Resources: 1 added, 0 changed, 1 destroyed.");
    expect(Object.keys(items())).toEqual(["item-beta"]);
  });

  it("sees a change made outside terraform when it refreshes, and plans to undo it", async () => {
    const changed = items();
    changed["item-beta"]!["value"] = "changed outside";
    writeFileSync(store, JSON.stringify(changed));
    const plan = await terraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"]);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ value    = "changed outside" -> "two"');
    const refresh = await terraform(["apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"]);
    expect(refresh.code).toBe(0);
    const show = await terraform(["show", "-json"]);
    const state = JSON.parse(show.stdout) as { values: { root_module: { resources: Array<{ values: Record<string, unknown> }> } } };
    expect(state.values.root_module.resources[0]!.values).toMatchObject({ id: "item-beta", value: "changed outside" });
  });

  it("imports an item made outside terraform", async () => {
    writeFileSync(store, JSON.stringify({ ...items(), "item-gamma": { id: "item-gamma", name: "gamma", value: "made by hand", tags: null, labels: null, size: 3, revision: 1, protected: true, secret: null, rule: [] } }));
    configure({ alpha: '  name  = "beta"\n  value = "changed outside"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }', gamma: '  name      = "gamma"\n  value     = "made by hand"\n  size      = 3\n  protected = true' });
    const imported = await terraform(["import", "-input=false", "-no-color", "toy_item.gamma", "item-gamma"]);
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toContain("Import successful!");
    const plan = await terraform(["plan", "-detailed-exitcode", "-input=false", "-no-color"]);
    expect(plan.stdout).toContain("No changes.");
    expect(plan.code).toBe(0);
  });

  it("refuses at plan time with an error that names the attribute and its line", async () => {
    configure({ alpha: '  name  = "beta"\n  value = "forbidden"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }' });
    const plan = await terraform(["plan", "-input=false", "-no-color"]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain("Error: value is forbidden");
    expect(plan.stderr).toContain("on main.tf line 13, in resource \"toy_item\" \"alpha\":");
    expect(plan.stderr).toContain('13:   value = "forbidden"');

    configure({ alpha: '  name  = "Beta"\n  value = "two"' });
    const validate = await terraform(["validate", "-no-color"]);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain("Error: name must be lower case");
    expect(validate.stderr).toContain('12:   name  = "Beta"');
  });

  it("refuses to destroy a protected item at plan time, then destroys everything, with no error in the trace log", async () => {
    configure({ alpha: '  name  = "beta"\n  value = "changed outside"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }', gamma: '  name      = "gamma"\n  value     = "made by hand"\n  size      = 3\n  protected = true' });
    const refused = await terraform(["destroy", "-auto-approve", "-input=false", "-no-color"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("Error: item is protected");
    expect(refused.stderr).toContain("item-gamma has protected = true");
    expect(Object.keys(items()).sort()).toEqual(["item-beta", "item-gamma"]);

    configure({ alpha: '  name  = "beta"\n  value = "changed outside"\n  tags  = { env = "dev" }\n  rule {\n    port = 80\n  }', gamma: '  name      = "gamma"\n  value     = "made by hand"\n  size      = 3\n  protected = false' });
    const unprotect = await terraform(["apply", "-auto-approve", "-input=false", "-no-color"]);
    expect(unprotect.code).toBe(0);
    const log = join(root, "destroy.log");
    const destroy = await terraform(["destroy", "-auto-approve", "-input=false", "-no-color"], { TF_LOG: "trace", TF_LOG_PATH: log });
    expect(destroy.stderr).toBe("");
    expect(destroy.stdout).toContain("Destroy complete! Resources: 2 destroyed.");
    expect(items()).toEqual({});
    expect(errorLines(log)).toEqual([]);
  });
});
