import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { convergeProvider } from "../../src/provider/converge-provider.js";
import { schemasOf } from "../../src/provider/runtime/schemas-first-provider.js";

/**
 * terraform's first start of the provider asks only for schemas, which the provider answers from the
 * file the build wrote (src/provider/main.ts): that file must be the definition's own schemas.
 */
describe("the provider's schemas file", () => {
  it("holds exactly the schemas of the provider's definition, as the build wrote them into dist", () => {
    const written = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../dist/src/provider/provider-schemas.json"), "utf8"));
    expect(written).toEqual(JSON.parse(JSON.stringify(schemasOf(convergeProvider))));
    expect(Object.keys(written.resources)).toEqual(["converge_alternate_contact", "converge_region_opt_in", "converge_integration", "converge_route"]);
    expect(Object.keys(written.dataSources)).toEqual(["converge_api", "converge_regions"]);
    expect(written.provider.attributes.token).toMatchObject({ sensitive: true, optional: true });
  });
});
