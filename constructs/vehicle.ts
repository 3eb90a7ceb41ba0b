import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Construct, IConstruct } from "constructs";
import { DataResource, Lazy, TerraformStack, type LocalExecProvisioner, type TerraformResource } from "cdktf";
import { addCustomSynthesis } from "cdktf/lib/synthesize/synthesizer.js";
import { provider as nullProvider, resource as nullResource } from "@cdktf/provider-null";

/**
 * The one module that touches cdktf and @cdktf/provider-null (STYLE.md 12: cdktf is unmaintained
 * upstream; a fork may replace it, and only this file would change). The constructs describe a
 * resource as plain data (triggers, one local-exec provisioner, dependencies); this adapter makes it a
 * `null_resource` or a `terraform_data`, writes files beside a stack's cdk.tf.json and finds stacks.
 */

export const VEHICLES = ["null_resource", "terraform_data"] as const;
/** The terraform resource type that carries a document. */
export type Vehicle = (typeof VEHICLES)[number];

/** A value of the provisioner's environment: one of the resource's own triggers, or literal text. */
export type EnvironmentValue = { readonly trigger: string } | { readonly literal: string | (() => string) };

export interface LocalExec {
  /** Runs after the resource is created, or before it is destroyed (reading only its own triggers). */
  readonly when: "create" | "destroy";
  /** Literal shell command; never holds a document (documents travel in the environment). */
  readonly command: string;
  readonly environment: Readonly<Record<string, EnvironmentValue>>;
}

export interface VehicleResourceSpec {
  readonly vehicle: Vehicle;
  /** The terraform resource name (`<type>.<name>`), unique in the stack. */
  readonly name: string;
  /** Values whose change replaces the resource; a function is evaluated at synth. */
  readonly triggers: Readonly<Record<string, string | (() => string)>>;
  readonly provisioner?: LocalExec | undefined;
  readonly dependsOn?: ReadonlyArray<VehicleResource> | undefined;
}

/** A resource made by `createVehicleResource`; opaque to the constructs. */
export interface VehicleResource {
  /** `<type>.<name>`, as terraform addresses it. */
  readonly address: string;
}
const terraformResources = new WeakMap<VehicleResource, TerraformResource>();

/**
 * Text for a literal string of cdk.tf.json. terraform reads every string there as a template, so
 * `${` and `%{` are doubled (`$${`, `%%{`: terraform's escapes, which it turns back into one).
 */
export function terraformLiteral(text: string): string {
  return text.replaceAll("${", "$${").replaceAll("%{", "%%{");
}

/**
 * JSON text that terraform passes through unchanged: JSON with every `${` and `%{` written as
 * `\u0024{` and `\u0025{`. No template sequence remains (for terraform, nor for cdktf's own token
 * markers), and any JSON parser reads back exactly the original value.
 */
export function templateSafeJson(json: string): string {
  return json.replaceAll("${", "\\u0024{").replaceAll("%{", "\\u0025{");
}

function triggerReference(vehicle: Vehicle, key: string): string {
  return vehicle === "terraform_data" ? `\${self.triggers_replace.${key}}` : `\${self.triggers.${key}}`;
}

function lazyString(value: string | (() => string)): string {
  return typeof value === "string" ? value : Lazy.stringValue({ produce: value });
}

/** Creates the resource of the chosen vehicle with the given triggers, provisioner and dependencies. */
export function createVehicleResource(scope: Construct, id: string, spec: VehicleResourceSpec): VehicleResource {
  const triggers = Object.fromEntries(Object.entries(spec.triggers).map(([key, value]) => [key, lazyString(value)]));
  const provisioners: LocalExecProvisioner[] = spec.provisioner ? [{
    type: "local-exec",
    when: spec.provisioner.when,
    command: terraformLiteral(spec.provisioner.command),
    environment: Object.fromEntries(Object.entries(spec.provisioner.environment).map(([name, value]) => [
      name,
      "trigger" in value ? triggerReference(spec.vehicle, value.trigger) : lazyString(typeof value.literal === "string" ? terraformLiteral(value.literal) : () => terraformLiteral((value.literal as () => string)())),
    ])),
  }] : [];
  const dependsOn = (spec.dependsOn ?? []).map((dependency) => terraformResources.get(dependency)!);
  const meta = { ...(provisioners.length > 0 ? { provisioners } : {}), ...(dependsOn.length > 0 ? { dependsOn } : {}) };
  const resource: TerraformResource = spec.vehicle === "terraform_data"
    ? new DataResource(scope, id, { triggersReplace: triggers, ...meta })
    : new nullResource.Resource(scope, id, { triggers, ...meta });
  resource.overrideLogicalId(spec.name);
  const made: VehicleResource = { address: `${spec.vehicle}.${spec.name}` };
  terraformResources.set(made, resource);
  return made;
}

/** Declares the provider the vehicle needs: hashicorp/null for null_resource, none for terraform_data (built in). */
export function declareVehicleProvider(scope: Construct, id: string, vehicle: Vehicle): void {
  if (vehicle === "null_resource") new nullProvider.NullProvider(scope, id, {});
}

/** The stack a construct belongs to. */
export function stackOf(scope: IConstruct): IConstruct {
  return TerraformStack.of(scope);
}

/** Writes a file beside the stack's cdk.tf.json each time the stack is synthesized (after validation). */
export function writeBesideStack(scope: IConstruct, fileName: string, produce: () => string): void {
  addCustomSynthesis(scope, {
    onSynthesize(session) {
      const directory = join(session.outdir, session.manifest.forStack(TerraformStack.of(scope)).workingDirectory);
      mkdirSync(directory, { recursive: true });
      writeFileSync(join(directory, fileName), produce());
    },
  });
}
