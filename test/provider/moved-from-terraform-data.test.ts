import { describe, expect, it } from "vitest";
import { documentOfMovedState } from "../../src/provider/moved-from-terraform-data.js";
import { isDiagnosticsError, type MoveStateRequest } from "../../src/provider/runtime/index.js";

const BUILTIN = "terraform.io/builtin/terraform";
const ROUTE = { kind: "Route", api: "a1b2c3d4e5", spec: { routeKey: "GET /orders" } };

/** A terraform_data's state as terraform stores it: `input` a dynamic value. */
function request(input: unknown, overrides: Partial<MoveStateRequest> = {}): MoveStateRequest {
  return { sourceProviderAddress: BUILTIN, sourceTypeName: "terraform_data", sourceSchemaVersion: 0, sourceState: { id: "x", input: { value: input, type: "dynamic" } }, ...overrides };
}

function refusal(move: MoveStateRequest): string {
  try {
    documentOfMovedState("Route", "converge_route", move);
  } catch (error) {
    if (!isDiagnosticsError(error)) throw error;
    return error.diagnostics.map((diagnostic) => `${diagnostic.summary}: ${diagnostic.detail ?? ""}`).join("\n");
  }
  throw new Error("nothing was thrown");
}

describe("the document a terraform_data holds, for MoveResourceState", () => {
  it("reads the document from the input, as an object or as its JSON text", () => {
    expect(documentOfMovedState("Route", "converge_route", request(ROUTE))).toMatchObject(ROUTE);
    expect(documentOfMovedState("Route", "converge_route", request(JSON.stringify(ROUTE)))).toMatchObject(ROUTE);
  });

  it("takes nothing from another type or provider (terraform then says the move is not supported)", () => {
    expect(documentOfMovedState("Route", "converge_route", request(ROUTE, { sourceTypeName: "null_resource" }))).toBeNull();
    expect(documentOfMovedState("Route", "converge_route", request(ROUTE, { sourceProviderAddress: "registry.terraform.io/hashicorp/null" }))).toBeNull();
  });

  it.each([
    [null, "its input is null"],
    ["not json", 'its input is text that is not JSON ("not json")'],
    [["a"], "its input is object"],
    [{ ...ROUTE, kind: "Integration" }, 'its input\'s kind is "Integration"'],
    [{ ...ROUTE, spec: { operationName: "x" } }, "its input is not a valid document: spec.routeKey"],
  ])("rejects the input %j, naming what it received", (input, problem) => {
    const message = refusal(request(input));
    expect(message).toContain("converge_route: cannot take the state of terraform_data");
    expect(message).toContain(`${problem}`);
    expect(message).toContain("expected its input to be a converge document of kind Route");
  });
});
