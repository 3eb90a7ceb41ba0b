import { serveProvider } from "../../src/provider/runtime/serve.js";
import { isUnknown, type ResourceType, type Schema, type Value } from "../../src/provider/runtime/index.js";

/**
 * The benchmark's protocol floor: converge's provider with every resource's work taken out (no
 * service, no engine: a create fills what is unknown, a read answers the state it was given). What
 * terraform spends with it is what any provider of these schemas costs on this runtime.
 */
let counter = 0;

/** The values with each unknown one filled in by its attribute's type (a string an ID like the service's). */
function filled(values: Readonly<Record<string, Value>>, schema: Schema): Record<string, Value> {
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

await serveProvider(async () => {
  const { convergeProvider } = await import("../../src/provider/converge-provider.js");
  const nothing = (resource: ResourceType<Schema, unknown>): ResourceType<Schema, unknown> => ({
    schema: resource.schema,
    read: async ({ state }) => state,
    create: async ({ planned }) => filled(planned, resource.schema) as never,
    update: async ({ planned }) => filled(planned, resource.schema) as never,
    delete: async () => undefined,
  });
  return {
    ...convergeProvider,
    configure: () => ({}),
    resources: Object.fromEntries(Object.entries(convergeProvider.resources).map(([name, resource]) => [name, nothing(resource as ResourceType<Schema, unknown>)])),
  } as never;
});
