import { readProviderAnswers } from "../../src/provider/provider-answers.js";
import { readProviderSchemas } from "../../src/provider/provider-schemas.js";
import type { ListedResource, Schema, ServedProvider, Value } from "../../src/provider/runtime/index.js";
import { serveProvider } from "../../src/provider/runtime/serve.js";

/**
 * The benchmark's protocol floor: converge's provider runtime serving converge's schemas with all
 * of the provider's own work taken out (no validation, no service, no engine: a plan is the
 * runtime's own, a create fills what is unknown, a read answers the state it was given). What
 * terraform spends with it is what any provider of these schemas costs on this runtime. Its
 * definition is made from the schemas and constant answers the build wrote, so that it loads none
 * of the provider's code (zod, the clients, undici).
 *
 * Run as it is (`node dist/test/bench/floor-provider.js`), or packaged as the release packages the
 * provider (`test/bench/packaged-floor.ts`: a Bun single executable of its bundle).
 */
let counter = 0;

/** The values with each unknown one filled in by its attribute's type (a string an ID like the service's). */
function filled(values: Readonly<Record<string, Value>>, schema: Schema, isUnknown: (value: Value) => boolean): Record<string, Value> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => {
    if (!isUnknown(value)) return [name, value];
    const kind = schema.attributes[name]?.type.kind;
    if (kind === "bool") return [name, false];
    if (kind === "number") return [name, 30000];
    if (kind !== "string") return [name, null];
    counter += 1;
    return [name, `floor${counter}`];
  }));
}

/** converge's schemas, every resource and data source doing nothing. */
async function floorDefinition(): Promise<ServedProvider<unknown>> {
  const { isUnknown } = await import("../../src/provider/runtime/index.js");
  const schemas = readProviderSchemas();
  const nothing = (schema: Schema): ListedResource<unknown> => ({
    schema,
    read: async ({ state }) => state,
    create: async ({ planned }) => filled(planned, schema, isUnknown),
    update: async ({ planned }) => filled(planned, schema, isUnknown),
    delete: async () => undefined,
  });
  return {
    name: schemas.name,
    schema: schemas.provider,
    configure: () => ({}),
    resources: Object.fromEntries(Object.entries(schemas.resources).map(([name, schema]) => [name, nothing(schema)])),
    dataSources: Object.fromEntries(Object.entries(schemas.dataSources).map(([name, schema]) => [name, { schema, read: async ({ config }) => filled(config, schema, isUnknown) }])),
  };
}

function serve(): void {
  serveProvider(floorDefinition, { certificateOrganization: "converge-floor", constantAnswers: readProviderAnswers }).catch((error: unknown) => {
    process.stderr.write(`the floor provider could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}

serve();
