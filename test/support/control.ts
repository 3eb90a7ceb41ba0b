import { ControlClient } from "../../src/clients/index.js";
import type { RunningService } from "../../src/service/index.js";
import { call, type CallOptions, type CallResult } from "./http.js";

/**
 * The control interface in tests: its typed client for a started service (made with the admin token
 * the service made or was given), and a raw call under `/_converge/` (by default with that token),
 * for what the typed client would not send: bad input, other tokens.
 */

/** A control client of `service`; the caller closes it. */
export function controlOf(service: RunningService): ControlClient {
  if (service.adminToken === undefined) throw new Error(`the service at ${service.url} has no control interface (no admin token)`);
  return new ControlClient({ endpoint: service.url, adminToken: service.adminToken });
}

/** One raw HTTP call of the control interface: `path` under `/_converge/`, the admin token unless `token` is given (`null`: none). */
export function controlCall(service: RunningService, path: string, options: CallOptions = {}): Promise<CallResult> {
  return call(service, `/_converge/${path}`, { ...options, token: options.token === undefined ? service.adminToken ?? null : options.token });
}
