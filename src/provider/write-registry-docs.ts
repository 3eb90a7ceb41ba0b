import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readProviderSchemas } from "./provider-schemas.js";
import { GENERATED_FOLDERS, registryPages } from "./registry-docs/registry-docs.js";
import { readExamples } from "./registry-docs/read-examples.js";

// `npm run docs:provider`: the provider's pages under docs/ from the schemas the build wrote beside
// this file and the configuration in examples/terraform-hcl; a page of a resource or data source
// the provider no longer has is removed (test/provider/registry-docs.test.ts fails when they disagree).
const root = fileURLToPath(new URL("../../../", import.meta.url));
const docs = join(root, "docs");
const pages = registryPages(readProviderSchemas(), readExamples(root));
for (const folder of GENERATED_FOLDERS) {
  mkdirSync(join(docs, folder), { recursive: true });
  for (const name of readdirSync(join(docs, folder))) {
    if (!pages.some((page) => page.path === `${folder}/${name}`)) rmSync(join(docs, folder, name));
  }
}
for (const page of pages) {
  const file = join(docs, page.path);
  mkdirSync(dirname(file), { recursive: true });
  if (!existsSync(file) || readFileSync(file, "utf8") !== page.text) writeFileSync(file, page.text);
}
process.stdout.write(`wrote ${pages.length} pages under ${docs}\n`);
