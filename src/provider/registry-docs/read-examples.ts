import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExampleFile } from "./example-blocks.js";

/** The folder of the repository whose configuration the provider's pages show. */
export const EXAMPLES_FOLDER = "examples/terraform-hcl";

/** Every `.tf` file of examples/terraform-hcl under `root`, in name order, by its path from `root`. */
export function readExamples(root: string): ExampleFile[] {
  return readdirSync(join(root, EXAMPLES_FOLDER))
    .filter((name) => name.endsWith(".tf"))
    .sort()
    .map((name) => ({ path: `${EXAMPLES_FOLDER}/${name}`, text: readFileSync(join(root, EXAMPLES_FOLDER, name), "utf8") }));
}
