import { serveProvider } from "./runtime/serve.js";

// `terraform-provider-converge`: terraform starts it (README, "Terraform provider"). The provider's
// code is loaded after the handshake, so that its imports do not delay terraform.
await serveProvider(() => import("./converge-provider.js").then((module) => module.convergeProvider));
