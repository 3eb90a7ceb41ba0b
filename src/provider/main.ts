import { startupSnapshot } from "node:v8";
import { readProviderAnswers } from "./provider-answers.js";
import { serveProvider } from "./runtime/serve.js";

// `terraform-provider-converge`: terraform starts it (docs/manual/terraform-provider.md). Its
// schemas and other constant answers come from the files the build wrote; its code loads on the
// first call that needs more than those, so that neither delays terraform.
function serve(): void {
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
}

// The release's executable starts from a V8 startup snapshot taken after this module ran
// (src/cli/release/sea-executable.ts): then it serves when the snapshot is deserialized, not now.
// What every process loads of Node.js's own modules is loaded into the snapshot too, where it can
// be (node:tls holds bindings a snapshot cannot serialize): node:net, which listens; node:cluster,
// which node:net's listen asks whether this process is a cluster's worker (it decides when it
// loads, from NODE_UNIQUE_ID: a plugin terraform starts never is); node:os, for the socket's
// directory. Measured: node:net 10 ms less to the handshake line (docs/manual/benchmarks.md).
if (startupSnapshot.isBuildingSnapshot()) {
  for (const id of ["node:net", "node:cluster", "node:os"]) process.getBuiltinModule(id);
  // what every process but the first of a command loads anyway: its module state (zod, the kinds'
  // documents and schemas, the codecs) comes made from the snapshot; the clients and the engine
  // cannot come with it (undici holds node:http's bindings) and load at ConfigureProvider; and the
  // validation path run once with valid configuration of each type, and an answer of each read a
  // configured provider makes parsed (snapshot-warm-up.ts)
  void import("./snapshot-warm-up.js").then(({ warmUpAnswers, warmUpValidation }) => {
    warmUpAnswers();
    return warmUpValidation();
  });
  // the builder's process ID is the one fact of the build's own process left in the heap (Node.js
  // sets the running process's again when the snapshot is deserialized): without it, the same
  // bundle gives the same snapshot, byte for byte
  startupSnapshot.addSerializeCallback(() => Object.defineProperty(process, "pid", { value: 0 }));
  startupSnapshot.setDeserializeMainFunction(serve);
} else serve();
