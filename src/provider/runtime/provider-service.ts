import { configureProvider, stopProvider } from "./provider-lifecycle.js";
import { validateDataResourceConfig, validateProviderConfig, validateResourceConfig } from "./config-validation.js";
import { readDataSource } from "./data-source-read.js";
import { handlerContext, type ProviderHandlers, type RpcHandlers } from "./handler-context.js";
import type { Logger } from "./hclog.js";
import type { Protocol } from "./protocol.js";
import type { ServedProvider } from "./provider-definition.js";
import { getFunctions, getMetadata, getProviderSchema, getResourceIdentitySchemas } from "./provider-metadata.js";
import { applyResourceChange } from "./resource-apply.js";
import { importResourceState } from "./resource-import.js";
import { moveResourceState } from "./resource-move.js";
import { planResourceChange } from "./resource-plan.js";
import { readResource } from "./resource-read.js";
import { upgradeResourceState } from "./resource-upgrade.js";

export { definitionProblems } from "./provider-metadata.js";

/**
 * The tfplugin6 `Provider` service over a provider definition: one handler per RPC, each in a file
 * of its own and each of one shape, `(context, request)` (`RpcHandler`, handler-context.ts). RPCs not
 * here (identity, ephemeral resources, lists, actions, state stores, functions' calls) are answered
 * UNIMPLEMENTED by the server; terraform 1.11 does not call them.
 */
const RPC_HANDLERS: RpcHandlers = {
  GetMetadata: getMetadata,
  GetProviderSchema: getProviderSchema,
  GetFunctions: getFunctions,
  GetResourceIdentitySchemas: getResourceIdentitySchemas,
  ValidateProviderConfig: validateProviderConfig,
  ValidateResourceConfig: validateResourceConfig,
  ValidateDataResourceConfig: validateDataResourceConfig,
  ConfigureProvider: configureProvider,
  UpgradeResourceState: upgradeResourceState,
  ReadResource: readResource,
  PlanResourceChange: planResourceChange,
  ApplyResourceChange: applyResourceChange,
  ImportResourceState: importResourceState,
  MoveResourceState: moveResourceState,
  ReadDataSource: readDataSource,
  StopProvider: stopProvider,
};

/** The handlers of one provider process: `RPC_HANDLERS` and their context, with a new process state. */
export function providerHandlers<P>(served: ServedProvider<P>, protocol: Protocol, log: Logger): ProviderHandlers<P> {
  return { handlers: RPC_HANDLERS, context: handlerContext(served, protocol, log) };
}
