import { loadDesiredInput } from "../desired-input.js";

/** `converge validate`: offline schema and cross-document checks; exit 0 when valid, 1 otherwise. */
export async function validateCommand(flags: { file: string[]; output?: "text" | "json" }): Promise<number> {
  const { documents, files } = await loadDesiredInput(flags.file);
  if (flags.output === "json") process.stdout.write(`${JSON.stringify({ valid: true, documents: documents.length, files }, null, 2)}\n`);
  else process.stdout.write(`${documents.length} document${documents.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"} valid.\n`);
  return 0;
}
