import { loadDesiredInput } from "../desired-input.js";

/** `converge validate`: offline schema and cross-document checks; exit 0 when valid, 1 otherwise. */
export async function validateCommand(flags: { file: string[] }): Promise<number> {
  const { documents, files } = await loadDesiredInput(flags.file);
  process.stdout.write(`${documents.length} document${documents.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"} valid.\n`);
  return 0;
}
