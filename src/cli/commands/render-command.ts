import { escapeDocumentReferences } from "../../desired/variable-references.js";
import type { ExportedDocument } from "../../reconcile/kinds/kind-engine.js";
import { renderDocument } from "../../reconcile/render-export.js";
import { desiredLoadOptions, loadDesiredInput } from "../desired-input.js";
import type { VariableFlags } from "../variable-flags.js";

export interface RenderFlags extends VariableFlags {
  readonly file: string[];
  /** `yaml`: one YAML stream of documents; `json`: one array of them. @default "yaml" */
  readonly output: "yaml" | "json";
}

/**
 * `converge render`: prints the documents as plan, apply and drift see them (as `docker compose
 * config` and `kustomize build` do): variables substituted, checked, defaults filled in, each in
 * the order read. A literal `${var.` in a value is written `$${var.`, so that the output read back
 * (`converge render … | converge plan -f -`) is the same documents. Exit 0, or 1 when they are not valid.
 */
export async function renderCommand(flags: RenderFlags): Promise<number> {
  const { documents } = await loadDesiredInput(flags.file, [], desiredLoadOptions(flags));
  const written = documents.map((loaded) => escapeDocumentReferences(loaded.document) as ExportedDocument);
  process.stdout.write(flags.output === "json" ? `${JSON.stringify(written, null, 2)}\n` : written.map(renderDocument).join("---\n"));
  return 0;
}
