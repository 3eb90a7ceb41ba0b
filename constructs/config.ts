import { Construct, type IConstruct } from "constructs";
import { z } from "zod";
import { SYNTH_DESIRED_FILE } from "../src/desired/synth-file.js";
import { describeZodIssues } from "../src/spec/field-issues.js";
import { declaredResourcesOf, documentHash, resourceBaseName, triggerJson } from "./documents.js";
import { duplicateConfig, missingConfig } from "./errors.js";
import { VEHICLES, createVehicleResource, declareVehicleProvider, stackOf, writeBesideStack, type EnvironmentValue, type LocalExec, type Vehicle, type VehicleResource } from "./vehicle.js";

export interface ConvergeConfigProps {
  /** Origin of both services, handed to the CLI as CONVERGE_ENDPOINT (not a secret: it is written into cdk.tf.json). @default the CONVERGE_ENDPOINT of the environment terraform runs in */
  readonly endpoint?: string;
  /** Name of the environment variable that holds the bearer token where terraform runs; only the name is written anywhere, never the token. @default "CONVERGE_TOKEN" */
  readonly tokenEnvironmentVariable?: string;
  /** Resource type that carries the documents: "null_resource" (provider hashicorp/null, downloaded by terraform init) or terraform's built-in "terraform_data" (no provider: for air-gapped machines). @default "null_resource" */
  readonly vehicle?: Vehicle;
  /** Command line that starts the converge CLI in the provisioners, e.g. "npx converge" or "node /opt/converge/dist/src/cli/main.js". @default "converge" */
  readonly cli?: string;
}

const ConfigPropsSchema = z.strictObject({
  endpoint: z.string().regex(/^https?:\/\/[^\s/]+\S*$/, { error: "expected an http(s) origin such as http://127.0.0.1:4566" }).optional(),
  tokenEnvironmentVariable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected the name of an environment variable, e.g. CONVERGE_TOKEN" }).optional(),
  vehicle: z.enum(VEHICLES, { error: 'expected "null_resource" or "terraform_data"' }).optional(),
  cli: z.string().regex(/^[^\r\n]*\S[^\r\n]*$/, { error: "expected a command on one line, e.g. converge or node /path/to/dist/src/cli/main.js" }).optional(),
});

const BRAND = Symbol.for("converge.cdktf.config");
/** The environment variable the provisioners hand documents over in (never the command line). */
const DOCUMENT_VARIABLE = "CONVERGE_DOCUMENT";
const KEEP_VARIABLE = "CONVERGE_KEEP";

/**
 * How a stack's converge resources reach the services: the endpoint, the name of the variable
 * holding the token, the terraform resource type that carries the documents, and the CLI the
 * provisioners run. One per stack, created before the first converge resource.
 *
 * It also owns the stack-level pieces: the null provider (for the null_resource vehicle), the
 * `converge.desired.json` file written beside cdk.tf.json at synth (`converge plan|drift
 * --from-synth`), and `<id>_inventory`, a resource whose triggers list the identities of the stack's
 * deletable resources. terraform runs no destroy-time provisioner of a resource removed from the
 * configuration, so the inventory is what deletes the resource of a removed construct: when its
 * list changes it is replaced, and its destroy-time provisioner deletes every identity of the old
 * list that the new list (a literal of the configuration, read at destroy) no longer holds. Every
 * identity resource depends on the inventory, so that terraform destroys the inventory after them:
 * the identity resources' own deletes (in order: routes before integrations) come first, and the
 * inventory finds only what no identity resource deleted.
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
  /** The endpoint handed to the CLI, if configured. */
  readonly endpoint: string | undefined;
  readonly tokenEnvironmentVariable: string;
  readonly cli: string;
  /** The terraform address of the inventory resource. */
  readonly inventoryAddress: string;
  /** @internal The inventory resource: every identity resource depends on it, so that its destroy runs after theirs. */
  readonly inventoryResource: VehicleResource;

  constructor(scope: Construct, id: string, props: ConvergeConfigProps = {}) {
    super(scope, id);
    const stack = stackOf(this);
    const existing = findConfig(stack);
    if (existing) throw duplicateConfig(stack.node.path, existing.node.path);
    Object.defineProperty(this, BRAND, { value: true });

    const parsed = ConfigPropsSchema.safeParse(props);
    const problems = parsed.success ? [] : describeZodIssues(parsed.error.issues, props).map((issue) => issue.message);
    this.node.addValidation({ validate: () => problems });
    this.vehicle = VEHICLES.includes(props.vehicle as Vehicle) ? props.vehicle! : "null_resource";
    this.endpoint = props.endpoint;
    this.tokenEnvironmentVariable = props.tokenEnvironmentVariable ?? "CONVERGE_TOKEN";
    this.cli = props.cli ?? "converge";

    declareVehicleProvider(this, "null", this.vehicle);
    const identities = () => declaredResourcesOf(stack).filter((resource) => resource.deletable).map((resource) => resource.identityDocument);
    const name = `${resourceBaseName(this)}_inventory`;
    this.inventoryResource = createVehicleResource(this, "inventory", {
      vehicle: this.vehicle,
      name,
      triggers: { document: () => triggerJson(identities()), hash: () => documentHash(identities()) },
      provisioner: this.#localExec("destroy", `delete --document-env ${DOCUMENT_VARIABLE} --keep-env ${KEEP_VARIABLE} --auto-approve`, { [KEEP_VARIABLE]: { literal: () => triggerJson(identities()) } }),
    });
    this.inventoryAddress = `${this.vehicle}.${name}`;
    writeBesideStack(this, SYNTH_DESIRED_FILE, () => `${JSON.stringify(declaredResourcesOf(stack).map((resource) => resource.document), null, 2)}\n`);
  }

  /**
   * The local-exec provisioner of a converge resource: `apply` at create time (the document
   * resource), `delete` at destroy time (the identity resource). The command is fixed text; the
   * document travels in CONVERGE_DOCUMENT, read from the resource's own triggers.
   */
  provisioner(action: "apply" | "delete"): LocalExec {
    return action === "apply"
      ? this.#localExec("create", `apply --document-env ${DOCUMENT_VARIABLE} --auto-approve`)
      : this.#localExec("destroy", `delete --document-env ${DOCUMENT_VARIABLE} --auto-approve`);
  }

  #localExec(when: LocalExec["when"], args: string, extra: Readonly<Record<string, EnvironmentValue>> = {}): LocalExec {
    const tokenFlag = this.tokenEnvironmentVariable === "CONVERGE_TOKEN" ? "" : ` --token-env ${this.tokenEnvironmentVariable}`;
    return {
      when,
      command: `${this.cli} ${args}${tokenFlag}`,
      environment: {
        [DOCUMENT_VARIABLE]: { trigger: "document" },
        ...extra,
        ...(this.endpoint !== undefined ? { CONVERGE_ENDPOINT: { literal: this.endpoint } } : {}),
      },
    };
  }
}

function findConfig(stack: IConstruct): ConvergeConfig | undefined {
  return stack.node.findAll().find((node): node is ConvergeConfig => (node as unknown as Record<symbol, unknown>)[BRAND] === true);
}
