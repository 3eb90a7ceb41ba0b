import { loadDocuments } from "../desired-input.js";

/** `converge validate`: offline schema and cross-document checks; exit 0 when valid, 1 otherwise. */
export async function validateCommand(flags: { file: string[] }): Promise<number> {
  const documents = await loadDocuments(flags.file);
  const files = new Set(documents.map((loaded) => loaded.source.file));
  process.stdout.write(`${documents.length} document${documents.length === 1 ? "" : "s"} in ${files.size} file${files.size === 1 ? "" : "s"} valid.\n`);
  return 0;
}
