import { documentJsonSchema } from "../../desired/schema.js";

/** `converge schema`: the JSON Schema of desired-state documents, for editors. */
export function schemaCommand(): number {
  process.stdout.write(`${JSON.stringify(documentJsonSchema(), null, 2)}\n`);
  return 0;
}
