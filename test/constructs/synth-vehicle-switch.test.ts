import { afterAll, describe, expect, it } from "vitest";
import { Integration, Route, type ConvergeConfigProps } from "../../constructs/index.js";
import { ORDERS_API, buildShop } from "./shop-stack.js";
import { cleanupSynthDirs, synthStack, type LibraryName, type SynthOutput } from "./synth-fixture.js";

/**
 * Issue 26, item 3, at synth: what a stack switching from a CLI vehicle to the provider emits
 * (`removed` blocks for the old vehicle's three resources, an import of each construct's live
 * resource by its natural key), what a rename emits (`moved`), and what is refused.
 */

afterAll(() => cleanupSynthDirs());

type Blocks = { removed?: Array<{ from: string; lifecycle: { destroy: boolean } }>; import?: Array<{ id: string; to: string }>; moved?: Array<{ from: string; to: string }> };
const blocksOf = (output: SynthOutput) => output.tf as unknown as Blocks;
const refusal = (config: ConvergeConfigProps) => {
  try {
    synthStack(() => undefined, config);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the synth was not refused");
};

describe.each<LibraryName>(["cdktf", "cdktn"])("switching vehicles at synth (%s)", (library) => {
  it("forgets the old vehicle's three resources and imports every construct by its natural key, user text URL-encoded", () => {
    const output = synthStack((stack) => {
      buildShop(stack);
      new Route(stack, "odd", { api: { name: "orders" }, routeKey: "GET /a/${b}/%{c}" });
      new Integration(stack, "pinned", { api: ORDERS_API, integrationId: "abc1234", integrationType: "MOCK" });
    }, { vehicle: "provider", switchingFrom: "null_resource" }, { library });
    const blocks = blocksOf(output);
    expect(blocks.removed).toEqual(["apply", "inventory", "owner"].map((role) => ({ from: `null_resource.converge_${role}`, lifecycle: { destroy: false } })));
    expect(Object.fromEntries((blocks.import ?? []).map((entry) => [entry.to, entry.id]))).toEqual({
      "converge_alternate_contact.security": "SECURITY",
      "converge_integration.orders-backend": `${ORDERS_API}?integration_type=HTTP_PROXY&integration_uri=https%3A%2F%2Fshop.internal.example%2Forders&integration_method=ANY`,
      "converge_route.get-orders": `${ORDERS_API}?route_key=GET%20%2Forders`,
      "converge_region_opt_in.ap-east": "ap-east-1",
      "converge_route.odd": "${data.converge_api.api_orders.api_id}?route_key=GET%20%2Fa%2F%24%7Bb%7D%2F%25%7Bc%7D",
      // a pin stays its own import
      "converge_integration.pinned": `${ORDERS_API}/abc1234`,
    });
  });

  it("imports only pins when not switching", () => {
    const blocks = blocksOf(synthStack((stack) => buildShop(stack), { vehicle: "provider" }, { library }));
    expect(blocks.removed).toBeUndefined();
    expect(blocks.import).toBeUndefined();
  });

  it("emits a moved block for a construct renamed under the provider vehicle, and nothing with a CLI vehicle", () => {
    const renamed = synthStack((stack) => buildShop(stack, { ids: { integration: "api-backend" } }).integration.renamedFrom("orders/backend"), { vehicle: "provider" }, { library });
    expect(blocksOf(renamed).moved).toEqual([{ from: "converge_integration.orders_backend", to: "converge_integration.api-backend" }]);
    const cli = synthStack((stack) => buildShop(stack, { ids: { integration: "api-backend" } }).integration.renamedFrom("orders-backend"), { vehicle: "terraform_data" }, { library });
    expect(blocksOf(cli).moved).toBeUndefined();
  });
});

describe("switching vehicles: refusals", () => {
  it("refuses switchingFrom with a CLI vehicle, and a vehicle it does not name", () => {
    expect(refusal({ vehicle: "terraform_data", switchingFrom: "null_resource" })).toContain('[shop/converge] switchingFrom "null_resource" is not valid with vehicle "terraform_data": expected vehicle "provider"');
    expect(refusal({ vehicle: "provider", switchingFrom: "provider" as "terraform_data" })).toContain('expected the CLI vehicle the stack was deployed with: "terraform_data" or "null_resource"');
  });

  it("refuses renamedFrom naming the construct's own resource", () => {
    expect(() => synthStack((stack) => buildShop(stack).integration.renamedFrom("orders-backend"), { vehicle: "provider" })).toThrow('[shop/orders-backend] renamedFrom "orders-backend" names the construct\'s own terraform resource');
  });
});
