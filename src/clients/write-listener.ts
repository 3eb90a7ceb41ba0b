import type { ServiceName } from "./errors.js";

/** A write the service acknowledged, as the client sent it and as the service answered it. */
export interface AcknowledgedWrite {
  readonly service: ServiceName;
  /** The operation's name in its service's table (src/contract/). */
  readonly operation: string;
  /** The path parameters of the call (`apiId`, `routeId`, …); none for the account service. */
  readonly parameters: Readonly<Record<string, string>>;
  /** The body sent. */
  readonly body: unknown;
  /** The answer's body, checked against the contract; undefined for an empty answer. */
  readonly result: unknown;
}

/**
 * Told of every write the clients made and the service acknowledged (a 2xx answer), after the
 * answer was checked: what keeps a copy of live state (the provider's reads of one terraform run)
 * stays true to the process's own writes without reading again. It must not throw.
 */
export type WriteListener = (write: AcknowledgedWrite) => void;
