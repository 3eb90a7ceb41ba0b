import type { Dispatcher } from "undici";
import { AccountClient, type AccountClientOptions } from "./account-client.js";
import { GatewayClient } from "./gateway-client.js";
import { Transport, createPool, type TransportOptions } from "./transport.js";
import type { WriteListener } from "./write-listener.js";

export interface ClientsOptions extends Omit<TransportOptions, "endpoint"> {
  /** Origin of both services. */
  readonly endpoint: string;
  /** A different origin for the account service. @default endpoint */
  readonly accountEndpoint?: string;
  /** A different origin for the gateway service. @default endpoint */
  readonly gatewayEndpoint?: string;
  readonly account?: AccountClientOptions;
  /** Connections per origin when the clients create their own pools. @default 64 */
  readonly connections?: number;
  /** Requests in flight per connection of those pools (see {@link PoolOptions.pipelining}). @default 1 */
  readonly pipelining?: number;
  /** Told of every write either client made and the service acknowledged (see {@link WriteListener}). */
  readonly onWrite?: WriteListener | undefined;
}

/** Both clients, sharing one keep-alive pool per origin; `close()` closes the pools they created. */
export interface Clients {
  readonly account: AccountClient;
  readonly gateway: GatewayClient;
  close(): Promise<void>;
}

export function createClients(options: ClientsOptions): Clients {
  const pools = new Map<string, Dispatcher>();
  const owned: Dispatcher[] = [];
  const transportFor = (endpoint: string) => {
    const origin = new URL(endpoint).origin;
    let dispatcher = options.dispatcher ?? pools.get(origin);
    if (!dispatcher) {
      dispatcher = createPool(origin, { timeouts: options.timeouts, connections: options.connections, pipelining: options.pipelining });
      pools.set(origin, dispatcher);
      owned.push(dispatcher);
    }
    return new Transport({ ...options, endpoint: origin, dispatcher });
  };
  const accountTransport = transportFor(options.accountEndpoint ?? options.endpoint);
  const gatewayTransport = transportFor(options.gatewayEndpoint ?? options.endpoint);
  return {
    account: new AccountClient(accountTransport, { ...options.account, onWrite: options.account?.onWrite ?? options.onWrite }),
    gateway: new GatewayClient(gatewayTransport, { onWrite: options.onWrite }),
    async close() {
      await Promise.all(owned.map((dispatcher) => dispatcher.close()));
    },
  };
}
