import { describe, expect, it } from "vitest";
import {
  hasAdoption,
  hasChangedFields,
  hasDeleteView,
  hasHolding,
  hasMoves,
  hasNaturalImport,
  type KindBinding,
} from "../../../src/provider/kind-resource/binding.js";
import { alternateContactBinding } from "../../../src/provider/resources/alternate-contact.js";
import { integrationBinding } from "../../../src/provider/resources/integration.js";
import { regionOptInBinding } from "../../../src/provider/resources/region-opt-in.js";
import { routeBinding } from "../../../src/provider/resources/route.js";

/** Each capability's guard, by the name of its interface. */
const GUARDS: ReadonlyArray<readonly [string, (binding: KindBinding<unknown>) => boolean]> = [
  ["BindingWithNaturalImport", hasNaturalImport],
  ["BindingWithMoves", hasMoves],
  ["BindingWithHolding", hasHolding],
  ["BindingWithDeleteView", hasDeleteView],
  ["BindingWithChangedFields", hasChangedFields],
  ["BindingWithAdoption", hasAdoption],
];

/** The capabilities each kind's binding declares in its type (src/provider/resources/). */
const CASES: ReadonlyArray<readonly [KindBinding<unknown>, ReadonlyArray<string>]> = [
  [alternateContactBinding, ["BindingWithMoves"]],
  [regionOptInBinding, ["BindingWithMoves", "BindingWithChangedFields", "BindingWithAdoption"]],
  [integrationBinding, ["BindingWithNaturalImport", "BindingWithMoves", "BindingWithHolding", "BindingWithDeleteView"]],
  [routeBinding, ["BindingWithNaturalImport", "BindingWithMoves"]],
];

describe("a binding's capabilities", () => {
  it.each(CASES.map(([binding, declared]) => [binding.typeName, binding, declared] as const))("%s: the guards find the capabilities its type declares, and no other", (_typeName, binding, declared) => {
    const found = GUARDS.filter(([, guard]) => guard(binding)).map(([name]) => name);
    expect(found).toEqual(GUARDS.map(([name]) => name).filter((name) => declared.includes(name)));
  });

  it("finds no capability in a binding of the core alone", () => {
    const { holding: _holding, beforeDelete: _beforeDelete, naturalImport: _naturalImport, importIdOf: _importIdOf, ...core } = integrationBinding;
    expect(GUARDS.filter(([, guard]) => guard(core)).map(([name]) => name)).toEqual([]);
  });
});
