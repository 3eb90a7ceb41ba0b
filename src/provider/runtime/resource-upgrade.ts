import type { HandlerContext } from "./handler-context.js";
import { decodeJsonValue } from "./json-codec.js";
import { toDynamicValue, type UpgradeResourceStateRequest, type UpgradeResourceStateResponse } from "./protocol-messages.js";
import { isResourceWithUpgradeState } from "./provider-definition.js";
import { impliedType } from "./schema.js";
import { thrownAnswer } from "./thrown-errors.js";

/**
 * UpgradeResourceState: JSON state of the resource's schema version as it is, of an older one
 * through the resource's `upgradeState` (`ResourceWithUpgradeState`); refused when newer, or written
 * as flatmap (terraform < 0.12).
 */
export async function upgradeResourceState<P>(context: HandlerContext<P>, request: UpgradeResourceStateRequest): Promise<UpgradeResourceStateResponse> {
  const resource = context.resources.get(request.type_name);
  if (resource === undefined) return context.resources.unknownAnswer(request.type_name);
  try {
    const json = request.raw_state?.json;
    if (json === undefined || json.length === 0) {
      throw new Error(`received state without JSON (flatmap state of ${Object.keys(request.raw_state?.flatmap ?? {}).length} keys): expected JSON state, which terraform 0.12 and later write`);
    }
    const current = resource.schema.version ?? 0;
    let state: unknown = JSON.parse(json.toString("utf8"));
    if (request.version > current) throw new Error(`state version ${request.version} is newer than the resource's schema version ${current}: expected a provider at least as new as the one that wrote the state`);
    if (request.version < current) {
      if (!isResourceWithUpgradeState(resource)) throw new Error(`state version ${request.version} is older than the resource's schema version ${current} and the resource has no upgradeState`);
      state = await resource.upgradeState({ version: request.version, state, log: context.log });
    }
    const type = impliedType(resource.schema);
    return { upgraded_state: toDynamicValue(decodeJsonValue(state, type), type), diagnostics: [] };
  } catch (error) {
    return thrownAnswer(error, `${request.type_name}: upgrade state`, context.log);
  }
}
