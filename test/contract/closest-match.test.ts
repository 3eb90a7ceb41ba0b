import { describe, expect, it } from "vitest";
import { closestMatch } from "../../src/contract/closest-match.js";

describe("closestMatch", () => {
  it.each([
    ["authorizationScope", ["authorizationScopes", "authorizationType", "authorizerId"], "authorizationScopes"],
    ["timeoutInMilis", ["timeoutInMillis", "integrationUri"], "timeoutInMillis"],
    ["spek", ["kind", "api", "ensure", "spec"], "spec"],
    ["jsn", ["text", "json", "markdown"], "json"],
    ["JSON", ["text", "json", "markdown"], "json"],
    ["Rout", ["AlternateContact", "Integration", "Route", "RegionOptIn", "Api"], "Route"],
  ])("finds %s's likely meaning", (input, candidates, expected) => {
    expect(closestMatch(input, candidates)).toBe(expected);
  });

  it.each([
    ["junit", ["text", "json", "markdown"]],
    ["x", ["text", "json"]],
    ["json", ["text", "json"]],
    ["description", ["routeKey", "target"]],
  ])("refuses to guess for %s when nothing is that close, or it is a candidate", (input, candidates) => {
    expect(closestMatch(input, candidates)).toBeUndefined();
  });
});
