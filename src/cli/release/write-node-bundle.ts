import { fileURLToPath } from "node:url";

import { bundleForNode } from "./node-bundle.js";

// A step of `npm run build`: the program of `converge` on Node.js bundled (node-bundle.ts), in
// dist/src/cli/node-bundle/, which dist/src/cli/main.js loads.
const files = await bundleForNode({
  entry: fileURLToPath(new URL("../program.js", import.meta.url)),
  packageRoot: fileURLToPath(new URL("../../../../", import.meta.url)),
  outDir: fileURLToPath(new URL("../node-bundle", import.meta.url)),
});
process.stdout.write(`wrote dist/src/cli/node-bundle (${files} files)\n`);
