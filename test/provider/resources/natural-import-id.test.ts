import { describe, expect, it } from "vitest";
import { isNaturalImportId, oneMatch, parseNaturalImportId } from "../../../src/provider/resources/natural-import-id.js";
import { isDiagnosticsError } from "../../../src/provider/runtime/index.js";

/** The diagnostic's summary and detail a call throws, as one text. */
function thrown(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    if (!isDiagnosticsError(error)) throw error;
    return error.diagnostics.map((diagnostic) => `${diagnostic.summary}: ${diagnostic.detail ?? ""}`).join("\n");
  }
  throw new Error("nothing was thrown");
}

const ROUTE = ["route_key"];
const INTEGRATION = ["integration_type", "integration_uri", "integration_method"];

describe("natural-key import IDs", () => {
  it.each([
    ["a1b2c3d4e5/abc1234", false],
    ["ACCOUNT/SECURITY", false],
    ["a1b2c3d4e5?route_key=GET%20%2Forders", true],
  ])("tells %s apart (natural: %s)", (id, natural) => {
    expect(isNaturalImportId(id)).toBe(natural);
  });

  it.each([
    ["a1b2c3d4e5?route_key=GET%20%2Forders", ROUTE, ROUTE, { route_key: "GET /orders" }],
    ["a1b2c3d4e5?route_key=GET%20%2Fa%2F%24%7Bb%7D", ROUTE, ROUTE, { route_key: "GET /a/${b}" }],
    ["a1b2c3d4e5?route_key=%24connect", ROUTE, ROUTE, { route_key: "$connect" }],
    ["a1b2c3d4e5?integration_type=HTTP_PROXY&integration_uri=https%3A%2F%2Fx.example%2F%3Fa%3Db%26c", INTEGRATION, ["integration_type"], { integration_type: "HTTP_PROXY", integration_uri: "https://x.example/?a=b&c" }],
  ])("reads %s", (id, allowed, required, attributes) => {
    expect(parseNaturalImportId(id, "converge_x", allowed, required)).toEqual({ apiId: "a1b2c3d4e5", attributes });
  });

  it.each([
    ["?route_key=GET%20%2Fx", 'the API_ID before "?" is ""'],
    ["a/b?route_key=GET%20%2Fx", 'the API_ID before "?" is "a/b"'],
    ["a1b2c3d4e5?routeKey=GET%20%2Fx", '"routeKey" is not an attribute of the natural key'],
    ["a1b2c3d4e5?route_key=a&route_key=b", "route_key is given twice"],
    ["a1b2c3d4e5?route_key=", "route_key is missing or empty"],
    ["a1b2c3d4e5?", "route_key is missing or empty"],
  ])("rejects %s, naming what is wrong, the ID received and the form expected", (id, problem) => {
    const message = thrown(() => parseNaturalImportId(id, "converge_route", ROUTE, ROUTE));
    expect(message).toContain(`converge_route: import ID ${JSON.stringify(id)} is not valid`);
    expect(message).toContain(`${problem}: expected API_ID?route_key=VALUE`);
  });

  it("takes exactly one match, and refuses none or several, listing their import IDs", () => {
    expect(oneMatch(["r1"], "id", "converge_route", (item) => item, "api")).toBe("r1");
    expect(thrown(() => oneMatch([], "a?route_key=x", "converge_route", (item) => item, "a"))).toContain('converge_route: import ID "a?route_key=x" matches no live resources');
    expect(thrown(() => oneMatch(["i1", "i2"], "a?integration_type=MOCK", "converge_integration", (item) => item, "a"))).toContain("expected exactly one: import one by its ID instead (a/i1, a/i2)");
  });
});
