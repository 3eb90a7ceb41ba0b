import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { collect, Credentials, createClients } from "../../src/clients/index.js";
import type { Route } from "../../src/contract/gateway.js";
import { documentOfAttributes, terraformResourceOf } from "../../src/desired/terraform-resources.js";
import type { KindBinding, Values } from "../../src/provider/kind-resource/index.js";
import { alternateContactBinding } from "../../src/provider/resources/alternate-contact.js";
import { integrationBinding } from "../../src/provider/resources/integration.js";
import { regionOptInBinding } from "../../src/provider/resources/region-opt-in.js";
import { routeBinding } from "../../src/provider/resources/route.js";
import { ACCOUNTS, APIS, CONTACT_TYPES, ESTATE_TOKEN, MANAGEMENT, OPT_INS } from "./estate.js";

/**
 * terraform states (format 4, as terraform writes them: two-space indentation) for the drift
 * benchmarks: the live estate of estate.ts as converge's provider stores it after a refresh, and a
 * generated state of many routes beside the same routes as YAML documents.
 */

const CONVERGE = 'provider["registry.terraform.io/converge/converge"]';

/** One instance of a resource: its key (count or for_each), its attributes. */
interface StateInstance {
  readonly key: number | string;
  readonly attributes: Values;
  readonly dependencies?: ReadonlyArray<string>;
}

/** A managed resource of converge's provider with its instances, as the state's `resources` holds it. */
function stateResource(type: string, name: string, instances: ReadonlyArray<StateInstance>) {
  return {
    mode: "managed",
    type,
    name,
    provider: CONVERGE,
    instances: instances.map(({ key, attributes, dependencies }) => ({
      index_key: key,
      schema_version: 0,
      attributes,
      sensitive_attributes: [],
      ...(dependencies ? { dependencies } : {}),
    })),
  };
}

function stateText(resources: ReadonlyArray<unknown>): string {
  return `${JSON.stringify({ version: 4, terraform_version: "1.11.4", serial: 7, lineage: "5b0f7c1e-bench-0000-0000-000000000000", outputs: {}, resources, check_results: null }, null, 2)}\n`;
}

/** The state the provider keeps for a live resource after a refresh: every spec attribute as the live resource has it. */
function refreshed<Live>(binding: KindBinding<Live>, live: Live, held: Values): Values {
  return binding.state(live, binding.liveValues(live), held);
}

const accountOf = (account: string) => (account === MANAGEMENT ? null : account);

/**
 * Reads the live estate (after `converge apply` of writeEstate's documents) and writes the state
 * terraform would hold had it managed the same resources through converge's provider: per API a
 * counted converge_integration and converge_route (routes depend on the API's integrations), and
 * the contacts and Region opt-ins as for_each resources keyed `ACCOUNT/KEY`, the management
 * account's without account_id (the caller's own, as the documents leave it out). The Api
 * documents have no terraform resource: each API is a `converge_api` data source (which records
 * its protocol, as the YAML's Api documents declare it). Returns the number of instances written.
 */
export async function writeEstateState(endpoint: string, file: string): Promise<number> {
  const clients = createClients({ endpoint, credentials: new Credentials(ESTATE_TOKEN) });
  const resources: unknown[] = [];
  let instances = 0;
  try {
    for (const { apiId, protocolType } of APIS) {
      const held = { api_id: apiId };
      // the module looks its API up, as `converge export --format terraform` writes it: the state records the protocol
      resources.push({ mode: "data", type: "converge_api", name: apiId, provider: CONVERGE, instances: [{ schema_version: 0, attributes: { api_id: apiId, name: null, protocol_type: protocolType }, sensitive_attributes: [] }] });
      const integrations = await collect(clients.gateway.integrations(apiId));
      const routes = await collect(clients.gateway.routes(apiId));
      resources.push(stateResource("converge_integration", apiId, integrations.map((integration, key) => ({ key, attributes: refreshed(integrationBinding, integration, held) }))));
      resources.push(stateResource("converge_route", apiId, routes.map((route, key) => ({ key, attributes: refreshed(routeBinding, route, held), dependencies: [`converge_integration.${apiId}`] }))));
      instances += integrations.length + routes.length;
    }
    const contacts: StateInstance[] = [];
    const optIns: StateInstance[] = [];
    for (const account of ACCOUNTS) {
      const held = { account_id: accountOf(account) };
      const scope = account === MANAGEMENT ? {} : { AccountId: account };
      for (const type of CONTACT_TYPES) {
        const contact = await clients.account.getAlternateContact({ ...scope, AlternateContactType: type });
        if (contact === undefined) throw new Error(`alternate contact ${type} of account ${account} is absent: expected the estate applied`);
        contacts.push({ key: `${account}/${type}`, attributes: refreshed(alternateContactBinding, contact, held) });
      }
      const regions = await collect(clients.account.listRegions(scope));
      for (const { region } of OPT_INS) {
        const live = regions.find((candidate) => candidate.RegionName === region);
        if (live === undefined) throw new Error(`Region ${region} of account ${account} is not listed: expected it in the estate's world`);
        optIns.push({ key: `${account}/${region}`, attributes: refreshed(regionOptInBinding, { region, status: live.RegionOptStatus }, held) });
      }
    }
    resources.push(stateResource("converge_alternate_contact", "contact", contacts));
    resources.push(stateResource("converge_region_opt_in", "opt_in", optIns));
    instances += contacts.length + optIns.length;
  } finally {
    await clients.close();
  }
  await writeFile(file, stateText(resources));
  return instances;
}

/** The i-th generated route of an API, as the service would list it. */
function generatedRoute(apiIndex: number, i: number): Route {
  return {
    routeId: `r${String(i).padStart(6, "0")}`,
    routeKey: `GET /resource-${i}/{id}`,
    target: `integrations/i${String(i % 50).padStart(6, "0")}`,
    authorizationType: "JWT",
    authorizerId: `jwt${apiIndex}`,
    authorizationScopes: [`read-${i % 7}`, "admin"],
    apiKeyRequired: false,
    apiGatewayManaged: false,
  };
}

/** A value in a YAML document: JSON's form of it, which YAML reads as the same value. */
const yamlValue = (value: unknown) => JSON.stringify(value);

/** A route's document as YAML, each field of its spec on its own line. */
function routeYaml(document: Readonly<Record<string, unknown>>): string {
  const spec = document.spec as Readonly<Record<string, unknown>>;
  return `kind: Route\napi: ${String(document.api)}\nspec:\n${Object.entries(spec).map(([field, value]) => `  ${field}: ${yamlValue(value)}\n`).join("")}`;
}

/**
 * `apis × perApi` generated routes, written twice: as one terraform state (a counted converge_route
 * per API, attributes as the provider stores them) and as the same routes' documents (the ones the
 * state's instances load as, route IDs pinned) in one YAML file per API. Returns how many routes.
 */
export async function writeRouteSources(stateFile: string, yamlDirectory: string, apis: number, perApi: number): Promise<number> {
  const resource = terraformResourceOf("Route");
  const resources: unknown[] = [];
  await mkdir(yamlDirectory, { recursive: true });
  for (let a = 0; a < apis; a += 1) {
    const apiId = `bulk${String(a).padStart(6, "0")}`;
    const instances: StateInstance[] = Array.from({ length: perApi }, (_, i) => ({ key: i, attributes: refreshed(routeBinding, generatedRoute(a, i), { api_id: apiId }) }));
    resources.push(stateResource("converge_route", apiId, instances));
    const documents = instances.map(({ attributes }) => routeYaml(documentOfAttributes(resource, attributes, { pin: attributes })));
    await writeFile(join(yamlDirectory, `${apiId}.yaml`), documents.join("---\n"));
  }
  await writeFile(stateFile, stateText(resources));
  return apis * perApi;
}
