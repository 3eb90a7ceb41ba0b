import { answer } from "./handler-context.js";
import type { Logger } from "./hclog.js";
import { decodeJsonValue } from "./json-codec.js";
import { toDynamicValue, type UpgradeResourceStateRequest, type UpgradeResourceStateResponse } from "./protocol-messages.js";
import { isResourceWithUpgradeState, type ResourceType } from "./provider-definition.js";
import { impliedType, type Schema } from "./schema.js";
import { attempt } from "./thrown-errors.js";

/**
 * UpgradeResourceState: JSON state of the resource's schema version as it is, of an older one
 * through the resource's `upgradeState` (`ResourceWithUpgradeState`); refused when newer, or written as flatmap (terraform < 0.12).
 */
export async function upgradeResourceState<P>(typeName: string, resource: ResourceType<Schema, P>, request: UpgradeResourceStateRequest, log: Logger): Promise<UpgradeResourceStateResponse> {
  const result = await attempt(`${typeName}: upgrade state`, log, async () => {
    const json = request.raw_state?.json;
    if (json === undefined || json.length === 0) {
      throw new Error(`received state without JSON (flatmap state of ${Object.keys(request.raw_state?.flatmap ?? {}).length} keys): expected JSON state, which terraform 0.12 and later write`);
    }
    const current = resource.schema.version ?? 0;
    let state: unknown = JSON.parse(json.toString("utf8"));
    if (request.version > current) throw new Error(`state version ${request.version} is newer than the resource's schema version ${current}: expected a provider at least as new as the one that wrote the state`);
    if (request.version < current) {
      if (!isResourceWithUpgradeState(resource)) throw new Error(`state version ${request.version} is older than the resource's schema version ${current} and the resource has no upgradeState`);
      state = await resource.upgradeState({ version: request.version, state, log });
    }
    return toDynamicValue(decodeJsonValue(state, impliedType(resource.schema)), impliedType(resource.schema));
  });
  return result.value === undefined ? answer(result.diagnostics) : { upgraded_state: result.value, ...answer(result.diagnostics) };
}
