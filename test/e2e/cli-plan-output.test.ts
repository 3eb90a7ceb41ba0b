import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { accountCall } from "../support/http.js";
import {
  ADMIN_TOKEN,
  E2E_TIMEOUT_MS,
  ORDERS_API,
  actionLines,
  converge,
  expectExit,
  liveContact,
  liveIntegrationByUri,
  liveRoute,
  parsePlanJson,
  replaceInFile,
  writeCounts,
  type PlanJson,
  useE2eResources,
} from "./e2e-fixture.js";

/**
 * Saved plans (`plan --out`, `apply PLAN.json`) and the plan renderers and `--target`, end to end,
 * against a fresh service with the example estate in a temp directory.
 */

const { services, dirs } = useE2eResources();

async function freshEstate(): Promise<{ service: RunningService; dir: string }> {
  return { service: await services.start(), dir: await dirs.copyOfExamples() };
}

/** The write operations each executable action of a plan sends, counted like writeCounts(). */
function expectedWrites(plan: PlanJson): Record<string, number> {
  const operation: Record<string, string> = {
    "create Integration": "CreateIntegration", "create Route": "CreateRoute", "create AlternateContact": "PutAlternateContact",
    "update Integration": "UpdateIntegration", "update Route": "UpdateRoute", "update AlternateContact": "PutAlternateContact", "update RegionOptIn": "EnableRegion",
    "delete Integration": "DeleteIntegration", "delete Route": "DeleteRoute", "delete AlternateContact": "DeleteAlternateContact",
  };
  const counts: Record<string, number> = {};
  for (const action of plan.actions) {
    if (action.type === "no-op" || action.type === "refused") continue;
    const name = operation[`${action.type} ${action.kind}`]!;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

describe.concurrent("plan --out and apply PLAN.json", { timeout: E2E_TIMEOUT_MS }, () => {
  it("applies exactly the saved plan, even after the files change", async () => {
    const { service, dir } = await freshEstate();
    const planFile = join(await dirs.make("plan"), "plan.json"); // outside the estate directory, which -f reads whole
    const planned = await converge(service, ["plan", "-f", ".", "--out", planFile], dir);
    expectExit(planned, 2);
    const saved = JSON.parse(await readFile(planFile, "utf8")) as PlanJson & { documents: unknown[] };
    expect(saved).toMatchObject({ formatVersion: 1, prune: false, summary: { create: 15, update: 3, delete: 0, refused: 0, noop: 3 } });
    expect(saved.liveFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(saved.documents).toHaveLength(23);
    expect(service.requests.count({ writesOnly: true })).toBe(0);

    // edits after the plan was made are not applied: apply runs the plan the user reviewed
    await replaceInFile(join(dir, "orders-api.yaml"), "  timeoutInMillis: 10000\n", "  timeoutInMillis: 12000\n");
    await replaceInFile(join(dir, "contacts.yaml"), "name: Finance Team", "name: Finance Department");

    service.requests.reset();
    const applied = await converge(service, ["apply", planFile, "--auto-approve"], dir);
    expectExit(applied, 0);
    expect(applied.stdout).toContain("Plan: 15 to create, 3 to update, 0 to delete, 0 refused, 3 unchanged.");
    expect(applied.stdout).toContain("Apply complete: 18 done, 0 failed.");
    expect(writeCounts(service)).toEqual(expectedWrites(saved));
    expect(writeCounts(service)).toEqual({ CreateIntegration: 4, CreateRoute: 6, PutAlternateContact: 5, EnableRegion: 3 });
    expect((await liveIntegrationByUri(service, ORDERS_API, "https://orders.internal.example/v2")).timeoutInMillis).toBe(10000);
    expect((await liveContact(service, "BILLING"))?.Name).toBe("Finance Team");

    // the files, as edited since, now differ in exactly those two fields
    const after = parsePlanJson(await converge(service, ["plan", "-f", ".", "--output", "json"], dir));
    expect(actionLines(after)).toEqual(["update AlternateContact/self/BILLING", `update Integration/${ORDERS_API}/orders-backend`]);
  });

  it("refuses a saved plan when live state changed since, and writes nothing", async () => {
    const { service, dir } = await freshEstate();
    const planFile = join(await dirs.make("plan"), "plan.json");
    expectExit(await converge(service, ["plan", "-f", ".", "--out", planFile], dir), 2);

    // someone else changes a contact the plan covers
    const put = await accountCall(service, "PutAlternateContact", {
      AlternateContactType: "SECURITY", Name: "Someone Else", Title: "Intern", EmailAddress: "else@example.com", PhoneNumber: "+1 555 0199",
    }, ADMIN_TOKEN);
    expect(put.status, put.text).toBe(200);

    service.requests.reset();
    const applied = await converge(service, ["apply", planFile, "--auto-approve"], dir);
    expectExit(applied, 1);
    expect(applied.stderr).toContain(`live state changed since ${planFile} was made: nothing was applied`);
    expect(applied.stdout).not.toContain("Apply complete");
    expect(service.requests.count({ writesOnly: true })).toBe(0);
    expect(service.requests.count()).toBeGreaterThan(0); // it read live state to compare
    expect((await liveContact(service, "SECURITY"))?.Name).toBe("Someone Else");
  });

  it("refuses to apply without --auto-approve when stdin is not a terminal, and writes nothing", async () => {
    const { service, dir } = await freshEstate();
    const applied = await converge(service, ["apply", "-f", "."], dir);
    expectExit(applied, 1);
    expect(applied.stderr).toContain("apply needs --auto-approve when not run on a terminal: nothing was changed");
    expect(service.requests.count({ writesOnly: true })).toBe(0);
  });
});

describe.concurrent("plan output formats and --target", { timeout: E2E_TIMEOUT_MS }, () => {
  it("prints a JSON plan with formatVersion 1, actions with address/type/changes, and a summary that counts them", async () => {
    const { service, dir } = await freshEstate();
    const planned = await converge(service, ["plan", "-f", ".", "--output", "json"], dir);
    expectExit(planned, 2);
    const plan = parsePlanJson(planned);
    expect(plan.formatVersion).toBe(1);
    expect(plan.actions).toHaveLength(21);
    for (const action of plan.actions) {
      expect(action).toMatchObject({ address: expect.any(String), kind: expect.any(String), type: expect.stringMatching(/^(create|update|delete|no-op|refused)$/), changes: expect.any(Array) });
    }
    const count = (type: string) => plan.actions.filter((action) => action.type === type).length;
    expect(plan.summary).toEqual({ create: count("create"), update: count("update"), delete: count("delete"), noop: count("no-op"), refused: count("refused") });
    expect(plan.summary).toEqual({ create: 15, update: 3, delete: 0, noop: 3, refused: 0 });
    const getOrders = plan.actions.find((action) => action.address === `Route/${ORDERS_API}/GET /orders`)!;
    expect(getOrders.type).toBe("create");
    expect(getOrders.source).toEqual({ file: "orders-api.yaml", line: 30, column: 1 });
    expect(getOrders.changes).toContainEqual({ path: "authorizationScopes", before: null, after: ["orders.read"] });
    const region = plan.actions.find((action) => action.address === "RegionOptIn/222222222222/ap-east-1")!;
    expect(region).toMatchObject({ type: "update", changes: [{ path: "status", before: "DISABLED", after: "ENABLED" }] });
    // integrations (phase 0) come before the routes that target them (phase 1)
    const firstRoute = plan.actions.findIndex((action) => action.kind === "Route");
    const lastIntegration = plan.actions.map((action) => action.kind).lastIndexOf("Integration");
    expect(lastIntegration).toBeLessThan(firstRoute);
  });

  it("prints a markdown plan with a summary line and a table", async () => {
    const { service, dir } = await freshEstate();
    const planned = await converge(service, ["plan", "-f", ".", "--output", "markdown"], dir);
    expectExit(planned, 2);
    const lines = planned.stdout.split("\n");
    expect(lines[0]).toBe("### converge plan");
    expect(lines).toContain("**15** to create · **3** to update · **0** to delete · **0** refused · 3 unchanged");
    expect(lines).toContain("| action | resource | details |");
    expect(lines).toContain("|---|---|---|");
    expect(lines.filter((line) => line.startsWith("| create |"))).toHaveLength(15);
    expect(lines.filter((line) => line.startsWith("| update |"))).toHaveLength(3);
  });

  it("plans only the targeted route and the integration it names with --target", async () => {
    const { service, dir } = await freshEstate();
    const planned = await converge(service, ["plan", "-f", ".", "--output", "json", "--target", "Route/GET /orders"], dir);
    expectExit(planned, 2);
    const plan = parsePlanJson(planned);
    expect(plan.actions.map((action) => `${action.type} ${action.address}`)).toEqual([
      `create Integration/${ORDERS_API}/orders-backend`,
      `create Route/${ORDERS_API}/GET /orders`,
    ]);
    expect(plan.summary).toEqual({ create: 2, update: 0, delete: 0, noop: 0, refused: 0 });

    // the targeted apply creates exactly those two, the route targeting the new integration
    service.requests.reset();
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve", "--target", "Route/GET /orders"], dir), 0);
    expect(writeCounts(service)).toEqual({ CreateIntegration: 1, CreateRoute: 1 });
    const integration = await liveIntegrationByUri(service, ORDERS_API, "https://orders.internal.example/v2");
    expect((await liveRoute(service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${integration.integrationId}`);
  });

  it("rejects a --target that matches no document, before any call", async () => {
    const { service, dir } = await freshEstate();
    const planned = await converge(service, ["plan", "-f", ".", "--target", "Route/GET /nothing"], dir);
    expectExit(planned, 1);
    expect(planned.stderr).toContain('--target "Route/GET /nothing" matches no document');
    expect(service.requests.count()).toBe(0);
  });
});
