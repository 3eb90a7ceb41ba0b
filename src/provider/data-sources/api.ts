import { dataSourceTypeOf } from "../../desired/terraform-attributes.js";
import type { ConvergeSession } from "../converge-session.js";
import { DiagnosticsError, errorDiagnostic, isUnknown, types, type DataSourceType, type Schema } from "../runtime/index.js";

const schema: Schema = {
  description: "An API of the caller's account, by its ID or its name: its ID and protocol (one listing of the APIs per terraform command).",
  attributes: {
    api_id: { type: types.string, optional: true, computed: true, description: "The API's ID; give this or `name`." },
    name: { type: types.string, optional: true, computed: true, description: "The API's name; give this or `api_id` (an error when several APIs have it)." },
    protocol_type: { type: types.string, computed: true, description: "HTTP or WEBSOCKET." },
  },
};

/** terraform's name of the data source: converge_api. */
export const API_DATA_SOURCE = dataSourceTypeOf("api");

/** The API data source: an API looked up in the caller's account. */
export const apiDataSource: DataSourceType<Schema, ConvergeSession> = {
  schema,
  validate({ config }) {
    const given = [config.api_id, config.name].filter((value) => value !== null);
    if (given.length === 1 || given.some(isUnknown)) return [];
    return [errorDiagnostic(`${API_DATA_SOURCE}: give exactly one of api_id and name, received ${given.length === 0 ? "neither" : "both"}`, undefined, [given.length === 0 ? "name" : "api_id"])];
  },
  async read({ provider: session, config, signal }) {
    const directory = await session.cache.directory(signal);
    let apiId: string;
    if (typeof config.api_id === "string") {
      apiId = config.api_id;
      if (!directory.protocols.has(apiId)) throw new DiagnosticsError(errorDiagnostic(`${API_DATA_SOURCE}: no API ${JSON.stringify(apiId)} in the caller's account`, undefined, ["api_id"]));
    } else {
      const name = String(config.name);
      const ids = directory.idsByName.get(name) ?? [];
      if (ids.length !== 1) {
        const found = ids.length === 0 ? "no API has it" : `${ids.length} APIs have it (${ids.join(", ")}): look one up by api_id`;
        throw new DiagnosticsError(errorDiagnostic(`${API_DATA_SOURCE}: name ${JSON.stringify(name)} names no one API of the caller's account: ${found}`, undefined, ["name"]));
      }
      apiId = ids[0]!;
    }
    return { api_id: apiId, name: directory.names.get(apiId) ?? null, protocol_type: directory.protocols.get(apiId) ?? null };
  },
};
