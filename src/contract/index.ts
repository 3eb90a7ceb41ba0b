/**
 * The contract of both services as zod schemas (`converge/contract`; `converge/spec` is its former name, kept as an alias until the next minor release): wire shapes, field rules, the
 * per-protocol rules of the gateway, and each service's operation table (docs/manual/clients.md).
 * Field names are the wire's: PascalCase for the account service, camelCase for the gateway.
 */
export * from "./account.js";
export * from "./gateway.js";
export * from "./service-limits.js";
export {
  fillPath,
  routerPath,
  type OperationSpec,
  type OperationTable,
  type OperationResult,
  type PathParameters,
  type PathParameterNames,
} from "./operation-table.js";
export type { FieldIssue } from "./field-issues.js";
export * from "./control.js";
