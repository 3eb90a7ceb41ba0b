import { Construct, type IConstruct } from "constructs";
import { z } from "zod";
import { SYNTH_DESIRED_FILE } from "../src/desired/synth-file.js";
import { describeZodIssues } from "../src/contract/field-issues.js";
import { INVENTORY_MAX_CHUNKS } from "../src/desired/inventory.js";
import { resourceBaseName } from "./documents.js";
import { cliUnusedByProvider, switchingWithoutProvider, duplicateConfig, hclWithProvider, missingConfig, tokenVariableWithProvider } from "./errors.js";
import { stackFacts, stackProblems } from "./stack-state.js";
import { VEHICLES, createVehicleResource, forgetResources, hasTemplateSequence, declareVehicleProvider, stackOf, synthesizesHcl, writeBesideStack, type CliVehicle, type EnvironmentValue, type LocalExec, type Vehicle } from "./vehicle.js";

export interface ConvergeConfigProps {
  /** Origin of both services, handed to the CLI as CONVERGE_ENDPOINT (not a secret: it is written into cdk.tf.json). @default the CONVERGE_ENDPOINT of the environment terraform runs in */
  readonly endpoint?: string;
  /** Name of the environment variable that holds the bearer token where terraform runs; only the name is written anywhere, never the token. The provider vehicle reads CONVERGE_TOKEN only. @default "CONVERGE_TOKEN" */
  readonly tokenEnvironmentVariable?: string;
  /** What carries the constructs: terraform's built-in "terraform_data" (nothing to download) or "null_resource" (provider hashicorp/null, downloaded by terraform init), three resources per stack that run the converge CLI; or "provider", one resource of converge's own terraform provider per construct (`converge provider install` first; fields in plans, but terraform's cost per resource: docs/manual/cdktf.md). @default "terraform_data" */
  readonly vehicle?: Vehicle;
  /**
   * With the provider vehicle, the CLI vehicle ("terraform_data" or "null_resource") the deployed
   * stack was made with: its three resources are forgotten, not destroyed (`removed` blocks with
   * `destroy = false`, so no provisioner runs), and each construct imports its live resource by its
   * natural key, so the switching deploy changes nothing live (notes/moves.md, "Switching vehicles", until it joins the docs).
   * Terraform ≥ 1.7. @default not switching: nothing forgotten, nothing imported but pins
   */
  readonly switchingFrom?: CliVehicle;
  /** Command line that starts the converge CLI in the provisioners, e.g. "npx converge" or "node /opt/converge/dist/src/cli/main.js"; not for the provider vehicle, which runs no CLI. @default "converge" */
  readonly cli?: string;
}

const NO_TEMPLATE = { error: "expected no terraform template sequence (${ or %{): terraform would evaluate it" };
const ConfigPropsSchema = z.strictObject({
  endpoint: z.string().regex(/^https?:\/\/[^\s/]+\S*$/, { error: "expected an http(s) origin such as http://127.0.0.1:4566" }).refine((text) => !hasTemplateSequence(text), NO_TEMPLATE).optional(),
  tokenEnvironmentVariable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected the name of an environment variable, e.g. CONVERGE_TOKEN" }).optional(),
  vehicle: z.enum(VEHICLES, { error: 'expected "null_resource", "terraform_data" or "provider"' }).optional(),
  switchingFrom: z.enum(["terraform_data", "null_resource"], { error: 'expected the CLI vehicle the stack was deployed with: "terraform_data" or "null_resource"' }).optional(),
  cli: z.string().regex(/^[^\r\n]*\S[^\r\n]*$/, { error: "expected a command on one line, e.g. converge or node /path/to/dist/src/cli/main.js" }).refine((text) => !hasTemplateSequence(text), NO_TEMPLATE).optional(),
});

const BRAND = Symbol.for("converge.cdktf.config");
/** The variable the provisioners get the sha256 of converge.desired.json in (the CLI refuses another file). */
const SHA256_VARIABLE = "CONVERGE_DESIRED_SHA256";
/** The prefix of the variables the inventory's chunks reach the CLI in (CONVERGE_PREVIOUS_0, _1, …). */
const PREVIOUS_VARIABLE = "CONVERGE_PREVIOUS";
/** The key of the apply resource's triggers that holds the sha256 of converge.desired.json. */
export const DESIRED_TRIGGER = "converge.desired.json";

/**
 * How a stack's converge resources reach the services: the endpoint, the name of the variable
 * holding the token, what carries the stack's state, and the CLI the provisioners run. One per
 * stack, created before the first converge resource.
 *
 * With the provider vehicle, this construct declares converge's provider (`converge/converge`, its
 * endpoint; the provider reads the token from CONVERGE_TOKEN) and each construct is a resource of
 * its own. With a CLI vehicle, the stack's constructs are deployed together, by three resources of
 * the vehicle that this construct owns, whatever the number of constructs (docs/manual/cdktf.md, "One
 * converge run per deploy"):
 *
 * - `<id>_apply`: its triggers map each construct's path to the sha256 of its document (so that
 *   `terraform plan` names the constructs that change), and hold the sha256 of converge.desired.json;
 *   when they change, it is replaced, and its create-time provisioner runs `converge apply` of the
 *   stack's whole desired state (which writes only what differs).
 * - `<id>_inventory`: its triggers hold the stack's inventory (the identity documents of what the
 *   stack makes exist). When a resource's identity leaves the stack, the inventory is replaced, and
 *   its destroy-time provisioner, which reads the old inventory from its own triggers, runs
 *   `converge apply` of the current desired state and deletes what the old inventory lists and the
 *   current one does not (routes before integrations, after the routes that targeted them moved).
 * - `<id>_owner`: never replaced; its destroy-time provisioner, run by `cdktf destroy`, deletes
 *   everything the stack's desired state makes exist. The inventory depends on it, so that its
 *   destroy comes after the inventory's (which deletes what is deployed and no longer declared).
 *
 * The documents reach the CLI in converge.desired.json, beside cdk.tf.json (`--from-synth .`,
 * checked against the sha256 terraform planned with), the inventory in the environment; never in a
 * command line.
 */
export class ConvergeConfig extends Construct {
  /** The ConvergeConfig of the stack `scope` belongs to; throws when the stack has none. */
  static of(scope: IConstruct): ConvergeConfig {
    const stack = stackOf(scope);
    const config = findConfig(stack);
    if (!config) throw missingConfig(stack.node.path);
    return config;
  }

  readonly vehicle: Vehicle;
  /** The endpoint handed to the CLI or the provider, if configured. */
  readonly endpoint: string | undefined;
  readonly tokenEnvironmentVariable: string;
  readonly cli: string;
  /** The CLI vehicle a provider-vehicle stack switches from (its resources forgotten, each construct's live resource imported); undefined when not switching. */
  readonly switchingFrom: CliVehicle | undefined;
  /** The terraform address of the resource that applies the stack's desired state; undefined with the provider vehicle. */
  readonly applyAddress: string | undefined;
  /** The terraform address of the resource that holds the stack's inventory; undefined with the provider vehicle. */
  readonly inventoryAddress: string | undefined;
  /** The terraform address of the resource whose destroy deletes everything the stack made; undefined with the provider vehicle. */
  readonly ownerAddress: string | undefined;

  constructor(scope: Construct, id: string, props: ConvergeConfigProps = {}) {
    super(scope, id);
    const stack = stackOf(this);
    const existing = findConfig(stack);
    if (existing) throw duplicateConfig(stack.node.path, existing.node.path);
    Object.defineProperty(this, BRAND, { value: true });

    const parsed = ConfigPropsSchema.safeParse(props);
    const problems = parsed.success ? [] : describeZodIssues(parsed.error.issues, props).map((issue) => issue.message);
    // the default measured fastest, and needs no download (docs/manual/cdktf.md)
    this.vehicle = VEHICLES.includes(props.vehicle as Vehicle) ? props.vehicle! : "terraform_data";
    this.endpoint = props.endpoint;
    this.tokenEnvironmentVariable = props.tokenEnvironmentVariable ?? "CONVERGE_TOKEN";
    this.cli = props.cli ?? "converge";
    this.switchingFrom = this.vehicle === "provider" && parsed.success ? props.switchingFrom : undefined;

    const facts = () => stackFacts(stack);
    writeBesideStack(this, SYNTH_DESIRED_FILE, () => facts().desiredText);
    if (this.vehicle === "provider") {
      if (props.cli !== undefined) problems.push(cliUnusedByProvider(props.cli));
      if (props.tokenEnvironmentVariable !== undefined && props.tokenEnvironmentVariable !== "CONVERGE_TOKEN") problems.push(tokenVariableWithProvider(props.tokenEnvironmentVariable));
      if (synthesizesHcl(this)) problems.push(hclWithProvider());
      declareVehicleProvider(this, "provider", this.vehicle, { endpoint: this.endpoint });
      // the old vehicle's resources: forgotten, so that their destroy-time provisioners (which delete) never run
      if (this.switchingFrom !== undefined) forgetResources(this, ["apply", "inventory", "owner"].map((role) => `${this.switchingFrom}.${resourceBaseName(this)}_${role}`));
      this.node.addValidation({ validate: () => problems });
      this.applyAddress = this.inventoryAddress = this.ownerAddress = undefined;
      return;
    }
    if (props.switchingFrom !== undefined) problems.push(switchingWithoutProvider(props.switchingFrom, this.vehicle));
    const vehicle: CliVehicle = this.vehicle;
    declareVehicleProvider(this, "null", vehicle);
    this.node.addValidation({ validate: () => [...problems, ...stackProblems(stack)] });
    const base = resourceBaseName(this);
    const desiredSha256 = { literal: () => facts().desiredSha256 };
    const owner = createVehicleResource(this, "owner", {
      vehicle,
      name: `${base}_owner`,
      triggers: () => ({}),
      provisioner: this.#localExec("destroy", `delete --from-synth . --expect-sha256-env ${SHA256_VARIABLE} --auto-approve`, { [SHA256_VARIABLE]: desiredSha256 }),
    });
    const previous = Object.fromEntries(Array.from({ length: INVENTORY_MAX_CHUNKS }, (_, index) => [`${PREVIOUS_VARIABLE}_${index}`, { trigger: `inventory_${index}` }]));
    const inventory = createVehicleResource(this, "inventory", {
      vehicle,
      name: `${base}_inventory`,
      triggers: () => ({ ...Object.fromEntries(facts().inventoryChunks.map((chunk, index) => [`inventory_${index}`, chunk])), resources: String(facts().inventory.length) }),
      provisioner: this.#localExec("destroy", `apply --from-synth . --expect-sha256-env ${SHA256_VARIABLE} --previous-env ${PREVIOUS_VARIABLE} --auto-approve`, { [SHA256_VARIABLE]: desiredSha256, ...previous }),
      dependsOn: [owner],
    });
    const apply = createVehicleResource(this, "apply", {
      vehicle,
      name: `${base}_apply`,
      triggers: () => ({ ...facts().documentHashes, [DESIRED_TRIGGER]: facts().desiredSha256 }),
      provisioner: this.#localExec("create", `apply --from-synth . --expect-sha256-env ${SHA256_VARIABLE} --auto-approve`, { [SHA256_VARIABLE]: desiredSha256 }),
      dependsOn: [inventory],
    });
    this.applyAddress = apply.address;
    this.inventoryAddress = inventory.address;
    this.ownerAddress = owner.address;
  }

  #localExec(when: LocalExec["when"], args: string, environment: Readonly<Record<string, EnvironmentValue>>): LocalExec {
    const tokenFlag = this.tokenEnvironmentVariable === "CONVERGE_TOKEN" ? "" : ` --token-env ${this.tokenEnvironmentVariable}`;
    return {
      when,
      command: `${this.cli} ${args}${tokenFlag}`,
      environment: { ...environment, ...(this.endpoint !== undefined ? { CONVERGE_ENDPOINT: { literal: this.endpoint } } : {}) },
    };
  }
}

function findConfig(stack: IConstruct): ConvergeConfig | undefined {
  return stack.node.findAll().find((node): node is ConvergeConfig => (node as unknown as Record<symbol, unknown>)[BRAND] === true);
}
