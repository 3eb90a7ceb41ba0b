import { parseAllDocuments } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { E2E_TIMEOUT_MS, TempDirs, expectExit, writeFiles } from "./e2e-fixture.js";

/**
 * `converge render` (docs/manual/commands.md): the documents as plan sees them, which read back as
 * themselves; where variables come from and which wins (docs/manual/desired-state.md,
 * "Environments and variables"). Offline: render makes no request.
 */

const dirs = new TempDirs();
afterAll(async () => {
  await dirs.cleanup();
});

const CONTACT = `kind: AlternateContact
account: \${var.account}
spec:
  type: SECURITY
  name: \${var.team:-Security} Team
  title: "$\${var.title} literal"
  emailAddress: sec@example.com
  phoneNumber: \${var.phone}
`;

describe.concurrent("converge render", { timeout: E2E_TIMEOUT_MS }, () => {
  it("prints the resolved documents as YAML and as JSON; the YAML read back from standard input renders the same", async () => {
    const dir = await dirs.make("render");
    await writeFiles(dir, { "contact.yaml": CONTACT, "values.yaml": 'account: "222222222222"\nphone: "+1 555 0100"\n' });
    const yaml = await runCli(["render", "-f", "contact.yaml", "--var-file", "values.yaml"], { cwd: dir });
    expectExit(yaml, 0);
    expect(yaml.stderr).toBe("");
    const documents = parseAllDocuments(yaml.stdout).map((document) => document.toJS() as unknown);
    expect(documents).toEqual([{
      kind: "AlternateContact",
      account: "222222222222",
      ensure: "present",
      // the literal text ${var.title} (written $${var.title}) is written escaped, so that converge reads the output back as the same documents
      spec: { type: "SECURITY", name: "Security Team", title: "$${var.title} literal", emailAddress: "sec@example.com", phoneNumber: "+1 555 0100" },
    }]);
    const json = await runCli(["render", "-f", "contact.yaml", "--var-file", "values.yaml", "--output", "json"], { cwd: dir });
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toEqual(documents);
    const again = await runCli(["render", "-f", "-"], { cwd: dir, stdin: yaml.stdout });
    expectExit(again, 0);
    expect(again.stdout).toBe(yaml.stdout);
    const fromJson = await runCli(["render", "-f", "-"], { cwd: dir, stdin: json.stdout });
    expectExit(fromJson, 0);
    expect(fromJson.stdout).toBe(yaml.stdout);
  });

  it("takes CONVERGE_VAR_NAME below --var and --var-file, which win in command-line order", async () => {
    const dir = await dirs.make("precedence");
    await writeFiles(dir, { "contact.yaml": CONTACT, "a.yaml": 'account: "333333333333"\nteam: File A\n', "b.yaml": "team: File B\n" });
    const teamOf = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(["render", "-f", "contact.yaml", "--output", "json", "--var", "phone=+1 555 0100", ...args], { cwd: dir, env });
      expectExit(result, 0);
      return (JSON.parse(result.stdout) as Array<{ account: string; spec: { name: string } }>)[0]!;
    };
    const env = { CONVERGE_VAR_team: "Env", CONVERGE_VAR_account: "222222222222" };
    expect(await teamOf([], env)).toMatchObject({ account: "222222222222", spec: { name: "Env Team" } });
    expect(await teamOf(["--var-file", "a.yaml"], env)).toMatchObject({ account: "333333333333", spec: { name: "File A Team" } });
    expect(await teamOf(["--var-file", "a.yaml", "--var", "team=Flag"], env)).toMatchObject({ spec: { name: "Flag Team" } });
    expect(await teamOf(["--var", "team=Flag", "--var-file", "a.yaml"], env)).toMatchObject({ spec: { name: "File A Team" } });
    expect(await teamOf(["--var-file", "a.yaml", "--var-file", "b.yaml"], env)).toMatchObject({ account: "333333333333", spec: { name: "File B Team" } });
    // an empty value takes the default of ${var.team:-Security}
    expect(await teamOf(["--var", "team="], env)).toMatchObject({ spec: { name: "Security Team" } });
  });

  it("reads text from --var as the field needs it: a number where one is expected, text where text is", async () => {
    const dir = await dirs.make("text-types");
    await writeFiles(dir, {
      "optin.yaml": "kind: RegionOptIn\naccount: ${var.account}\nspec: {region: ap-east-1, enabled: \"${var.enabled}\"}\n",
      "integration.yaml": "kind: Integration\nname: i\napi: a1b2c3d4e5\nspec:\n  integrationType: HTTP_PROXY\n  timeoutInMillis: ${var.timeout:-12000}\n  description: ${var.timeout:-12000}\n",
    });
    const result = await runCli(["render", "-f", ".", "--output", "json", "--var", "account=222222222222", "--var", "enabled=true"], { cwd: dir });
    expectExit(result, 0);
    const [integration, optIn] = JSON.parse(result.stdout) as Array<{ account?: string; spec: Record<string, unknown> }>;
    expect(optIn).toMatchObject({ account: "222222222222", spec: { region: "ap-east-1", enabled: true } });
    expect(integration!.spec).toMatchObject({ timeoutInMillis: 12000, description: "12000" });
  });

  it("locates problems of standard input as <stdin>:line:column", async () => {
    const dir = await dirs.make("stdin");
    const result = await runCli(["validate", "-f", "-"], { cwd: dir, stdin: "kind: RegionOptIn\nspec: {region: ap-east-1, enabled: ${var.on}}\n---\nkind: Nope\n" });
    expectExit(result, 1);
    expect(result.stderr).toContain("<stdin>:2:");
    expect(result.stderr).toContain("<stdin>:4:1: kind: kind \"Nope\" is not valid");
    const valid = await runCli(["validate", "-f", "-", "--var", "on=false"], { cwd: dir, stdin: "kind: RegionOptIn\nspec:\n  region: ap-east-1\n  enabled: ${var.on}\n" });
    expectExit(valid, 0);
    expect(valid.stdout).toBe("1 document in 1 file valid.\n");
  });
});
