import type { ListedDataSource, ListedResource, ServedProvider } from "./provider-definition.js";
import type { Schema } from "./schema.js";

/** A provider's schemas alone, as JSON can hold them: what terraform asks a provider first. */
export interface ProviderSchemas {
  readonly name: string;
  readonly provider: Schema;
  readonly resources: Readonly<Record<string, Schema>>;
  readonly dataSources: Readonly<Record<string, Schema>>;
}

/** The schemas of a provider definition, for `schemasFirstProvider` (written at build time, say). */
export function schemasOf<P>(definition: ServedProvider<P>): ProviderSchemas {
  const schemas = (listed: Readonly<Record<string, { readonly schema: Schema }>>) => Object.fromEntries(Object.entries(listed).map(([name, entry]) => [name, entry.schema]));
  return { name: definition.name, provider: definition.schema, resources: schemas(definition.resources), dataSources: schemas(definition.dataSources) };
}

/**
 * What a provider validates configuration with, apart from the rest of its definition: its own
 * `validate`, and each resource's and data source's, by name. The same functions as the
 * definition's, so that a process that only validates (terraform starts one per command) loads
 * only what they import.
 */
export interface ProviderValidation {
  readonly validate?: ServedProvider<unknown>["validate"];
  readonly resources: Readonly<Record<string, Pick<ListedResource<unknown>, "validate">>>;
  readonly dataSources: Readonly<Record<string, Pick<ListedDataSource<unknown>, "validate">>>;
}

/**
 * A provider that answers terraform's schema requests from `schemas` and loads its definition
 * (`load`, called once) on the first call that needs more. terraform starts a provider several times
 * per command, the first time only for its schemas: that start then loads none of the provider's
 * code. `schemas` must be the definition's own (see `schemasOf`); every call is passed on as is.
 * With `loadValidation` (called once), validation calls go to what it loads instead, and a process
 * that only validates never loads the definition; it must validate as the definition does.
 */
export function schemasFirstProvider<P>(schemas: ProviderSchemas, load: () => Promise<ServedProvider<P>>, loadValidation?: () => Promise<ProviderValidation>): ServedProvider<P> {
  let loaded: Promise<ServedProvider<P>> | undefined;
  const definition = () => (loaded ??= load());
  let loadedValidation: Promise<ProviderValidation> | undefined;
  const validation = (): Promise<ProviderValidation> => (loadedValidation ??= loadValidation ? loadValidation() : definition());
  const resource = (name: string, schema: Schema): ListedResource<P> => {
    const real = async () => (await definition()).resources[name]!;
    return {
      schema,
      validate: async (request) => (await validation()).resources[name]!.validate?.(request),
      plan: async (request) => (await real()).plan?.(request),
      read: async (request) => (await real()).read(request),
      create: async (request) => (await real()).create(request),
      update: async (request) => (await real()).update(request),
      delete: async (request) => (await real()).delete(request),
      importState: async (request) => {
        const target = await real();
        if (!target.importState) throw new Error(`${name} cannot be imported`);
        return target.importState(request);
      },
      // null: the real resource takes no state from other types (resource-move.ts says so to terraform)
      moveState: async (request) => {
        const target = await real();
        return target.moveState ? target.moveState(request) : null;
      },
      upgradeState: async (request) => {
        const target = await real();
        if (!target.upgradeState) throw new Error(`${name} has no upgrade of older state`);
        return target.upgradeState(request);
      },
    };
  };
  const dataSource = (name: string, schema: Schema): ListedDataSource<P> => {
    const real = async () => (await definition()).dataSources[name]!;
    return { schema, validate: async (request) => (await validation()).dataSources[name]!.validate?.(request), read: async (request) => (await real()).read(request) };
  };
  return {
    name: schemas.name,
    schema: schemas.provider,
    validate: async (request) => (await validation()).validate?.(request),
    configure: async (request) => (await definition()).configure(request),
    resources: Object.fromEntries(Object.entries(schemas.resources).map(([name, schema]) => [name, resource(name, schema)])),
    dataSources: Object.fromEntries(Object.entries(schemas.dataSources).map(([name, schema]) => [name, dataSource(name, schema)])),
  };
}
