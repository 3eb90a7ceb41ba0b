import { ControlClient } from "../clients/control-client.js";
import { startService, type RunningService, type ServiceOptions } from "../service/server.js";

/**
 * `converge/testing`: the services as a test double (docs/manual/testing.md). Start them in your
 * test process, or attach to a `converge serve` a CI job started; take an isolated world per test
 * worker; add scripted faults; read the request journal; reset.
 */

export { ControlClient, TestWorld, type ControlClientOptions, type InWorld, type JournalFilter, type WorldClientsOptions } from "../clients/control-client.js";
export type {
  CallSelector,
  CheckpointAnswer,
  ClockAnswer,
  FaultEffect,
  FaultRule,
  FaultRuleRequest,
  Health,
  JournalAnswer,
  JournalEntry,
  JournalFault,
  WorldGrant,
  WorldIdentity,
  WorldSummary,
} from "../contract/control.js";

/** Services started in this process for tests, with a control client of them. */
export interface TestService {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly service: RunningService;
  /** The control interface's client (with the admin token the service made or was given). */
  readonly control: ControlClient;
  /** Closes the control client, then the services. */
  close(): Promise<void>;
}

/**
 * Starts the services in this process on a free loopback port (`startService` with `port: 0` unless
 * given), with a control client of them.
 */
export async function startTestService(options: ServiceOptions = {}): Promise<TestService> {
  const service = await startService({ port: 0, ...options });
  if (service.adminToken === undefined) {
    await service.close();
    throw new Error(`the services at ${service.url} have no control interface: give an adminToken to listen on ${options.host ?? "this address"}`);
  }
  const control = new ControlClient({ endpoint: service.url, adminToken: service.adminToken });
  return {
    url: service.url,
    service,
    control,
    async close() {
      await control.close();
      await service.close();
    },
  };
}

/**
 * A control client of services already running: by default at CONVERGE_ENDPOINT with the admin token
 * of CONVERGE_ADMIN_TOKEN (a `converge serve` a CI job started); waits until they are ready.
 */
export async function attachTestService(options: { readonly endpoint?: string; readonly adminToken?: string; readonly readyWithinMs?: number } = {}): Promise<ControlClient> {
  const control = options.endpoint !== undefined && options.adminToken !== undefined
    ? new ControlClient({ endpoint: options.endpoint, adminToken: options.adminToken })
    : ControlClient.fromEnvironment({ ...process.env, ...definedOnly({ CONVERGE_ENDPOINT: options.endpoint, CONVERGE_ADMIN_TOKEN: options.adminToken }) });
  await control.waitUntilReady(options.readyWithinMs);
  return control;
}

function definedOnly(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
