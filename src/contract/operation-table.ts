import type { z } from "zod";

/**
 * One operation of a service's contract, as its table in `src/contract/` lists it: the embedded service
 * routes and answers it from the table, and the client builds every call of it from the same row, so
 * server and client paths cannot drift apart (docs/manual/layout.md).
 */
export interface OperationSpec {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path, with `{name}` for each path parameter (e.g. `/v2/apis/{apiId}/routes`). */
  readonly path: string;
  /** Schema of the JSON body the operation takes; absent when it takes none. */
  readonly request?: z.ZodType;
  /** Schema of the query string a listing takes; absent when it takes none. */
  readonly query?: z.ZodType;
  /** Schema of the success body; absent when the contract promises an empty body. */
  readonly response?: z.ZodType;
  /** The success status the contract promises. */
  readonly status: number;
  /** Safe to send again after an ambiguous failure (reads, puts, updates, deletes; never a create). */
  readonly idempotent: boolean;
  /** Changes state (counted as a write, subject to `dropAfterWriteRate`). */
  readonly write: boolean;
}

/** A service's operation table: operation name → its row. */
export type OperationTable = Readonly<Record<string, OperationSpec>>;

/** The names of a path template's parameters, as a union of string literal types. */
export type PathParameterNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameterNames<Rest> : never;

/** The values of a path template's parameters. */
export type PathParameters<P extends string> = { readonly [K in PathParameterNames<P>]: string };

/** What an operation answers on success: its response schema's output, or nothing. */
export type OperationResult<O extends OperationSpec> = O["response"] extends z.ZodType ? z.output<O["response"]> : void;

const PARAMETER = /\{(\w+)\}/g;

/** A path template with each `{name}` replaced by its value, percent-encoded as one segment. */
export function fillPath(template: string, parameters: Readonly<Record<string, string>>): string {
  return template.replace(PARAMETER, (_, name: string) => {
    const value = parameters[name];
    if (value === undefined) throw new Error(`path ${template} needs a value for {${name}}`);
    return encodeURIComponent(value);
  });
}

/** A path template in the router's syntax (`{name}` → `:name`). */
export function routerPath(template: string): string {
  return template.replace(PARAMETER, ":$1");
}
