import { formatPath } from "./attribute-path.js";
import { errorDiagnostic, type Diagnostic } from "./diagnostics.js";
import { answer } from "./handler-context.js";
import { readBreaches } from "./plan-rules.js";
import type { ProcessState } from "./process-state.js";
import { fromDynamicValue, toDynamicValue, type ReadDataSourceRequest, type ReadDataSourceResponse } from "./protocol-messages.js";
import type { DataSourceType } from "./provider-definition.js";
import { impliedType, type Schema, type StateOf } from "./schema.js";
import { attempt } from "./thrown-errors.js";
import type { Value } from "./value.js";

/** ReadDataSource: the data source's `read` of its configuration, checked against terraform's rules (configured values kept, computed ones known). */
export async function readDataSource<P>(typeName: string, dataSource: DataSourceType<Schema, P>, request: ReadDataSourceRequest, processState: ProcessState<P>): Promise<ReadDataSourceResponse> {
  const type = impliedType(dataSource.schema);
  const diagnostics: Diagnostic[] = [];
  const result = await attempt(`${typeName}: read`, processState.log, async () => {
    const config = fromDynamicValue(request.config, type);
    const state: Value = await dataSource.read({ ...(await processState.context()), config: config as StateOf<Schema> });
    const breaches = readBreaches(dataSource.schema, config, state);
    diagnostics.push(...breaches.map((breach) => errorDiagnostic(`${typeName}: invalid data`, `${formatPath(breach.path)} ${breach.problem} (a bug in the provider)`, breach.path)));
    return breaches.length > 0 ? undefined : toDynamicValue(state, type);
  });
  const all = answer([...result.diagnostics, ...diagnostics]);
  return result.value === undefined ? all : { state: result.value, ...all };
}
