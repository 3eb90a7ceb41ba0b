import { serveProvider } from "./runtime/serve.js";

// `terraform-provider-converge`: terraform starts it (docs/manual/terraform-provider.md). Its schemas come
// from the file the build wrote; its code loads after the handshake, and only for a call that needs
// more than schemas, so that neither delays terraform.
await serveProvider(
  async () => {
    const [{ readProviderSchemas }, { schemasFirstProvider }] = await Promise.all([import("./provider-schemas.js"), import("./runtime/index.js")]);
    return schemasFirstProvider(
      readProviderSchemas(),
      () => import("./converge-provider.js").then((module) => module.convergeProvider),
      () => import("./converge-validation.js").then((module) => module.convergeValidation),
    );
  },
  { certificateOrganization: "converge" },
);
