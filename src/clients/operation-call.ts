import type { OperationSpec } from "../contract/operation-table.js";
import type { ServiceName } from "./errors.js";
import type { Transport } from "./transport.js";
import type { WriteListener } from "./write-listener.js";

/** What one call of an operation sends besides what its row says: where, what, and when to give up. */
export interface OperationCall {
  /** The path the row's template gave (or the service's single path, for the account service's form B). */
  readonly path: string;
  /** The path parameters the path was filled with, for the write listener. */
  readonly parameters: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | undefined>> | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
}

/**
 * One call of an operation as its row of the service's table says (method, success status,
 * idempotence, answer schema), through the transport; an acknowledged write is told to `onWrite`.
 * Both typed clients call every operation through it.
 */
export async function callOperation(
  transport: Transport,
  service: ServiceName,
  operation: string,
  row: OperationSpec,
  call: OperationCall,
  onWrite: WriteListener | undefined,
): Promise<unknown> {
  const result = await transport.call(service, {
    operation,
    method: row.method,
    path: call.path,
    ...(call.query !== undefined ? { query: call.query } : {}),
    ...(call.headers !== undefined ? { headers: call.headers } : {}),
    body: call.body,
    idempotent: row.idempotent,
    expectStatus: row.status,
    response: row.response,
    signal: call.signal,
  });
  if (row.write) onWrite?.({ service, operation, parameters: call.parameters, body: call.body, result });
  return result;
}
