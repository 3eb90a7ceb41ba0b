import { hasErrors, type Diagnostic } from "./diagnostics.js";
import { answer, type HandlerContext } from "./handler-context.js";
import { fromDynamicValue, type ConfigureProviderRequest, type DiagnosticsAnswer, type StopProviderResponse } from "./protocol-messages.js";
import { impliedType, type ConfigOf, type Schema } from "./schema.js";
import { diagnosticsOfThrown } from "./thrown-errors.js";

/** ConfigureProvider: the definition's `configure`, whose result every later resource and data source call receives. */
export async function configureProvider<P>(context: HandlerContext<P>, request: ConfigureProviderRequest): Promise<DiagnosticsAnswer> {
  const configured = configure(context, request);
  // no error diagnostic: what configure returned (undefined when it threw a DiagnosticsError of warnings only, as ever)
  context.processState.configure(configured.then((result) => (hasErrors(result.diagnostics) ? Promise.reject(new Error("configure failed")) : (result.provider as P))));
  return answer((await configured).diagnostics);
}

/** What the definition's `configure` makes of the request's configuration, or the diagnostics of what it threw. */
async function configure<P>({ definition, log }: HandlerContext<P>, request: ConfigureProviderRequest): Promise<{ readonly provider?: P; readonly diagnostics: Diagnostic[] }> {
  try {
    return { provider: await definition.configure({ config: fromDynamicValue(request.config, impliedType(definition.schema)) as ConfigOf<Schema>, terraformVersion: request.terraform_version, log }), diagnostics: [] };
  } catch (error) {
    return { diagnostics: diagnosticsOfThrown(error, "provider: configure", log) };
  }
}

/** StopProvider: aborts the signal of every call under way (terraform's Ctrl-C). */
export async function stopProvider<P>({ processState }: HandlerContext<P>): Promise<StopProviderResponse> {
  processState.stop();
  return { Error: "" };
}
