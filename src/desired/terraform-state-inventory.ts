import type { StateResource } from "./terraform-state-text.js";

/**
 * The inventory a cdktf stack of the CLI vehicles keeps in its state (constructs/config.ts): a
 * `terraform_data` or `null_resource` named `<base>_inventory` whose triggers hold the inventory's
 * chunks `inventory_0`, `inventory_1`, … (decodeInventory of src/desired/inventory.ts reads them)
 * and `resources`, their count. A `terraform_data` keeps them in `triggers_replace`, a dynamic
 * attribute, which terraform 1.11 writes as `{"value": {...}, "type": ["object", {...}]}`; a
 * `null_resource` in `triggers`, a map of strings, written as the object itself.
 */

/** The trigger attribute of each CLI vehicle's resource type. */
const TRIGGERS_OF: Readonly<Record<string, string>> = { terraform_data: "triggers_replace", null_resource: "triggers" };

/** Whether a state's resource is a stack's inventory: a managed `terraform_data` or `null_resource` whose name ends in `_inventory`. */
export function isInventoryResource(resource: StateResource): boolean {
  return resource.mode === "managed" && Object.hasOwn(TRIGGERS_OF, resource.type) && resource.name.endsWith("_inventory");
}

/**
 * The inventory chunks an instance's attributes hold, in order (`inventory_0`, `inventory_1`, …
 * up to the first missing one); none when its triggers are null. Throws a message naming the
 * attribute when they do not have the shape terraform writes.
 */
export function inventoryChunks(resource: StateResource, attributes: Readonly<Record<string, unknown>>): string[] {
  const attribute = triggersAttributeOf(resource);
  let triggers = attributes[attribute] ?? null;
  if (triggers === null) return [];
  if (resource.type === "terraform_data" && isRecord(triggers) && "value" in triggers) triggers = triggers.value ?? null;
  if (triggers === null) return [];
  if (!isRecord(triggers)) throw new Error(`${attribute} is not an object of inventory chunks (inventory_0, …)`);
  const chunks: string[] = [];
  for (let index = 0; Object.hasOwn(triggers, `inventory_${index}`); index += 1) {
    const chunk = triggers[`inventory_${index}`];
    if (typeof chunk !== "string") throw new Error(`${attribute}.inventory_${index} is not a string`);
    chunks.push(chunk);
  }
  return chunks;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The attribute a CLI vehicle's resource keeps its triggers in (`triggers_replace`, `triggers`). */
export function triggersAttributeOf(resource: StateResource): string {
  return TRIGGERS_OF[resource.type] ?? "triggers";
}
