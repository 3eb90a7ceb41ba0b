import type { Document, Kind } from "../desired/schema.js";
import { DiagnosticsError, errorDiagnostic, type MoveStateRequest } from "./runtime/index.js";
import { terraformDocument } from "./converge-session.js";

/** terraform's built-in provider, which `terraform_data` belongs to. */
const BUILTIN_PROVIDER = /(^|\/)terraform\.io\/builtin\/terraform$/;

/**
 * The converge document a `terraform_data` holds in its `input` (the document itself, or its JSON
 * text: `input = jsonencode({kind = "Route", api = …, spec = {…}})`, the way an HCL configuration
 * may wrap `converge apply`), so that `moved { from = terraform_data.x  to = converge_route.y }`
 * hands the live resource it names to the converge resource. Null for a source that is not a
 * `terraform_data`; an error naming what is wrong when its input is not a valid document of `kind`.
 */
export function documentOfMovedState(kind: Kind, typeName: string, request: MoveStateRequest): Document | null {
  if (request.sourceTypeName !== "terraform_data" || !BUILTIN_PROVIDER.test(request.sourceProviderAddress)) return null;
  const refuse = (problem: string): never => {
    throw new DiagnosticsError(errorDiagnostic(
      `${typeName}: cannot take the state of ${request.sourceTypeName}`,
      `${problem}: expected its input to be a converge document of kind ${kind} (an object, or its JSON text), naming its API or account by ID`,
    ));
  };
  const state = request.sourceState as { readonly input?: { readonly value?: unknown } | null } | null;
  let input = state?.input?.value;
  if (typeof input === "string") {
    const text = input;
    try {
      input = JSON.parse(text) as unknown;
    } catch {
      refuse(`its input is text that is not JSON (${JSON.stringify(text.slice(0, 60))})`);
    }
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) return refuse(`its input is ${input === undefined || input === null ? "null" : typeof input}`);
  const received = (input as { readonly kind?: unknown }).kind;
  if (received !== kind) return refuse(`its input's kind is ${JSON.stringify(received)}`);
  const checked = terraformDocument(kind, input);
  if (!("loaded" in checked)) return refuse(`its input is not a valid document: ${checked.issues.map((issue) => issue.message).join("; ")}`);
  return checked.loaded.document;
}
