import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  commentedHcl,
  hclIdentifier,
  hclReference,
  hclString,
  hclTemplate,
  isHclIdentifier,
  renderHcl,
  type HclBodyItem,
} from "../../src/desired/hcl-writer.js";
import { TERRAFORM } from "../provider/terraform-fixture.js";

/**
 * The HCL writer: literal strings, identifiers, and bodies laid out as `terraform fmt` lays them
 * out; then real terraform 1.11 reads arbitrary strings back as exactly what was written, and
 * `terraform fmt -check` finds nothing to change in a body with every shape the writer makes.
 */

describe("hclString", () => {
  it.each([
    ["plain", '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["back\\slash", '"back\\\\slash"'],
    ["line\nbreak\r\ttab", '"line\\nbreak\\r\\ttab"'],
    ["${var.token}", '"$${var.token}"'],
    ["%{ if true }x%{ endif }", '"%%{ if true }x%%{ endif }"'],
    ["$${already}", '"$$${already}"'],
    ["$ alone and % alone and {braces}", '"$ alone and % alone and {braces}"'],
    ["\u0000\u001f\u007f", '"\\u0000\\u001f\\u007f"'],
    ["été 😀", '"été 😀"'],
    ['"\n}\nresource "converge_route" "evil" {', '"\\"\\n}\\nresource \\"converge_route\\" \\"evil\\" {"'],
  ])("writes %j as %s", (text, expected) => {
    expect(hclString(text)).toBe(expected);
  });
});

describe("identifiers", () => {
  it.each([
    ["orders-backend", "orders-backend"],
    ["orders.internal", "orders_internal"],
    ["2fa", "_2fa"],
    ["-x", "_-x"],
    ["", "_"],
    ["a b\"c", "a_b_c"],
  ])("makes %j the identifier %j", (name, expected) => {
    expect(hclIdentifier(name)).toBe(expected);
    expect(isHclIdentifier(hclIdentifier(name))).toBe(true);
  });

  it("refuses a reference part that is not an identifier", () => {
    expect(() => hclReference("converge_route", "a.b")).toThrow('hcl reference part "a.b" is not valid: expected an identifier');
  });
});

/** A body with every shape the writer makes: aligned runs broken by multi-line values, maps, lists, nested blocks, comments. */
const EVERY_SHAPE: HclBodyItem[] = [
  { comment: ["a header", "", "with an empty line"] },
  {
    block: "resource",
    labels: ["converge_integration", "orders-backend"],
    body: [
      { attribute: "api_id", value: hclReference("data", "converge_api", "orders", "api_id") },
      { attribute: "integration_type", value: "HTTP_PROXY" },
      { attribute: "timeout_in_millis", value: 10000 },
      { attribute: "request_parameters", value: { "append:header.x": "$request.header.y", "overwrite:path": "${x}", é: "wide key" } },
      { attribute: "tls_config", value: { server_name_to_verify: null } },
      { attribute: "response_parameters", value: { "404": { "overwrite:statuscode": "410" }, "500": {} } },
      { attribute: "enabled", value: true },
      { attribute: "scopes", value: ["a", "b\"c"] },
      { attribute: "empty", value: [] },
      { attribute: "target", value: hclTemplate("integrations/", hclReference("converge_integration", "x", "integration_id")) },
      { block: "lifecycle", body: [{ attribute: "ignore_changes", value: [] }] },
    ],
  },
  { blank: true },
  commentedHcl([{ block: "import", body: [{ attribute: "to", value: hclReference("converge_route", "default") }, { attribute: "id", value: "a/b" }] }]),
  { block: "provider", labels: ["converge"], body: [] },
];

describe("renderHcl", () => {
  it("aligns the = of one-line attributes in a row, as terraform fmt does, and breaks the row at multi-line values", () => {
    expect(renderHcl(EVERY_SHAPE)).toBe(`# a header
#
# with an empty line
resource "converge_integration" "orders-backend" {
  api_id            = data.converge_api.orders.api_id
  integration_type  = "HTTP_PROXY"
  timeout_in_millis = 10000
  request_parameters = {
    "append:header.x" = "$request.header.y"
    "overwrite:path"  = "$\${x}"
    "\\u00e9"          = "wide key"
  }
  tls_config = {
    server_name_to_verify = null
  }
  response_parameters = {
    "404" = {
      "overwrite:statuscode" = "410"
    }
    "500" = {}
  }
  enabled = true
  scopes  = ["a", "b\\"c"]
  empty   = []
  target  = "integrations/\${converge_integration.x.integration_id}"
  lifecycle {
    ignore_changes = []
  }
}

# import {
#   to = converge_route.default
#   id = "a/b"
# }
provider "converge" {
}
`);
  });

  it("refuses an attribute name that is not an identifier, and a number that is not finite", () => {
    expect(() => renderHcl([{ attribute: "a b", value: 1 }])).toThrow('hcl attribute name "a b" is not valid');
    expect(() => renderHcl([{ attribute: "a", value: Number.NaN }])).toThrow("hcl number NaN is not valid: expected a finite number");
  });

  it("quotes object keys that would read as a value or a keyword", () => {
    expect(renderHcl([{ attribute: "m", value: { null: "a", for: "b", plain: "c" } }])).toBe('m = {\n  "null" = "a"\n  "for"  = "b"\n  plain  = "c"\n}\n');
  });
});

/** Text that is hard for HCL: template sequences, escapes, quotes, control characters, wide characters. */
const hardPiece = fc.constantFrom("$", "%", "{", "}", "${", "%{", "$${", "%%{", "\\", "\"", "\n", "\r\n", "\t", "\u0000", "\u001b", "\u007f", "é", "😀", "\u2028", "#", "//", "/*", "<<EOF", "}\nresource \"x\" \"y\" {");
// in NFC: terraform reads every string literal, escapes included, as its NFC form (checked below)
const hardString = fc.array(fc.oneof(hardPiece, fc.string({ unit: "grapheme", maxLength: 6 })), { maxLength: 12 }).map((pieces) => pieces.join("").normalize("NFC"));

function terraform(args: string[], cwd: string, input?: string) {
  return spawnSync(TERRAFORM, args, { cwd, input, encoding: "utf8", env: { PATH: process.env.PATH ?? "", CHECKPOINT_DISABLE: "1", TF_CLI_CONFIG_FILE: "/dev/null", HOME: cwd } });
}

describe("with real terraform 1.11", { timeout: 120_000 }, () => {
  it("reads arbitrary strings back as exactly what was written, as values and as map keys", () => {
    const strings = [...fc.sample(hardString, { numRuns: 300, seed: 26 }), '"\n}\nresource "converge_route" "evil" {'];
    const dir = mkdtempSync(join(tmpdir(), "converge-hcl-"));
    try {
      const keyed = Object.fromEntries(strings.map((text, index) => [`${text}#${index}`, index]));
      writeFileSync(join(dir, "main.tf"), renderHcl([{ block: "locals", body: [{ attribute: "values", value: strings }, { attribute: "keyed", value: keyed }] }]));
      // base64: the console's own quoting of the answer cannot blur it
      const result = terraform(["console"], dir, "base64encode(jsonencode([local.values, local.keyed]))\n");
      expect(result.status, result.stderr).toBe(0);
      const base64 = /^"([A-Za-z0-9+/=]+)"$/.exec(result.stdout.trim())?.[1];
      expect(base64, result.stdout).toBeDefined();
      const [values, keys] = JSON.parse(Buffer.from(base64!, "base64").toString("utf8")) as [string[], Record<string, number>];
      expect(values).toEqual(strings);
      expect(keys).toEqual(keyed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a string not in NFC as its NFC form, escaped or not: such text has no literal in terraform", () => {
    const dir = mkdtempSync(join(tmpdir(), "converge-hcl-"));
    try {
      writeFileSync(join(dir, "main.tf"), renderHcl([{ block: "locals", body: [{ attribute: "values", value: ["e\u0301", "\uf9f1"] }] }]).replace("\u0301", "\\u0301"));
      const result = terraform(["console"], dir, "base64encode(jsonencode(local.values))\n");
      const base64 = /^"([A-Za-z0-9+/=]+)"$/.exec(result.stdout.trim())?.[1];
      expect(JSON.parse(Buffer.from(base64!, "base64").toString("utf8"))).toEqual(["\u00e9", "\uf9f1".normalize("NFC")]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("finds every shape the writer makes terraform fmt-clean", () => {
    const dir = mkdtempSync(join(tmpdir(), "converge-hcl-"));
    try {
      writeFileSync(join(dir, "main.tf"), renderHcl(EVERY_SHAPE));
      const result = terraform(["fmt", "-check", "-diff"], dir);
      expect(result.stdout + result.stderr).toBe("");
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
