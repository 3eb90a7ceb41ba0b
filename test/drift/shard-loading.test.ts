import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { shardBucketOf } from "../../src/reconcile/drift-shards.js";
import type { RunningService } from "../../src/service/index.js";
import { describeCliResult } from "../support/cli.js";
import { E2E_TIMEOUT_MS, ORDERS_API, converge, useE2eResources, writeFiles } from "../e2e/e2e-fixture.js";

/**
 * What a drift shard loads: the documents whose read key it can find without parsing them go to
 * their own shard only, so a problem in one of them fails the shard that owns it (and drift-merge
 * then refuses the missing report) and no other; a document whose key cannot be found so is parsed,
 * and its problems fail, in every shard.
 */

const { services, dirs } = useE2eResources();
const SHARDS = 3;
const MEMBERS = ["222222222222", "333333333333"];
let service: RunningService;

/** The shard (1-based) a read key belongs to among SHARDS. */
const shardOf = (key: string) => shardBucketOf(key, SHARDS) + 1;

function contact(account: string, type: string, email = `${type.toLowerCase()}@example.com`): string {
  return ["kind: AlternateContact", `account: "${account}"`, "spec:", `  type: ${type}`, "  name: Team", "  title: Lead", `  emailAddress: ${email}`, '  phoneNumber: "+1 555 0100"', ""].join("\n");
}

/** Two contacts per member account and the orders API's Api document: keys spread over the shards. */
function estate(): Record<string, string> {
  return {
    "contacts.yaml": MEMBERS.flatMap((account) => ["BILLING", "SECURITY", "OPERATIONS"].map((type) => contact(account, type))).join("---\n"),
    "api.yaml": `kind: Api\napi: ${ORDERS_API}\n`,
  };
}

beforeAll(async () => {
  service = await services.start();
});

async function driftShards(dir: string): Promise<Array<Awaited<ReturnType<typeof converge>>>> {
  return Promise.all(Array.from({ length: SHARDS }, (_, i) => converge(service, ["drift", "-f", ".", "--shard", `${i + 1}/${SHARDS}`, "--output", "json", "--report", join(dir, "..", `${i + 1}.json`)], dir)));
}

describe("drift shards and broken documents", { timeout: E2E_TIMEOUT_MS }, () => {
  it("fails only the shard that owns a broken document whose read key is found without parsing it", async () => {
    const dir = await dirs.make("shard-owned");
    // a contact whose value is wrong and whose YAML repeats a key: a shard that parsed it would refuse it
    const broken = contact("333333333333", "SECURITY", "not-an-email").replace("  name: Team\n", "  name: Team\n  name: Other\n");
    const files = estate();
    files["contacts.yaml"] = files["contacts.yaml"]!.replace(contact("333333333333", "SECURITY"), broken);
    await writeFiles(dir, files);
    const owner = shardOf("contact:333333333333/SECURITY");

    const results = await driftShards(dir);
    for (const [index, result] of results.entries()) {
      if (index + 1 === owner) {
        expect(result.code, describeCliResult(result)).toBe(1);
        expect(result.stderr).toMatch(/contacts\.yaml:\d+:\d+: not valid YAML: Map keys must be unique/);
      } else {
        // in sync or drifted (nothing was applied): a report, and no problem
        expect([0, 2], describeCliResult(result)).toContain(result.code);
        expect(result.stderr).toBe("");
      }
    }
    // the shards that succeeded cannot be merged into a report of the whole estate
    const merged = await converge(service, ["drift-merge", ...results.flatMap((result, index) => (result.code !== 1 ? [join(dir, "..", `${index + 1}.json`)] : []))], dir);
    expect(merged.code, describeCliResult(merged)).toBe(1);
    expect(merged.stderr).toMatch(/shard|missing/i);
  });

  it("fails every shard on a broken document whose read key cannot be found without parsing it", async () => {
    const dir = await dirs.make("shard-unknown");
    const files = estate();
    // written in flow style, so its key is only known once parsed; the email address is wrong
    files["flow.yaml"] = '{kind: AlternateContact, account: "222222222222", spec: {type: SECURITY, name: A, title: B, emailAddress: nope, phoneNumber: "+1"}}\n';
    files["contacts.yaml"] = files["contacts.yaml"]!.replace(contact("222222222222", "SECURITY"), "");
    await writeFiles(dir, files);

    const results = await driftShards(dir);
    for (const result of results) {
      expect(result.code, describeCliResult(result)).toBe(1);
      expect(result.stderr).toMatch(/flow\.yaml:1:\d+: spec\.emailAddress: .*expected an email address/);
    }
  });

  it("gives every document to exactly one shard, and the shards together report the whole estate", async () => {
    const dir = await dirs.make("shard-whole");
    const files = estate();
    files["flow.yaml"] = '{kind: RegionOptIn, account: "222222222222", spec: {region: ap-east-1, enabled: false}}\n';
    await writeFiles(dir, files);
    const results = await driftShards(dir);
    const addresses = results.flatMap((result) => {
      expect([0, 2], describeCliResult(result)).toContain(result.code);
      return (JSON.parse(result.stdout) as { resources: Array<{ address: string }> }).resources.map((resource) => resource.address);
    });
    const whole = await converge(service, ["drift", "-f", ".", "--output", "json"], dir);
    const wholeAddresses = (JSON.parse(whole.stdout) as { resources: Array<{ address: string }> }).resources.map((resource) => resource.address);
    expect([...addresses].sort()).toEqual([...wholeAddresses].sort());
    expect(new Set(addresses).size).toBe(addresses.length);
    expect(wholeAddresses).toContain("RegionOptIn/222222222222/ap-east-1");
  });
});
