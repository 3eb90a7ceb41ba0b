import { configureProvider, stopProvider } from "./provider-lifecycle.js";
import { validateDataResourceConfig, validateProviderConfig, validateResourceConfig } from "./config-validation.js";
import { readDataSource } from "./data-source-read.js";
import { lookup, runtimeDefinition, withDataSource, withResource, type HandlerContext } from "./handler-context.js";
import type { Logger } from "./hclog.js";
import type { Protocol } from "./protocol.js";
import type { ProviderHandlers } from "./protocol-messages.js";
import type { ServedProvider } from "./provider-definition.js";
import { getFunctions, getMetadata, getResourceIdentitySchemas, providerSchemaHandler } from "./provider-metadata.js";
import { ProcessState } from "./process-state.js";
import { applyResourceChange } from "./resource-apply.js";
import { importResourceState } from "./resource-import.js";
import { moveResourceState } from "./resource-move.js";
import { planResourceChange } from "./resource-plan.js";
import { readResource } from "./resource-read.js";
import { upgradeResourceState } from "./resource-upgrade.js";

export { definitionProblems } from "./provider-metadata.js";

/**
 * The tfplugin6 `Provider` service over a provider definition, as handlers by RPC name, each in a
 * file of its own. RPCs not here (identity, ephemeral resources, lists, actions, state stores,
 * functions' calls) are answered UNIMPLEMENTED by the server; terraform 1.11 does not call them.
 */
export function providerHandlers<P>(served: ServedProvider<P>, protocol: Protocol, log: Logger): ProviderHandlers {
  const definition = runtimeDefinition(served);
  const context: HandlerContext<P> = { definition, processState: new ProcessState<P>(log), log };
  const { processState } = context;
  return {
    GetMetadata: () => getMetadata(context),
    GetProviderSchema: providerSchemaHandler(context, protocol),
    GetFunctions: getFunctions,
    GetResourceIdentitySchemas: getResourceIdentitySchemas,
    ValidateProviderConfig: (request) => validateProviderConfig(context, request),
    ValidateResourceConfig: (request) => validateResourceConfig(context, request),
    ValidateDataResourceConfig: (request) => validateDataResourceConfig(context, request),
    ConfigureProvider: (request) => configureProvider(context, request),
    UpgradeResourceState: (request) => withResource(context, request.type_name, (resource) => upgradeResourceState(request.type_name, resource, request, log)),
    ReadResource: (request) => withResource(context, request.type_name, (resource) => readResource(request.type_name, resource, request, processState)),
    PlanResourceChange: (request) => withResource(context, request.type_name, (resource) => planResourceChange(request.type_name, resource, request, processState)),
    ApplyResourceChange: (request) => withResource(context, request.type_name, (resource) => applyResourceChange(request.type_name, resource, request, processState)),
    ImportResourceState: (request) => withResource(context, request.type_name, (resource) => importResourceState(request.type_name, resource, request, processState)),
    MoveResourceState: (request) => moveResourceState(lookup(definition.resources, request.target_type_name, "resource"), request, log),
    ReadDataSource: (request) => withDataSource(context, request.type_name, (dataSource) => readDataSource(request.type_name, dataSource, request, processState)),
    StopProvider: () => stopProvider(context),
  };
}
