import { PROVIDER_SOURCE } from "./terraform-attributes.js";

/**
 * How a terraform state (format 4) names its resources and their providers: the address of an
 * instance as terraform prints it, whether a provider configuration is converge's, and a logical
 * name made from an address.
 */

/** What a state's resource entry says of where it is: its module (`module.a.module.b[1]`), mode, type and name. */
export interface StateResourceName {
  readonly module?: string | undefined;
  readonly mode: string;
  readonly type: string;
  readonly name: string;
}

/**
 * An instance's address as terraform prints it: `module.edge.converge_route.get_orders`,
 * `converge_route.r[0]`, `converge_route.r["a"]`, `data.converge_api.orders`; a deposed object
 * (create_before_destroy) adds ` (deposed object KEY)`, as `terraform state list` does.
 */
export function instanceAddress(resource: StateResourceName, indexKey: unknown, deposed?: string): string {
  const module = resource.module ? `${resource.module}.` : "";
  const data = resource.mode === "data" ? "data." : "";
  const index = typeof indexKey === "number" ? `[${indexKey}]` : typeof indexKey === "string" ? `[${JSON.stringify(indexKey)}]` : "";
  return `${module}${data}${resource.type}.${resource.name}${index}${deposed === undefined ? "" : ` (deposed object ${deposed})`}`;
}

const [NAMESPACE, TYPE] = PROVIDER_SOURCE.split("/") as [string, string];
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/**
 * A provider configuration's address of converge's provider under any registry host, in any
 * module, with or without an alias: `provider["registry.terraform.io/converge/converge"]`,
 * `module.edge.provider["example.com/converge/converge"].west`.
 */
const CONVERGE_PROVIDER = new RegExp(`^(?:module\\.[A-Za-z_][A-Za-z0-9_-]*\\.)*provider\\["[^"/]+/${escaped(NAMESPACE)}/${escaped(TYPE)}"\\](?:\\.[A-Za-z_][A-Za-z0-9_-]*)?$`);

/** Whether a state's `provider` is a configuration of converge's provider (PROVIDER_SOURCE under any host). */
export function isConvergeProvider(provider: unknown): boolean {
  return typeof provider === "string" && CONVERGE_PROVIDER.test(provider);
}

/** The longest logical name (src/desired/schema.ts). */
const MAX_NAME = 128;

/**
 * Logical names made from addresses, unique among those this gives: the address with an index
 * `[0]` or `["a"]` as `.0` / `.a`, every other character a logical name may not hold as `_`
 * (`module.edge.converge_integration.orders["eu-1"]` → `module.edge.converge_integration.orders.eu-1`),
 * cut to 128 characters; a name given already gets `-2`, `-3`, ….
 */
export class LogicalNames {
  readonly #taken = new Set<string>();

  /** A name for `address`, unique among the names this gave. */
  nameOf(address: string): string {
    const base = address
      .replace(/\[("?)(.*?)\1\]/g, ".$2")
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .replace(/^[^A-Za-z0-9]+/, "")
      .slice(0, MAX_NAME) || "terraform";
    let name = base;
    for (let suffix = 2; this.#taken.has(name); suffix += 1) name = `${base.slice(0, MAX_NAME - String(suffix).length - 1)}-${suffix}`;
    this.#taken.add(name);
    return name;
  }
}
