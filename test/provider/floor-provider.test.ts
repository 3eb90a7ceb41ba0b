import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../cli/release/release-fixture.js";
import { runProcess } from "../support/run-process.js";
import { describeTerraform, mirroredExecutable, planLine, providerBlock, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS } from "./terraform-fixture.js";

/**
 * The benchmark's protocol floor (test/bench/floor-provider.ts), as the Go floor's bench and the
 * terraform-provider experiment run it (docs/manual/benchmarks.md, "issue 32's sixth pass"): converge's schemas served by the runtime with no work.
 * Its numbers are only worth quoting while terraform can use it: an apply from empty fills what is
 * unknown, the no-change plan after it has nothing to do, and it never calls a service (there is
 * none here). Run as it is, and packaged as the release is (test/bench/packaged-floor.ts).
 */
const FLOOR = join(PACKAGE_ROOT, "dist/test/bench/floor-provider.js");
const root = mkdtempSync(join(tmpdir(), "converge-floor-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CONFIG = `${providerBlock()}
resource "converge_integration" "backend" {
  api_id                 = "floorapi01"
  integration_type       = "HTTP_PROXY"
  integration_uri        = "https://svc.internal.example/api"
  integration_method     = "ANY"
  payload_format_version = "1.0"
}

resource "converge_route" "route" {
  api_id    = "floorapi01"
  route_key = "GET /orders/{id}"
  target    = "integrations/\${converge_integration.backend.integration_id}"
}
`;

/** A HOME whose implied local mirror holds `install` as the provider, and a directory using it. */
function floorDir(name: string, install: (executable: string) => void): TerraformDir {
  const home = join(root, `${name}-home`);
  const executable = mirroredExecutable(home);
  mkdirSync(dirname(executable), { recursive: true });
  install(executable);
  const cliConfig = join(root, `${name}.tfrc`);
  writeFileSync(cliConfig, "");
  // no endpoint and no token: the floor configures nothing and reads nothing
  return new TerraformDir({ root, home, cliConfig }, name, {});
}

async function appliesAndPlansNothing(dir: TerraformDir): Promise<void> {
  dir.write(CONFIG);
  const init = await dir.init();
  expect(init.code, describeTerraform(init)).toBe(0);
  const applied = await dir.apply();
  expect(applied.code, describeTerraform(applied)).toBe(0);
  expect(planLine(applied)).toBe("Plan: 2 to add, 0 to change, 0 to destroy.");
  const integration = dir.attributes("converge_integration.backend");
  expect(integration.integration_id).toMatch(/^floor\d+$/);
  expect(dir.attributes("converge_route.route").target).toBe(`integrations/${String(integration.integration_id)}`);
  const planned = await dir.plan();
  expect(planned.code, describeTerraform(planned)).toBe(0);
  expect(planLine(planned)).toBe("No changes.");
}

describe("the protocol floor of the benchmarks", () => {
  it("serves terraform from the checkout: an apply from empty, then a no-change plan", async () => {
    const dir = floorDir("checkout", (executable) => {
      writeFileSync(executable, `#!/bin/sh\nexec '${process.execPath}' '${FLOOR}' "$@"\n`);
      chmodSync(executable, 0o755);
    });
    await appliesAndPlansNothing(dir);
  }, TERRAFORM_TEST_TIMEOUT_MS);

  it("serves terraform packaged as the release is, padded to the size asked for", async () => {
    const packaged = join(root, "packaged", "floor");
    const padTo = join(root, "size-of");
    // a sparse file of a release's size: only its size counts
    writeFileSync(padTo, "");
    truncateSync(padTo, 130 * 1024 * 1024 + 5);
    const built = await runProcess(process.execPath, [join(PACKAGE_ROOT, "dist/test/bench/packaged-floor.js"), packaged, padTo], { env: { ...process.env } as Record<string, string>, timeoutMs: 300_000 });
    expect(built.code, `${built.stdout}\n${built.stderr}`).toBe(0);
    expect(statSync(packaged).size).toBe(statSync(padTo).size);
    rmSync(padTo);
    const dir = floorDir("packaged", (executable) => {
      copyFileSync(packaged, executable);
      chmodSync(executable, 0o755);
    });
    await appliesAndPlansNothing(dir);
  }, TERRAFORM_TEST_TIMEOUT_MS * 2);
});
