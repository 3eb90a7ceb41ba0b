import { readProviderAnswers } from "./provider-answers.js";
import { serveProvider } from "./runtime/serve.js";

// `terraform-provider-converge`: terraform starts it (docs/manual/terraform-provider.md). Its
// schemas and other constant answers come from the files the build wrote; its code loads on the
// first call that needs more than those, so that neither delays terraform.
serveProvider(
  async () => {
    const [{ readProviderSchemas }, { schemasFirstProvider }] = await Promise.all([import("./provider-schemas.js"), import("./runtime/index.js")]);
    return schemasFirstProvider(
      readProviderSchemas(),
      () => import("./converge-provider.js").then((module) => module.convergeProvider),
      () => import("./converge-validation.js").then((module) => module.convergeValidation),
    );
  },
  { certificateOrganization: "converge", constantAnswers: readProviderAnswers },
).catch((error: unknown) => {
  process.stderr.write(`terraform-provider-converge could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
