import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Construct, IConstruct } from "constructs";
import * as cdktf from "cdktf";
import * as cdktfSynthesizer from "cdktf/lib/synthesize/synthesizer.js";
import { provider as nullProvider, resource as nullResource } from "@cdktf/provider-null";

/**
 * The one module that touches cdktf, its maintained fork cdktn, and @cdktf/provider-null
 * (README, "cdktf constructs": cdktf is no longer maintained upstream, so one adapter holds it). The constructs describe a resource as plain data (triggers, one local-exec
 * provisioner, dependencies); this adapter makes it a `null_resource` or a `terraform_data` with
 * the library the user's app is built with (cdktf 0.21 or cdktn 0.24: the same API under another
 * name), writes files beside a stack's cdk.tf.json and finds stacks.
 */

export const VEHICLES = ["null_resource", "terraform_data"] as const;
/** The terraform resource type that carries the stack's state. */
export type Vehicle = (typeof VEHICLES)[number];

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
  readonly vehicle: Vehicle;
  /** The terraform resource name (`<type>.<name>`), unique in the stack. */
  readonly name: string;
  /** Values whose change replaces the resource, produced at synth (after every construct is added). */
  readonly triggers: () => Readonly<Record<string, string>>;
  readonly provisioner?: LocalExec | undefined;
  readonly dependsOn?: ReadonlyArray<VehicleResource> | undefined;
}

/** A resource made by `createVehicleResource`; opaque to the constructs. */
export interface VehicleResource {
  /** `<type>.<name>`, as terraform addresses it. */
  readonly address: string;
}

/** What this adapter uses of cdktf, and of cdktn where the app is built with it. */
type Library = Pick<typeof cdktf, "App" | "TerraformStack" | "DataResource" | "TerraformResource" | "TerraformProvider" | "Lazy">;
interface Kit {
  readonly library: Library;
  readonly addCustomSynthesis: typeof cdktfSynthesizer.addCustomSynthesis;
  nullResource(scope: Construct, id: string, config: { triggers: unknown; provisioners?: cdktf.LocalExecProvisioner[]; dependsOn?: cdktf.ITerraformDependable[] }): cdktf.TerraformResource;
  nullProvider(scope: Construct, id: string): void;
}

const CDKTF: Kit = {
  library: cdktf,
  addCustomSynthesis: cdktfSynthesizer.addCustomSynthesis,
  nullResource: (scope, id, config) => new nullResource.Resource(scope, id, config as nullResource.ResourceConfig),
  nullProvider: (scope, id) => void new nullProvider.NullProvider(scope, id, {}),
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
  });
}

/** The kit of the library `scope`'s app is built with: cdktn when its App is cdktn's, else cdktf. */
function kitOf(scope: IConstruct): Kit {
  const kit = cdktnKit();
  return kit && scope.node.root instanceof kit.library.App ? kit : CDKTF;
}

/** The library a construct's app is built with, for messages and tests. */
export function libraryNameOf(scope: IConstruct): "cdktf" | "cdktn" {
  return kitOf(scope) === CDKTF ? "cdktf" : "cdktn";
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

/** A reference to one of the resource's own triggers; `lookup` so that a key the resource's state lacks reads as "". */
function triggerReference(vehicle: Vehicle, key: string): string {
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

/** Declares the provider the vehicle needs: hashicorp/null for null_resource, none for terraform_data (built in). */
export function declareVehicleProvider(scope: Construct, id: string, vehicle: Vehicle): void {
  if (vehicle === "null_resource") kitOf(scope).nullProvider(scope, id);
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
