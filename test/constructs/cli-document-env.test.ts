import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { describeCliResult, runCli, type CliResult } from "../support/cli.js";
import { ADMIN_TOKEN, CHAT_API, ORDERS_API, Services, liveContact, liveIntegrations, writeCounts, writeRequests } from "../e2e/e2e-fixture.js";

/**
 * The CLI side of the cdktf constructs: `apply --document-env VAR`, `delete --document-env VAR
 * [--keep-env KEEP]` and `--token-env NAME`, as the provisioners run them (no terminal).
 */

const services = new Services();
let service: RunningService;

beforeAll(async () => {
  service = await services.start();
});
afterAll(() => services.closeAll());

function converge(args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>): Promise<CliResult> {
  return runCli(args, { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, ...env } });
}

const contact = (type: string, name: string) => ({ kind: "AlternateContact", spec: { type, name, title: "Lead", emailAddress: "lead@example.com", phoneNumber: "+1 555 0100" } });

describe("converge apply --document-env", () => {
  it("applies one document, then an array, from the variable", async () => {
    service.requests.reset();
    const one = await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify(contact("BILLING", "Billing Team")) });
    expect(one.code, describeCliResult(one)).toBe(0);
    const many = await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify([contact("BILLING", "Billing Team"), contact("OPERATIONS", "Ops \u0085 \u2028 😀 \u{1F600}")]) });
    expect(many.code, describeCliResult(many)).toBe(0);
    expect(writeCounts(service)).toEqual({ PutAlternateContact: 2 });
    expect((await liveContact(service, "OPERATIONS"))?.Name).toBe("Ops \u0085 \u2028 😀 \u{1F600}");
  });

  it("rejects a variable that is unset or not JSON, naming the variable and never its value", async () => {
    const unset = await converge(["apply", "--document-env", "NOT_SET_ANYWHERE", "--auto-approve"], { NOT_SET_ANYWHERE: undefined });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain("the environment variable NOT_SET_ANYWHERE is not set or empty");
    const broken = await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: "{kind: secret-value-7c1" });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("the environment variable DOC does not hold JSON");
    expect(`${broken.stdout}${broken.stderr}`).not.toContain("secret-value-7c1");
  });

  it("rejects invalid documents before any call, locating each problem in the variable", async () => {
    service.requests.reset();
    const result = await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify([{ ...contact("SECURITY", "S"), spec: { ...contact("SECURITY", "S").spec, emailAddress: "nope" } }, { kind: "Route", api: ORDERS_API, spec: { routeKey: "GET /x", target: { integration: "missing" } } }]) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\$DOC:1:\d+: spec\.emailAddress: spec\.emailAddress "nope" is not valid/);
    expect(result.stderr).toMatch(/\$DOC:1:\d+: spec\.target\.integration: target names integration "missing"/);
    expect(service.requests.count()).toBe(0);
  });

  it("rejects --document-env together with -f", async () => {
    const result = await converge(["apply", "-f", "x.yaml", "--document-env", "DOC", "--auto-approve"], { DOC: "{}" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("pass one of a plan file, -f PATH, --document-env VAR or --from-synth DIR, not several");
  });
});

describe("converge delete --document-env", () => {
  it("deletes what an identity document names, and deleting it again is a no-op with zero writes", async () => {
    await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify(contact("SECURITY", "Security")) });
    service.requests.reset();
    const identity = JSON.stringify({ kind: "AlternateContact", spec: { type: "SECURITY" } });
    const first = await converge(["delete", "--document-env", "DOC", "--auto-approve"], { DOC: identity });
    expect(first.code, describeCliResult(first)).toBe(0);
    expect(writeCounts(service)).toEqual({ DeleteAlternateContact: 1 });
    expect(await liveContact(service, "SECURITY")).toBeNull();
    service.requests.reset();
    const again = await converge(["delete", "--document-env", "DOC", "--auto-approve"], { DOC: identity });
    expect(again.code, describeCliResult(again)).toBe(0);
    expect(writeRequests(service)).toEqual([]);
  });

  it("leaves alone the documents --keep-env lists (compared as values, field order aside)", async () => {
    await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify([contact("SECURITY", "S"), contact("BILLING", "B")]) });
    service.requests.reset();
    const result = await converge(["delete", "--document-env", "OLD", "--keep-env", "NEW", "--auto-approve"], {
      OLD: JSON.stringify([{ kind: "AlternateContact", spec: { type: "SECURITY" } }, { kind: "AlternateContact", spec: { type: "BILLING" } }]),
      NEW: JSON.stringify([{ spec: { type: "BILLING" }, kind: "AlternateContact" }]),
    });
    expect(result.code, describeCliResult(result)).toBe(0);
    expect(writeCounts(service)).toEqual({ DeleteAlternateContact: 1 });
    expect(await liveContact(service, "SECURITY")).toBeNull();
    expect(await liveContact(service, "BILLING")).not.toBeNull();
    service.requests.reset();
    const nothing = await converge(["delete", "--document-env", "OLD", "--keep-env", "NEW", "--auto-approve"], { OLD: "[]", NEW: "[]" });
    expect(nothing.stdout).toBe("Nothing to delete.\n");
    expect(service.requests.count()).toBe(0);
  });

  it("refuses --document-env and --keep-env values nested too deeply (issue 21), naming the variable, line and column, before any call", async () => {
    service.requests.reset();
    const deep = `[{"kind": "AlternateContact", "spec": ${"[".repeat(10_000)}${"]".repeat(10_000)}}]`;
    const column = '[{"kind": "AlternateContact", "spec": '.length + 63;
    const deleted = await converge(["delete", "--document-env", "OLD", "--keep-env", "NEW", "--auto-approve"], { OLD: "[]", NEW: deep });
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toMatch(new RegExp(`^converge: --keep-env NEW: \\$NEW:1:${column}: nested too deeply: a list or mapping opens at level 65`));
    const applied = await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: deep });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(new RegExp(`^converge: --document-env DOC: \\$DOC:1:${column}: nested too deeply`));
    expect(service.requests.count()).toBe(0);
  });

  it("refuses to delete a service-managed integration: the protections still apply", async () => {
    const [managed] = (await liveIntegrations(service, ORDERS_API)).filter((item) => item.apiGatewayManaged);
    service.requests.reset();
    const result = await converge(["delete", "--document-env", "DOC", "--auto-approve"], {
      DOC: JSON.stringify({ kind: "Integration", name: "quick", api: ORDERS_API, spec: { integrationType: managed!.integrationType, integrationId: managed!.integrationId } }),
    });
    expect(result.code, describeCliResult(result)).toBe(0);
    expect(result.stdout).toMatch(/refused/i);
    expect(writeRequests(service)).toEqual([]);
  });

  it("refuses a RegionOptIn: it has no delete", async () => {
    const result = await converge(["delete", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify({ kind: "RegionOptIn", spec: { region: "ap-east-1" } }) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("item 0 is a RegionOptIn document, which converge cannot delete");
  });

  it("needs --auto-approve when not on a terminal", async () => {
    await converge(["apply", "--document-env", "DOC", "--auto-approve"], { DOC: JSON.stringify(contact("SECURITY", "S")) });
    const result = await converge(["delete", "--document-env", "DOC"], { DOC: JSON.stringify({ kind: "AlternateContact", spec: { type: "SECURITY" } }) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("apply needs --auto-approve when not run on a terminal: nothing was changed");
    expect(await liveContact(service, "SECURITY")).not.toBeNull();
  });
});

describe("--token-env NAME", () => {
  it("reads the token from the named variable instead of CONVERGE_TOKEN", async () => {
    const applied = await converge(["apply", "--document-env", "DOC", "--auto-approve", "--token-env", "SHOP_TOKEN"], { CONVERGE_TOKEN: undefined, SHOP_TOKEN: ADMIN_TOKEN, DOC: JSON.stringify({ kind: "Route", api: CHAT_API, spec: { routeKey: "token-env" } }) });
    expect(applied.code, describeCliResult(applied)).toBe(0);
  });

  it("rejects a variable that is not set, naming it", async () => {
    const result = await converge(["apply", "--document-env", "DOC", "--auto-approve", "--token-env", "SHOP_TOKEN"], { CONVERGE_TOKEN: ADMIN_TOKEN, SHOP_TOKEN: undefined, DOC: JSON.stringify(contact("SECURITY", "S")) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no token: the environment variable SHOP_TOKEN (--token-env) is not set or empty");
  });
});
