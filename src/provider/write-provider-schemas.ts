import { writeProviderSchemas } from "./provider-schemas.js";

// The last step of `npm run build`: the provider's schemas beside it, for terraform's first start.
process.stdout.write(`wrote ${await writeProviderSchemas()}\n`);
