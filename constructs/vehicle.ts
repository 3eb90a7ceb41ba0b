import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Construct, IConstruct } from "constructs";
import * as cdktf from "cdktf";
import * as cdktfSynthesizer from "cdktf/lib/synthesize/synthesizer.js";
import { provider as nullProvider, resource as nullResource } from "@cdktf/provider-null";
import { PROVIDER_NAME, PROVIDER_SOURCE } from "../src/desired/terraform-attributes.js";

/**
 * The one module that touches cdktf, its maintained fork cdktn, and @cdktf/provider-null
 * (docs/manual/cdktf.md: cdktf is no longer maintained upstream, so one adapter holds it).
 * The constructs describe what they emit as plain data: a resource of a CLI vehicle (triggers, one
 * local-exec provisioner, dependencies), made a `null_resource` or a `terraform_data`; or a
 * resource or data source of converge's own provider (its type, attributes, an import, conditions),
 * made a generic element of that type. This adapter makes them with the library the user's app is
 * built with (cdktf 0.21 or cdktn 0.24: the same API under another name), writes files beside a
 * stack's cdk.tf.json and finds stacks.
 */

export const VEHICLES = ["null_resource", "terraform_data", "provider"] as const;
/**
 * What carries the stack's resources: one of the CLI vehicles, whose three resources run the
 * converge CLI in provisioners, or "provider", one resource of converge's own terraform provider
 * per construct.
 */
export type Vehicle = (typeof VEHICLES)[number];
/** The vehicles whose resources run the converge CLI. */
export type CliVehicle = Exclude<Vehicle, "provider">;

/** A value of the provisioner's environment: one of the resource's own triggers (empty when it has no such key), or literal text. */
export type EnvironmentValue = { readonly trigger: string } | { readonly literal: string | (() => string) };

export interface LocalExec {
  /** Runs after the resource is created, or before it is destroyed (reading only its own triggers). */
  readonly when: "create" | "destroy";
  /** Literal shell command; never holds a document (documents travel in files and the environment). */
  readonly command: string;
  readonly environment: Readonly<Record<string, EnvironmentValue>>;
}

export interface VehicleResourceSpec {
  readonly vehicle: CliVehicle;
  /** The terraform resource name (`<type>.<name>`), unique in the stack. */
  readonly name: string;
  /** Values whose change replaces the resource, produced at synth (after every construct is added). */
  readonly triggers: () => Readonly<Record<string, string>>;
  readonly provisioner?: LocalExec | undefined;
  readonly dependsOn?: ReadonlyArray<VehicleResource> | undefined;
}

/** A resource made by `createVehicleResource` or `createProviderElement`; opaque to the constructs. */
export interface VehicleResource {
  /** `<type>.<name>` (`data.<type>.<name>` for a data source), as terraform addresses it. */
  readonly address: string;
}

/** A terraform condition: an expression (a template, `${…}`) and the message terraform shows when it is false. */
export interface Condition {
  readonly condition: string;
  readonly errorMessage: string;
}

/** A resource or data source of converge's own provider (the "provider" vehicle). */
export interface ProviderElementSpec {
  readonly block: "resource" | "data";
  /** The provider's type: `converge_route`, `converge_api`. */
  readonly type: string;
  /** The terraform name, unique among the stack's elements of the type and block. */
  readonly name: string;
  /** Attribute values as cdk.tf.json holds them: text is a template (user text made literal with `templateLiteral`). */
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Attributes whose difference from live terraform ignores (`lifecycle.ignore_changes`). */
  readonly ignoreChanges?: ReadonlyArray<string> | undefined;
  /** An import block bringing the live object of this ID under the resource (resources only). */
  readonly importId?: string | undefined;
  /** Conditions terraform checks once it has read the object (`lifecycle.postcondition`). */
  readonly postconditions?: ReadonlyArray<Condition> | undefined;
}

/** What this adapter uses of cdktf, and of cdktn where the app is built with it. */
type Library = Pick<typeof cdktf, "App" | "TerraformStack" | "DataResource" | "TerraformResource" | "TerraformDataSource" | "TerraformProvider" | "Lazy">;
interface Kit {
  readonly library: Library;
  readonly addCustomSynthesis: typeof cdktfSynthesizer.addCustomSynthesis;
  nullResource(scope: Construct, id: string, config: { triggers: unknown; provisioners?: cdktf.LocalExecProvisioner[]; dependsOn?: cdktf.ITerraformDependable[] }): cdktf.TerraformResource;
  nullProvider(scope: Construct, id: string): void;
  readonly converge: ConvergeElements;
}

/** Generic elements of converge's provider: no bindings are generated for it, its schema is converge's own. */
interface ConvergeElements {
  resource(scope: Construct, id: string, type: string, attributes: Readonly<Record<string, unknown>>, lifecycle: cdktf.TerraformResourceLifecycle | undefined): cdktf.TerraformResource;
  dataSource(scope: Construct, id: string, type: string, attributes: Readonly<Record<string, unknown>>, lifecycle: cdktf.TerraformResourceLifecycle | undefined): cdktf.TerraformDataSource;
  provider(scope: Construct, id: string, attributes: Readonly<Record<string, unknown>>): void;
}

/** The classes of converge's provider's elements, on `library`'s base classes. */
function convergeElements(library: Library): ConvergeElements {
  const metadata = { providerName: PROVIDER_NAME };
  class ConvergeTerraformResource extends library.TerraformResource {
    readonly #attributes: Readonly<Record<string, unknown>>;
    constructor(scope: Construct, id: string, type: string, attributes: Readonly<Record<string, unknown>>, lifecycle: cdktf.TerraformResourceLifecycle | undefined) {
      super(scope, id, { terraformResourceType: type, terraformGeneratorMetadata: metadata, ...(lifecycle ? { lifecycle } : {}) });
      this.#attributes = attributes;
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { ...this.#attributes };
    }
  }
  class ConvergeDataSource extends library.TerraformDataSource {
    readonly #attributes: Readonly<Record<string, unknown>>;
    constructor(scope: Construct, id: string, type: string, attributes: Readonly<Record<string, unknown>>, lifecycle: cdktf.TerraformResourceLifecycle | undefined) {
      super(scope, id, { terraformResourceType: type, terraformGeneratorMetadata: metadata, ...(lifecycle ? { lifecycle } : {}) });
      this.#attributes = attributes;
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { ...this.#attributes };
    }
  }
  class ConvergeProvider extends library.TerraformProvider {
    readonly #attributes: Readonly<Record<string, unknown>>;
    constructor(scope: Construct, id: string, attributes: Readonly<Record<string, unknown>>) {
      super(scope, id, { terraformResourceType: PROVIDER_NAME, terraformGeneratorMetadata: metadata, terraformProviderSource: PROVIDER_SOURCE });
      this.#attributes = attributes;
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { ...this.#attributes };
    }
  }
  return {
    resource: (scope, id, type, attributes, lifecycle) => new ConvergeTerraformResource(scope, id, type, attributes, lifecycle) as unknown as cdktf.TerraformResource,
    dataSource: (scope, id, type, attributes, lifecycle) => new ConvergeDataSource(scope, id, type, attributes, lifecycle) as unknown as cdktf.TerraformDataSource,
    provider: (scope, id, attributes) => void new ConvergeProvider(scope, id, attributes),
  };
}

const CDKTF: Kit = {
  library: cdktf,
  addCustomSynthesis: cdktfSynthesizer.addCustomSynthesis,
  nullResource: (scope, id, config) => new nullResource.Resource(scope, id, config as nullResource.ResourceConfig),
  nullProvider: (scope, id) => void new nullProvider.NullProvider(scope, id, {}),
  converge: convergeElements(cdktf),
};

let cdktn: Kit | null | undefined;

/**
 * cdktn's kit, if cdktn is installed (an optional peer dependency). There is no null provider
 * package for cdktn: `null_resource` and its provider are declared as generic elements, which
 * synthesize the same JSON as @cdktf/provider-null's.
 */
function cdktnKit(): Kit | null {
  if (cdktn !== undefined) return cdktn;
  const require = createRequire(import.meta.url);
  let library: Library;
  let synthesizer: typeof cdktfSynthesizer;
  try {
    library = require("cdktn") as Library;
    synthesizer = require("cdktn/lib/synthesize/synthesizer.js") as typeof cdktfSynthesizer;
  } catch {
    return (cdktn = null);
  }
  class NullResource extends library.TerraformResource {
    readonly #triggers: unknown;
    constructor(scope: Construct, id: string, config: { triggers: unknown; provisioners?: cdktf.LocalExecProvisioner[]; dependsOn?: cdktf.ITerraformDependable[] }) {
      super(scope, id, { terraformResourceType: "null_resource", terraformGeneratorMetadata: { providerName: "null" }, provisioners: config.provisioners, dependsOn: config.dependsOn });
      this.#triggers = config.triggers;
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return { triggers: this.#triggers };
    }
  }
  class NullProvider extends library.TerraformProvider {
    constructor(scope: Construct, id: string) {
      super(scope, id, { terraformResourceType: "null", terraformGeneratorMetadata: { providerName: "null" }, terraformProviderSource: "hashicorp/null" });
    }
    protected override synthesizeAttributes(): Record<string, unknown> {
      return {};
    }
  }
  return (cdktn = {
    library,
    addCustomSynthesis: synthesizer.addCustomSynthesis,
    nullResource: (scope, id, config) => new NullResource(scope, id, config) as unknown as cdktf.TerraformResource,
    nullProvider: (scope, id) => void new NullProvider(scope, id),
    converge: convergeElements(library),
  });
}

/** The kit of the library `scope`'s app is built with: cdktn when its App is cdktn's, else cdktf. */
function kitOf(scope: IConstruct): Kit {
  const kit = cdktnKit();
  return kit && scope.node.root instanceof kit.library.App ? kit : CDKTF;
}

const terraformResources = new WeakMap<VehicleResource, cdktf.TerraformResource>();

/** Whether a text holds a terraform template sequence (`${` or `%{`), which terraform would evaluate. */
export function hasTemplateSequence(text: string): boolean {
  return /[$%]\{/.test(text);
}

/**
 * A trigger key that terraform reads as plain text. terraform reads the keys of cdk.tf.json's maps
 * as templates, and cdktf turns its escape `$${` back into `${` on the way, so the sequences are
 * broken up instead (`${` becomes `$ {`): a key only names a construct for people reading a plan.
 */
function plainKey(text: string): string {
  return text.replace(/([$%])\{/g, "$1 {");
}

/**
 * Text as a terraform template that reads as the text itself: `${` and `%{` escaped (`$${`, `%%{`),
 * in values and in map keys alike (cdktf keeps both as written in a generic element's attributes),
 * at any depth of a value. Everything the provider vehicle writes of a document goes through it;
 * only the references the constructs make (`${converge_integration.x.integration_id}`) do not.
 */
export function templateLiteral(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/([$%])\{/g, "$1$1{");
  if (Array.isArray(value)) return value.map(templateLiteral);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [templateLiteral(key), templateLiteral(item)]));
  return value;
}

/** A reference to one of the resource's own triggers; `lookup` so that a key the resource's state lacks reads as "". */
function triggerReference(vehicle: CliVehicle, key: string): string {
  return `\${lookup(self.${vehicle === "terraform_data" ? "triggers_replace" : "triggers"}, ${JSON.stringify(key)}, "")}`;
}

/** Creates the resource of the chosen vehicle with the given triggers, provisioner and dependencies. */
export function createVehicleResource(scope: Construct, id: string, spec: VehicleResourceSpec): VehicleResource {
  const kit = kitOf(scope);
  const lazy = <T>(produce: () => T): T => kit.library.Lazy.anyValue({ produce }) as T;
  // literals and trigger values are checked or made by converge: none holds a template sequence
  const literal = (value: string | (() => string)): string => typeof value === "string" ? value : kit.library.Lazy.stringValue({ produce: value });
  const triggers = lazy(() => Object.fromEntries(Object.entries(spec.triggers()).map(([key, value]) => [plainKey(key), value])));
  const provisioners: cdktf.LocalExecProvisioner[] = spec.provisioner ? [{
    type: "local-exec",
    when: spec.provisioner.when,
    command: spec.provisioner.command,
    environment: Object.fromEntries(Object.entries(spec.provisioner.environment).map(([name, value]) => [
      name,
      "trigger" in value ? triggerReference(spec.vehicle, value.trigger) : literal(value.literal),
    ])),
  }] : [];
  const dependsOn = (spec.dependsOn ?? []).map((dependency) => terraformResources.get(dependency)!);
  const meta = { ...(provisioners.length > 0 ? { provisioners } : {}), ...(dependsOn.length > 0 ? { dependsOn } : {}) };
  const resource = spec.vehicle === "terraform_data"
    ? new kit.library.DataResource(scope, id, { triggersReplace: triggers, ...meta }) as cdktf.TerraformResource
    : kit.nullResource(scope, id, { triggers, ...meta });
  resource.overrideLogicalId(spec.name);
  const made: VehicleResource = { address: `${spec.vehicle}.${spec.name}` };
  terraformResources.set(made, resource);
  return made;
}

/**
 * Creates a resource or data source of converge's provider: a generic element of its type with the
 * attributes as given, the lifecycle's ignore_changes and postconditions, and an import block.
 */
export function createProviderElement(scope: Construct, id: string, spec: ProviderElementSpec): VehicleResource {
  const kit = kitOf(scope);
  const ignoreChanges = spec.ignoreChanges ?? [];
  const postconditions = spec.postconditions ?? [];
  const lifecycle = ignoreChanges.length + postconditions.length === 0 ? undefined : {
    ...(ignoreChanges.length > 0 ? { ignoreChanges: [...ignoreChanges] } : {}),
    ...(postconditions.length > 0 ? { postcondition: postconditions.map((condition) => ({ ...condition })) } : {}),
  };
  if (spec.block === "data") {
    kit.converge.dataSource(scope, id, spec.type, spec.attributes, lifecycle).overrideLogicalId(spec.name);
    return { address: `data.${spec.type}.${spec.name}` };
  }
  const resource = kit.converge.resource(scope, id, spec.type, spec.attributes, lifecycle);
  resource.overrideLogicalId(spec.name);
  // cdktf and cdktn check at synth that the terraform on the PATH is 1.5 or newer (import blocks)
  if (spec.importId !== undefined) resource.importFrom(spec.importId);
  const made: VehicleResource = { address: `${spec.type}.${spec.name}` };
  terraformResources.set(made, resource);
  return made;
}

/**
 * Declares the provider the vehicle needs: hashicorp/null for null_resource, none for terraform_data
 * (built in), converge's own for "provider" (with the endpoint, if given; never a token: the
 * provider reads CONVERGE_TOKEN where terraform runs).
 */
export function declareVehicleProvider(scope: Construct, id: string, vehicle: Vehicle, options: { readonly endpoint?: string | undefined } = {}): void {
  if (vehicle === "null_resource") kitOf(scope).nullProvider(scope, id);
  if (vehicle === "provider") kitOf(scope).converge.provider(scope, id, options.endpoint !== undefined ? { endpoint: templateLiteral(options.endpoint) } : {});
}

/**
 * Moves the state of a resource the stack held at `fromAddress` (`converge_route.old`) to `resource`:
 * a `moved` block (cdktf's and cdktn's own `moveFromId`).
 */
export function moveFrom(resource: VehicleResource, fromAddress: string): void {
  const element = terraformResources.get(resource);
  if (element === undefined) throw new Error(`${resource.address} is not a resource this adapter made`);
  element.moveFromId(fromAddress);
}

/**
 * Makes terraform forget resources of the stack without destroying them (`removed` blocks with
 * `lifecycle { destroy = false }`, terraform ≥ 1.7): no destroy-time provisioner runs, nothing is
 * sent. cdktf and cdktn have no construct for the block: it is the stack's override.
 */
export function forgetResources(scope: IConstruct, addresses: ReadonlyArray<string>): void {
  const stack = kitOf(scope).library.TerraformStack.of(scope);
  stack.addOverride("removed", addresses.map((address) => ({ from: address, lifecycle: { destroy: false } })));
}

/** Whether the app of `scope` writes HCL (`cdktf synth --hcl`) instead of cdk.tf.json. */
export function synthesizesHcl(scope: IConstruct): boolean {
  const root = scope.node.root;
  return root instanceof kitOf(scope).library.App && root.hclOutput;
}

/** The stack a construct belongs to. */
export function stackOf(scope: IConstruct): IConstruct {
  return kitOf(scope).library.TerraformStack.of(scope);
}

/** Writes a file beside the stack's cdk.tf.json each time the stack is synthesized (after validation). */
export function writeBesideStack(scope: IConstruct, fileName: string, produce: () => string): void {
  const kit = kitOf(scope);
  kit.addCustomSynthesis(scope, {
    onSynthesize(session) {
      const directory = join(session.outdir, session.manifest.forStack(kit.library.TerraformStack.of(scope)).workingDirectory);
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, fileName), produce());
    },
  });
}
