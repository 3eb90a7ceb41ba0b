import { hasErrors } from "./diagnostics.js";
import { answer, type HandlerContext } from "./handler-context.js";
import { fromDynamicValue, type ConfigureProviderRequest, type DiagnosticsAnswer, type StopProviderResponse } from "./protocol-messages.js";
import { impliedType, type ConfigOf, type Schema } from "./schema.js";
import { attempt } from "./thrown-errors.js";

/** ConfigureProvider: the definition's `configure`, whose result every later resource and data source call receives. */
export async function configureProvider<P>({ definition, processState, log }: HandlerContext<P>, request: ConfigureProviderRequest): Promise<DiagnosticsAnswer> {
  const configured = attempt("provider: configure", log, () =>
    definition.configure({ config: fromDynamicValue(request.config, impliedType(definition.schema)) as ConfigOf<Schema>, terraformVersion: request.terraform_version, log }),
  );
  processState.configure(configured.then((result) => (hasErrors(result.diagnostics) ? Promise.reject(new Error("configure failed")) : (result.value as P))));
  return answer((await configured).diagnostics);
}

/** StopProvider: aborts the signal of every call under way (terraform's Ctrl-C). */
export async function stopProvider<P>({ processState }: HandlerContext<P>): Promise<StopProviderResponse> {
  processState.stop();
  return { Error: "" };
}
