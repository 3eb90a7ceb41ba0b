import { expect } from "vitest";
import type { Clients } from "../../src/clients/index.js";
import type { RunningService, WorldInput } from "../../src/service/index.js";
import { sharedSuite } from "../support/shared-suite.js";
import { startWorld, type TestWorld } from "../support/world.js";
import { describeTerraform, installProvider, providerService, TerraformDir, TERRAFORM_TEST_TIMEOUT_MS, type ProviderHome } from "./terraform-fixture.js";

/**
 * The setup every terraform suite shares, registered once by `terraformSuite`: the embedded
 * service on port 0 (recording requests), clients of it with TOKEN, and converge's provider
 * installed into a temporary HOME; torn down after the file's own hooks. Its members are there
 * once the suite's `beforeAll` has run: read them in hooks and tests, never at the top of a file.
 */
export interface TerraformSuite {
  readonly service: RunningService;
  readonly clients: Clients;
  readonly home: ProviderHome;
  /** A working directory under the suite's HOME whose provider talks to the suite's service with TOKEN. */
  dir(name: string): TerraformDir;
  /** `dir(name)` with `mainTf` as its main.tf and `terraform init` run: fails the hook or test when init fails. */
  initialized(name: string, mainTf: string): Promise<TerraformDir>;
}

/** What a suite changes in the setup. */
export interface TerraformSuiteOptions {
  /** Changes to the provider's demo world (see providerWorld), e.g. a throttle. */
  readonly world?: Partial<WorldInput>;
}

interface Members {
  readonly service: RunningService;
  readonly clients: Clients;
  readonly home: ProviderHome;
}

/**
 * Registers the suite's `beforeAll` (service, clients, provider install into a HOME labelled
 * `label`) and `afterAll` (clients closed, service closed, HOME removed) in the calling file or
 * `describe`, before that file's own hooks run.
 */
export function terraformSuite(label: string, options: TerraformSuiteOptions = {}): TerraformSuite {
  let world: TestWorld | undefined;
  const members = sharedSuite<Members>(`the terraform suite "${label}"`, ["service", "clients", "home"], {
    setup: async (started) => {
      world = await startWorld(providerService(options.world));
      started.service = world.service;
      started.clients = world.clients;
      started.home = await installProvider(label);
    },
    teardown: async (started) => {
      await world?.close();
      started.home?.remove();
    },
    timeoutMs: TERRAFORM_TEST_TIMEOUT_MS,
  });
  const suite: TerraformSuite = Object.assign(members, {
    dir: (name: string) => TerraformDir.for(suite.home, name, suite.service),
    initialized: async (name: string, mainTf: string) => {
      const work = suite.dir(name);
      work.write(mainTf);
      const init = await work.init();
      expect(init.code, describeTerraform(init)).toBe(0);
      return work;
    },
  });
  return suite;
}
