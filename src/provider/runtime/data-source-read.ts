import { formatPath } from "./attribute-path.js";
import { errorDiagnostic } from "./diagnostics.js";
import { answer, type HandlerContext } from "./handler-context.js";
import { readBreaches } from "./plan-rules.js";
import { fromDynamicValue, toDynamicValue, type ReadDataSourceRequest, type ReadDataSourceResponse } from "./protocol-messages.js";
import { impliedType, type Schema, type StateOf } from "./schema.js";
import { thrownAnswer } from "./thrown-errors.js";
import type { Value } from "./value.js";

/** ReadDataSource: the data source's `read` of its configuration, checked against terraform's rules (configured values kept, computed ones known). */
export async function readDataSource<P>(context: HandlerContext<P>, request: ReadDataSourceRequest): Promise<ReadDataSourceResponse> {
  const typeName = request.type_name;
  const dataSource = context.dataSources.get(typeName);
  if (dataSource === undefined) return context.dataSources.unknownAnswer(typeName);
  const type = impliedType(dataSource.schema);
  try {
    const config = fromDynamicValue(request.config, type);
    const state: Value = await dataSource.read({ ...(await context.processState.context()), config: config as StateOf<Schema> });
    const breaches = readBreaches(dataSource.schema, config, state);
    if (breaches.length > 0) return answer(breaches.map((breach) => errorDiagnostic(`${typeName}: invalid data`, `${formatPath(breach.path)} ${breach.problem} (a bug in the provider)`, breach.path)));
    return { state: toDynamicValue(state, type), diagnostics: [] };
  } catch (error) {
    return thrownAnswer(error, `${typeName}: read`, context.log);
  }
}
