import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningService } from "../../src/service/index.js";
import { sharedSuite } from "../support/shared-suite.js";
import { startWorld, type TestWorld } from "../support/world.js";
import { assertTerraformAvailable, cdktfWorld, installConvergeProvider } from "./terraform-fixture.js";

/**
 * The setup every terraform suite of the constructs shares, registered once by `cdktfSuite`:
 * terraform checked, the embedded service on port 0 with cdktfWorld (recording requests), a
 * temporary directory that is every terraform's HOME and holds the stacks, and (with `install`)
 * converge's provider installed into that HOME; torn down after the file's own hooks. Its members
 * are there once the suite's `beforeAll` has run: read them in hooks and tests.
 */
export interface CdktfSuite {
  readonly service: RunningService;
  /** The temporary directory: HOME of the stacks' terraform, parent of their output directories. */
  readonly home: string;
  /** What `converge provider install` printed (a suite made with `install: true` only). */
  readonly installed: string;
}

/** What a suite adds to the setup. */
export interface CdktfSuiteOptions {
  /** Installs converge's provider into HOME's implied local mirror (the provider vehicle needs it). */
  readonly install?: boolean;
  /** How long the setup may take; 90 s unless given. */
  readonly timeoutMs?: number;
}

interface Members {
  readonly service: RunningService;
  readonly home: string;
  readonly installed: string;
}

/**
 * Registers the suite's `beforeAll` (terraform checked, service, HOME `converge-LABEL-…` under the
 * system's temporary directory, the provider when asked) and `afterAll` (service closed, HOME
 * removed) in the calling file or `describe`, before that file's own hooks run.
 */
export function cdktfSuite(label: string, options: CdktfSuiteOptions = {}): CdktfSuite {
  const suite = `the cdktf suite "${label}"${options.install ? "" : " (made without install: true, it has no installed)"}`;
  let world: TestWorld | undefined;
  return sharedSuite<Members>(suite, ["service", "home", "installed"], {
    setup: async (started) => {
      assertTerraformAvailable();
      world = await startWorld({ world: cdktfWorld(), recordRequests: true });
      started.service = world.service;
      started.home = await mkdtemp(join(tmpdir(), `converge-${label}-`));
      if (options.install) started.installed = await installConvergeProvider(started.home);
    },
    teardown: async (started) => {
      await world?.close();
      if (started.home) await rm(started.home, { recursive: true, force: true });
    },
    timeoutMs: options.timeoutMs ?? 90_000,
  });
}
