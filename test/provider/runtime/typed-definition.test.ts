import { describe, expect, expectTypeOf, it } from "vitest";
import {
  defineSchema,
  errorDiagnostic,
  isResourceWithImportState,
  isResourceWithMoveState,
  isResourceWithUpgradeState,
  types,
  UNKNOWN,
  type ConfigOf,
  type DataSourceType,
  type ProviderDefinition,
  type ResourceType,
  type ResourceWithImportState,
  type StateOf,
  type Unknown,
} from "../../../src/provider/runtime/index.js";
import { definitionProblems } from "../../../src/provider/runtime/provider-service.js";

/** A provider written in TypeScript the way converge's will be: the schema types the values each call receives. */
interface Client {
  readonly endpoint: string;
}

const routeSchema = defineSchema({
  attributes: {
    id: { type: types.string, computed: true },
    api_id: { type: types.string, required: true, requiresReplace: true },
    route_key: { type: types.string, required: true },
    tags: { type: types.map(types.string), optional: true },
    targets: { type: types.list(types.object({ port: types.number, host: types.string })), optional: true },
  },
});

const route: ResourceType<typeof routeSchema, Client> = {
  schema: routeSchema,
  validate({ config }) {
    return config.route_key === "bad" ? [errorDiagnostic("bad route key", undefined, ["route_key"])] : [];
  },
  plan({ planned }) {
    return planned === null ? {} : { planned: { ...planned, id: planned.id ?? UNKNOWN } };
  },
  async read({ state }) {
    return state;
  },
  async create({ planned, provider }) {
    return { id: `${provider.endpoint}/1`, api_id: planned.api_id as string, route_key: planned.route_key as string, tags: null, targets: null };
  },
  async update({ prior }) {
    return prior;
  },
  async delete() {},
};

/** The same resource with a capability, declared in its type (terraform-plugin-framework's `ResourceWithImportState`). */
const importableRoute: ResourceType<typeof routeSchema, Client> & ResourceWithImportState<typeof routeSchema, Client> = {
  ...route,
  async importState({ id, provider }) {
    return { id, api_id: provider.endpoint, route_key: "GET /", tags: null, targets: null };
  },
};

const apiSchema = defineSchema({ attributes: { name: { type: types.string, required: true }, id: { type: types.string, computed: true } } });

const apis: DataSourceType<typeof apiSchema, Client> = {
  schema: apiSchema,
  async read({ config }) {
    return { ...config, id: config.name };
  },
};

const providerSchema = defineSchema({ attributes: { endpoint: { type: types.string, optional: true } } });

const provider: ProviderDefinition<typeof providerSchema, Client> = {
  name: "converge",
  schema: providerSchema,
  configure({ config }) {
    return { endpoint: typeof config.endpoint === "string" ? config.endpoint : "http://localhost" };
  },
  resources: { converge_route: route, converge_importable_route: importableRoute },
  dataSources: { converge_api: apis },
};

describe("typed definitions", () => {
  it("types a resource's values from its schema: required attributes not null in state, unknowns only in configuration", () => {
    expectTypeOf<StateOf<typeof routeSchema>["api_id"]>().toEqualTypeOf<string>();
    expectTypeOf<StateOf<typeof routeSchema>["id"]>().toEqualTypeOf<string | null>();
    expectTypeOf<ConfigOf<typeof routeSchema>["api_id"]>().toEqualTypeOf<string | Unknown>();
    expectTypeOf<StateOf<typeof routeSchema>["tags"]>().toEqualTypeOf<{ readonly [key: string]: string | null } | null>();
    expectTypeOf<StateOf<typeof routeSchema>["targets"]>().toEqualTypeOf<ReadonlyArray<{ readonly port: number | null; readonly host: string | null } | null> | null>();
  });

  it("accepts a provider of typed resources with no definition problem", () => {
    expect(definitionProblems(provider)).toEqual([]);
  });

  it("finds each capability of a resource type by its guard, and only the ones it has", () => {
    expect([isResourceWithImportState(importableRoute), isResourceWithUpgradeState(importableRoute), isResourceWithMoveState(importableRoute)]).toEqual([true, false, false]);
    expect([isResourceWithImportState(route), isResourceWithUpgradeState(route), isResourceWithMoveState(route)]).toEqual([false, false, false]);
    const upgradable: ResourceType<typeof routeSchema, Client> = Object.assign({ ...route }, { upgradeState: ({ state }: { readonly state: unknown }) => state, moveState: "not a function" });
    expect([isResourceWithUpgradeState(upgradable), isResourceWithMoveState(upgradable)]).toEqual([true, false]);
  });

  it("reports every problem of a definition at once", () => {
    const broken = {
      ...provider,
      resources: {
        route: route,
        converge_bad: { ...route, schema: { attributes: { Name: { type: types.string }, count: { type: types.string, required: true, computed: true } } } },
      },
    } as unknown as ProviderDefinition;
    expect(definitionProblems(broken)).toEqual([
      'resource route: the type name does not start with "converge_": terraform expects the provider\'s name as prefix',
      'resource converge_bad: attribute "Name" is not a valid name: expected lower-case letters, digits and underscores',
      'resource converge_bad: attribute "Name" is neither required, optional nor computed: expected one of them',
      'resource converge_bad: attribute "count" is a name terraform reserves in a resource block',
      'resource converge_bad: attribute "count" is required and also computed: expected required alone',
    ]);
  });
});
