import { readFile, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { withWorld } from "../support/world.js";
import { E2E_TIMEOUT_MS, EXAMPLES_DIR, TempDirs, converge, e2eService, expectExit, writeFiles } from "./e2e-fixture.js";
import { KINDS } from "../../src/desired/schema.js";

/**
 * `converge schema` and the desired-state file formats: the JSON Schema editors complete against,
 * the example files that reference it, and JSON files holding one document or an array of them.
 */

const dirs = new TempDirs();
afterAll(async () => {
  await dirs.cleanup();
});

interface SchemaBranch {
  readonly type: string;
  readonly properties: Record<string, { const?: string }>;
  readonly required: string[];
  readonly additionalProperties: boolean;
}

describe.concurrent("converge schema", { timeout: E2E_TIMEOUT_MS }, () => {
  it("prints a JSON Schema of every document kind, the one the examples reference", async () => {
    const result = await runCli(["schema"]);
    expectExit(result, 0);
    expect(result.stderr).toBe("");
    const schema = JSON.parse(result.stdout) as { $schema: string; $id: string; title: string; oneOf: SchemaBranch[] };
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.title).toBe("converge desired-state document");
    // every kind the registry knows, in its order (AnyDocument must list each one)
    expect(schema.oneOf.map((branch) => branch.properties.kind?.const)).toEqual([...KINDS]);
    for (const branch of schema.oneOf) {
      expect(branch).toMatchObject({ type: "object", additionalProperties: false });
      expect(branch.required).toContain("kind");
      // an Api document's spec has a default ({prune: false}); every other kind requires one
      if (branch.properties.kind?.const !== "Api") expect(branch.required).toContain("spec");
    }
    // the copy next to the examples is the schema the CLI prints (regenerate it when the documents change)
    const copy = JSON.parse(await readFile(join(EXAMPLES_DIR, "converge.schema.json"), "utf8")) as unknown;
    expect(copy).toEqual(schema);

    const examples = (await readdir(EXAMPLES_DIR)).filter((name) => name.endsWith(".yaml")).sort();
    expect(examples).toEqual(["chat-api.yaml", "contacts.yaml", "orders-api.yaml", "regions.yaml"]);
    for (const name of examples) {
      const text = await readFile(join(EXAMPLES_DIR, name), "utf8");
      expect(text.split("\n")[0], name).toBe("# yaml-language-server: $schema=./converge.schema.json");
      // every example document has a branch of its kind, and only fields that branch declares
      for (const document of parseAllDocuments(text)) {
        const value = document.toJS() as Record<string, unknown>;
        const branch = schema.oneOf.find((candidate) => candidate.properties.kind?.const === value.kind);
        expect(branch, `${name}: kind ${String(value.kind)}`).toBeDefined();
        for (const field of Object.keys(value)) expect(Object.keys(branch!.properties), `${name}: ${field}`).toContain(field);
        for (const field of branch!.required) expect(Object.keys(value), `${name}: required ${field}`).toContain(field);
      }
    }
  });

  it("accepts ${var.…} in typed fields and still flags a misspelt field, for the environments example's documents", async () => {
    const result = await runCli(["schema"]);
    expectExit(result, 0);
    const schema = z.fromJSONSchema(JSON.parse(result.stdout) as Parameters<typeof z.fromJSONSchema>[0]);
    const environments = resolve(EXAMPLES_DIR, "../environments/desired-state");
    const files = (await readdir(environments)).filter((name) => name.endsWith(".yaml")).sort();
    expect(files).toEqual(["contacts.yaml", "orders-api.yaml"]);
    for (const name of files) {
      const text = await readFile(join(environments, name), "utf8");
      // the modeline names the one schema copy, which exists
      const modeline = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text);
      expect(await readFile(resolve(environments, modeline![1]!), "utf8"), name).toBe(await readFile(join(EXAMPLES_DIR, "converge.schema.json"), "utf8"));
      for (const document of parseAllDocuments(text)) {
        const checked = schema.safeParse(document.toJS());
        expect(checked.success, `${name}: ${JSON.stringify(checked.error?.issues.slice(0, 2))}`).toBe(true);
      }
    }
    const integration = (spec: Record<string, unknown>) => ({ kind: "Integration", name: "i", api: "${var.api_id}", spec: { integrationType: "HTTP_PROXY", ...spec } });
    expect(schema.safeParse(integration({ timeoutInMillis: "${var.timeout}", integrationUri: "https://${var.host}/x" })).success).toBe(true);
    expect(schema.safeParse(integration({ timeoutInMillis: "${var.timeout:-5000}" })).success).toBe(true);
    expect(schema.safeParse(integration({ timeoutInMillis: "abc" })).success).toBe(false);
    expect(schema.safeParse(integration({ timeoutInMilis: "${var.timeout}" })).success).toBe(false);
    expect(schema.safeParse({ ...integration({}), kind: "${var.kind}" }).success).toBe(false);
    expect(schema.safeParse({ kind: "RegionOptIn", account: "${var.account}", spec: { region: "${var.region}", enabled: "${var.enabled}" } }).success).toBe(true);
    expect(schema.safeParse({ kind: "RegionOptIn", account: "22", spec: { region: "ap-east-1", enabled: true } }).success).toBe(false);
  });

  it("validates the example estate offline, skipping the schema file next to it", async () => {
    const result = await runCli(["validate", "-f", EXAMPLES_DIR]);
    expectExit(result, 0);
    expect(result.stdout).toBe("23 documents in 4 files valid.\n");
  });
});

describe.concurrent("desired-state files in JSON", { timeout: E2E_TIMEOUT_MS }, () => {
  it("accepts a JSON file holding an array of documents, and one holding a single document", async () => {
    await withWorld(e2eService(), async ({ service }) => {
      const dir = await dirs.make("json");
      await writeFiles(dir, {
        "regions.json": JSON.stringify([
          { kind: "RegionOptIn", account: "222222222222", spec: { region: "ap-east-1", enabled: true } },
          { kind: "RegionOptIn", account: "222222222222", spec: { region: "me-south-1", enabled: true } },
        ], null, 2),
        "contact.json": JSON.stringify({
          kind: "AlternateContact",
          spec: { type: "OPERATIONS", name: "Ops", title: "SRE", emailAddress: "ops@example.com", phoneNumber: "+1 555 0102" },
        }, null, 2),
      });
      const validated = await converge(service, ["validate", "-f", "."], dir);
      expectExit(validated, 0);
      expect(validated.stdout).toBe("3 documents in 2 files valid.\n");

      const planned = await converge(service, ["plan", "-f", "."], dir);
      expectExit(planned, 2);
      expect(planned.stdout).toContain("# RegionOptIn/222222222222/ap-east-1 will be updated in place  (regions.json:2)");
      expect(planned.stdout).toContain("# RegionOptIn/222222222222/me-south-1 will be updated in place  (regions.json:10)");
      expect(planned.stdout).toContain("# AlternateContact/self/OPERATIONS will be created  (contact.json:1)");
    });
  });
});
