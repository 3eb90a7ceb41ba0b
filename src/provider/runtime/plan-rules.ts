import type { AttributePath } from "./attribute-path.js";
import { mapAttributes, visitAttributes } from "./schema-walk.js";
import { impliedType, type BlockSchema } from "./schema.js";
import { describeReceived } from "./value-error.js";
import { containsUnknown, UNKNOWN, valuesEqual, type Value } from "./value.js";

/** A value that breaks one of terraform's rules, at a path: the runtime answers it as an error diagnostic. */
export interface RuleBreach {
  readonly path: AttributePath;
  readonly problem: string;
}

/**
 * The runtime's plan for a create or an update, as terraform-plugin-framework plans: terraform's
 * proposed new state with each attribute's `default` where the configuration leaves it null; then,
 * on a create or on an update whose plan differs from the prior state, every computed attribute the
 * configuration leaves null (and that has no default) unknown, so terraform shows it as known after
 * apply, except that `useStateForUnknown` attributes keep a prior value that is not null. An update
 * that changes nothing plans the prior state as it is.
 */
export function plannedChange(schema: BlockSchema, prior: Value, proposed: Value, config: Value): Value {
  const defaulted = mapAttributes(schema, proposed, [config], (attribute, value, [configValue]) =>
    attribute.default !== undefined && (configValue ?? null) === null ? attribute.default : value,
  );
  if (prior !== null && valuesEqual(impliedType(schema), defaulted, prior)) return defaulted;
  return mapAttributes(schema, defaulted, [config, prior], (attribute, value, [configValue, priorValue]) => {
    if (!attribute.computed || attribute.default !== undefined || (configValue ?? null) !== null) return value;
    if (attribute.useStateForUnknown && (priorValue ?? null) !== null) return priorValue!;
    return UNKNOWN;
  });
}

/** The paths of `requiresReplace` attributes whose planned value differs from the prior one (an unknown planned value counts as different). */
export function replacedPaths(schema: BlockSchema, prior: Value, planned: Value): AttributePath[] {
  const paths: AttributePath[] = [];
  visitAttributes(schema, [planned, prior], (attribute, path, [plannedValue, priorValue]) => {
    if (attribute.requiresReplace && priorValue !== undefined && !valuesEqual(attribute.type, plannedValue, priorValue)) paths.push(path);
  });
  return paths;
}

/**
 * What terraform would reject in a planned state (its `AssertPlanValid`): a non-computed attribute,
 * or an optional and computed one the configuration sets, planned to anything but the configuration's
 * value, unless it is the prior value kept over an equivalent configuration.
 */
export function planBreaches(schema: BlockSchema, prior: Value, config: Value, planned: Value): RuleBreach[] {
  const breaches: RuleBreach[] = [];
  visitAttributes(schema, [planned, config, prior], (attribute, path, [plannedValue = null, configValue = null, priorValue = null]) => {
    if (valuesEqual(attribute.type, plannedValue, configValue)) return;
    if (priorValue !== null && configValue !== null && valuesEqual(attribute.type, plannedValue, priorValue)) return;
    if (attribute.computed && (!attribute.optional || configValue === null)) return;
    breaches.push({ path, problem: `planned ${shown(attribute.sensitive, plannedValue)} does not match the configuration's ${shown(attribute.sensitive, configValue)}` });
  });
  return breaches;
}

/**
 * What terraform would reject in the state an apply returns: an unknown anywhere, or a value other
 * than the one planned where the plan knew it.
 */
export function appliedBreaches(schema: BlockSchema, planned: Value, applied: Value): RuleBreach[] {
  const breaches: RuleBreach[] = [];
  visitAttributes(schema, [applied, planned], (attribute, path, [appliedValue = null, plannedValue = null]) => {
    if (containsUnknown(appliedValue)) breaches.push({ path, problem: "is still unknown after apply: expected a known value" });
    else if (!containsUnknown(plannedValue) && !valuesEqual(attribute.type, plannedValue, appliedValue)) {
      breaches.push({ path, problem: `was planned as ${shown(attribute.sensitive, plannedValue)} but apply returned ${shown(attribute.sensitive, appliedValue)}` });
    }
  });
  return breaches;
}

/** What terraform would reject in a data source's state: an unknown, or a configured value changed. */
export function readBreaches(schema: BlockSchema, config: Value, state: Value): RuleBreach[] {
  const breaches: RuleBreach[] = [];
  visitAttributes(schema, [state, config], (attribute, path, [stateValue = null, configValue = null]) => {
    if (containsUnknown(stateValue)) breaches.push({ path, problem: "is unknown: expected a known value" });
    else if (configValue !== null && !valuesEqual(attribute.type, stateValue, configValue)) {
      breaches.push({ path, problem: `was read as ${shown(attribute.sensitive, stateValue)} but the configuration sets ${shown(attribute.sensitive, configValue)}` });
    }
  });
  return breaches;
}

function shown(sensitive: boolean | undefined, value: Value): string {
  if (sensitive) return "a sensitive value";
  if (value === UNKNOWN) return "unknown";
  return describeReceived(value);
}
