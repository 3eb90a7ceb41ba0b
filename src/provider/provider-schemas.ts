import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ProviderSchemas } from "./runtime/index.js";

/**
 * The converge provider's schemas as JSON beside the compiled provider, written by `npm run build`
 * from the definition itself (`writeProviderSchemas`), so that the provider answers terraform's
 * first start, which only asks for schemas, without loading its code (docs/manual/terraform-provider.md).
 */
const SCHEMAS_FILE = fileURLToPath(new URL("./provider-schemas.json", import.meta.url));

export function readProviderSchemas(): ProviderSchemas {
  return JSON.parse(readFileSync(SCHEMAS_FILE, "utf8")) as ProviderSchemas;
}

/** Writes the schemas of the definition as it is now (the build runs this once the provider is compiled). */
export async function writeProviderSchemas(): Promise<string> {
  const [{ convergeProvider }, { schemasOf }] = await Promise.all([import("./converge-provider.js"), import("./runtime/index.js")]);
  writeFileSync(SCHEMAS_FILE, `${JSON.stringify(schemasOf(convergeProvider))}\n`);
  return SCHEMAS_FILE;
}
