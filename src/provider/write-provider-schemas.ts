import { writeProviderAnswers } from "./provider-answers.js";
import { writeProviderSchemas } from "./provider-schemas.js";

// The last step of `npm run build`: the provider's schemas and constant answers beside it, for terraform's first start.
process.stdout.write(`wrote ${await writeProviderSchemas()}\n`);
process.stdout.write(`wrote ${await writeProviderAnswers()}\n`);
