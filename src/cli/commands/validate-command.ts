import { desiredLoadOptions, loadDesiredInput } from "../desired-input.js";
import type { VariableFlags } from "../variable-flags.js";

/** `converge validate`: offline schema and cross-document checks; exit 0 when valid, 1 otherwise. */
export async function validateCommand(flags: VariableFlags & { file: string[]; output?: "text" | "json" }): Promise<number> {
  const { documents, files } = await loadDesiredInput(flags.file, [], desiredLoadOptions(flags));
  if (flags.output === "json") process.stdout.write(`${JSON.stringify({ valid: true, documents: documents.length, files }, null, 2)}\n`);
  else process.stdout.write(`${documents.length} document${documents.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"} valid.\n`);
  return 0;
}
