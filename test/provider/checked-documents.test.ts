import { describe, expect, it } from "vitest";
import { checkedOnce } from "../../src/provider/kind-resource/checked-documents.js";

/**
 * A resource's document is checked once per process for the same content: terraform sends the same
 * values in several calls. What counts as the same content is JSON data equal key for key; anything
 * JSON.stringify would write as something else is checked anew each time.
 */

const route = (routeKey: string) => ({ metadata: { name: "orders" }, spec: { apiId: "a1b2c3", routeKey, authorizationScopes: ["read", "write"], apiKeyRequired: false, timeoutMs: 3000 } });

describe("checkedOnce", () => {
  it("answers two documents of the same content with one answer, frozen", () => {
    const first = checkedOnce("Route", route("GET /cached"));
    const second = checkedOnce("Route", route("GET /cached"));
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(checkedOnce("Route", route("GET /other"))).not.toBe(first);
  });

  it.each([
    ["an undefined attribute", { ...route("GET /u"), extra: undefined }],
    ["a number JSON cannot hold", { ...route("GET /nan"), spec: { ...route("GET /nan").spec, timeoutMs: Number.NaN } }],
    ["an array with a hole", { ...route("GET /hole"), spec: { ...route("GET /hole").spec, authorizationScopes: ["read", , "write"] } }],
    ["a class instance", { ...route("GET /date"), spec: { ...route("GET /date").spec, since: new Date(0) } }],
    ["a value with toJSON", { ...route("GET /tojson"), spec: { ...route("GET /tojson").spec, routeKey: { toJSON: () => "GET /tojson" } } }],
  ])("checks a document holding %s anew each time (its JSON text would stand for other content)", (_what, document) => {
    expect(checkedOnce("Route", document)).not.toBe(checkedOnce("Route", document));
  });
});
