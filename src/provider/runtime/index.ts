/**
 * The provider runtime: terraform's plugin protocol 6 over go-plugin, for providers written in
 * TypeScript (in the manner of terraform-plugin-go and a slice of terraform-plugin-framework). It
 * imports nothing from the rest of converge. Everything a provider uses is exported here.
 *
 * One exception, for start-up: a provider's executable should import `serve.js` alone (it loads
 * only what the handshake needs; this index loads the value codecs too) and load its definition
 * lazily, so the handshake is not delayed by the provider's own imports:
 *
 *     import { serveProvider } from ".../provider/runtime/serve.js";
 *     await serveProvider(() => import("./provider.js").then((module) => module.provider));
 */
export { serveProvider, type ServeOptions } from "./serve.js";
export { schemasFirstProvider, schemasOf, type ProviderSchemas } from "./schemas-first-provider.js";
export {
  isResourceWithImportState,
  isResourceWithMoveState,
  isResourceWithUpgradeState,
  type CallContext,
  type DataSourceType,
  type ListedDataSource,
  type ListedResource,
  type MoveStateRequest,
  type PlanAction,
  type PlanRequest,
  type PlanResult,
  type ProviderDefinition,
  type ResourceType,
  type ResourceWithImportState,
  type ResourceWithMoveState,
  type ResourceWithUpgradeState,
  type ServedProvider,
} from "./provider-definition.js";
export {
  defineSchema,
  impliedType,
  type AttributeSchema,
  type BlockSchema,
  type ConfigOf,
  type KnownValueOf,
  type NestedBlockSchema,
  type ObjectOf,
  type PlannedOf,
  type Schema,
  type StateOf,
  type ValueOf,
} from "./schema.js";
export { types, typeFromJson, typeToJson, type CtyType, type CtyTypeJson } from "./cty-type.js";
export { containsUnknown, isObjectValue, isUnknown, TypedValue, UNKNOWN, Unknown, valuesEqual, type Value } from "./value.js";
export { formatPath, valueAtPath, withValueAtPath, type AttributePath, type PathStep } from "./attribute-path.js";
export { DiagnosticsError, errorDiagnostic, hasErrors, isDiagnosticsError, warningDiagnostic, type Diagnostic } from "./diagnostics.js";
export { decodeMsgpack, encodeMsgpack } from "./msgpack-codec.js";
export { decodeJson, decodeJsonValue } from "./json-codec.js";
export { isValueTypeError, ValueTypeError } from "./value-error.js";
export type { LogFields, Logger } from "./hclog.js";
