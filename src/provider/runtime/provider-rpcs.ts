import type { ProviderRpcMessages } from "./protocol-messages.js";

/**
 * The RPCs of tfplugin6's `Provider` service the runtime answers (`provider-service.ts`), known
 * before that module loads; the server answers the others UNIMPLEMENTED.
 */
export const PROVIDER_RPCS = [
  "GetMetadata",
  "GetProviderSchema",
  "GetFunctions",
  "GetResourceIdentitySchemas",
  "ValidateProviderConfig",
  "ValidateResourceConfig",
  "ValidateDataResourceConfig",
  "ConfigureProvider",
  "UpgradeResourceState",
  "ReadResource",
  "PlanResourceChange",
  "ApplyResourceChange",
  "ImportResourceState",
  "MoveResourceState",
  "ReadDataSource",
  "StopProvider",
] as const satisfies ReadonlyArray<keyof ProviderRpcMessages>;
