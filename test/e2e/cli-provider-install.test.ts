import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { terraformPlatform } from "../../src/cli/provider-install.js";
import { packageVersion } from "../../src/cli/release/package-version.js";
import { runProcess } from "../support/run-process.js";
import { builtCliPath } from "../support/serve-process.js";

/** `converge provider install`: the executable where terraform's implied local mirror (and OpenTofu's host in it) has it. */
describe("converge provider install", () => {
  let home: string;
  const version = packageVersion();
  const platform = terraformPlatform();
  const install = (args: string[] = []) => runProcess(process.execPath, [builtCliPath(), "provider", "install", "--wrapper", ...args], { env: { PATH: process.env.PATH ?? "", HOME: home } });

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "converge-install-"));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("writes an executable for terraform and one for OpenTofu under $HOME/.terraform.d/plugins, and says how to use it", async () => {
    const result = await install();
    expect(result.code, result.stderr).toBe(0);
    for (const host of ["registry.terraform.io", "registry.opentofu.org"]) {
      const executable = join(home, ".terraform.d/plugins", host, "converge/converge", version, platform, `terraform-provider-converge_v${version}`);
      expect((await stat(executable)).mode & 0o777).toBe(0o755);
      const script = await readFile(executable, "utf8");
      expect(script).toMatch(/^#!\/bin\/sh\n/);
      expect(script).toContain(`exec '${process.execPath}' '`);
      expect(script).toContain("/dist/src/provider/main.js' \"$@\"");
    }
    expect(result.stdout).toContain(`      converge = {\n        source  = "converge/converge"\n        version = "${version}"\n      }\n`);
  });

  it("installs into another filesystem mirror with --dir", async () => {
    const mirror = join(home, "mirror");
    const result = await install(["--dir", mirror]);
    expect(result.code, result.stderr).toBe(0);
    await stat(join(mirror, "registry.terraform.io/converge/converge", version, platform, `terraform-provider-converge_v${version}`));
    expect(result.stdout).toContain("filesystem_mirror");
  });

  it("refuses to serve when terraform did not start it (no magic cookie), saying so", async () => {
    const executable = join(home, ".terraform.d/plugins/registry.terraform.io/converge/converge", version, platform, `terraform-provider-converge_v${version}`);
    const result = await runProcess(executable, [], { env: { PATH: process.env.PATH ?? "" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/plugin/i);
    expect(result.stdout).toBe("");
  });

  it.each([
    ["linux", "x64", "linux_amd64"],
    ["linux", "arm64", "linux_arm64"],
    ["darwin", "arm64", "darwin_arm64"],
  ] as const)("names %s %s as terraform does (%s)", (os, arch, expected) => {
    expect(terraformPlatform(os, arch)).toBe(expected);
  });

  it("rejects a platform terraform's shell-script provider cannot run on, naming it", () => {
    expect(() => terraformPlatform("win32", "x64")).toThrow("this machine is win32 x64");
  });
});
