import type { z } from "zod";
import { describeZodIssues, type FieldIssue } from "../contract/field-issues.js";
import { routerPath, type OperationTable } from "../contract/operation-table.js";
import type { Identity } from "./identity.js";
import type { ErrorDialect, ServiceName } from "./service-error.js";

/** What a handler gets: the authenticated caller, the parsed body, path parameters and query. */
export interface OperationCall {
  readonly identity: Identity;
  readonly body: unknown;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string>>;
}

export interface OperationReply {
  readonly status: number;
  /** JSON body; `undefined` sends an empty body. */
  readonly body?: unknown;
  /** The body already serialized (hot listings assemble it from cached items); wins over `body`. */
  readonly json?: string;
}

/** One operation of one service, as the shared server routes and runs it. */
export interface Operation {
  readonly service: ServiceName;
  readonly name: string;
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  /** Writes are subject to `dropAfterWriteRate` and are counted as writes. */
  readonly write: boolean;
  /**
   * Reads state synchronously, before its first await (a commit, if any, is that await): the server
   * relies on it to answer only from durable state (docs/manual/embedded-service.md, "Durability").
   */
  handle(call: OperationCall): OperationReply | Promise<OperationReply>;
}

/** A handler for every operation of a service's table (a missing one does not compile). */
export type OperationHandlers<T extends OperationTable> = {
  readonly [N in keyof T]: (call: OperationCall) => OperationReply | Promise<OperationReply>;
};

/** The operations of a service: each row of its table (src/contract/), answered by its handler. */
export function operationsOf<T extends OperationTable>(service: ServiceName, table: T, handlers: OperationHandlers<T>): Operation[] {
  return Object.entries(table).map(([name, spec]) => ({
    service,
    name,
    method: spec.method,
    path: routerPath(spec.path),
    write: spec.write,
    handle: handlers[name as keyof T],
  }));
}

/**
 * Validates input against a wire schema; on failure throws the dialect's bad-request error listing
 * every invalid field.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, dialect: ErrorDialect): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidFields(dialect, describeZodIssues(result.error.issues, input));
}

export function invalidFields(dialect: ErrorDialect, fields: ReadonlyArray<FieldIssue>) {
  const count = fields.length;
  const summary = `${count} validation error${count === 1 ? "" : "s"} detected`;
  return dialect.invalid(`${summary}: ${fields.map((f) => f.message).join("; ")}`, fields);
}
