import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { convergeProvider } from "../../src/provider/converge-provider.js";
import { schemasOf, type ProviderSchemas } from "../../src/provider/runtime/deferred-provider.js";
import { exampleBlocks } from "../../src/provider/registry-docs/example-blocks.js";
import { readExamples } from "../../src/provider/registry-docs/read-examples.js";
import { GENERATED_FOLDERS, registryPages, type RegistryPage } from "../../src/provider/registry-docs/registry-docs.js";

/**
 * The provider's pages under docs/ (the Terraform Registry's layout: index.md, resources/,
 * data-sources/) are what `npm run docs:provider` makes of the provider's schema and
 * examples/terraform-hcl: regenerated here in memory from the definition itself, they must equal the
 * committed files, page for page and byte for byte.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const DOCS = join(ROOT, "docs");

/** The schemas as the build writes them to provider-schemas.json (JSON keeps what terraform is told). */
function schemas(): ProviderSchemas {
  return JSON.parse(JSON.stringify(schemasOf(convergeProvider))) as ProviderSchemas;
}

/** The committed generated pages: index.md and every file of the generated folders. */
function committedPages(): RegistryPage[] {
  const inFolders = GENERATED_FOLDERS.flatMap((folder) => readdirSync(join(DOCS, folder)).map((name) => `${folder}/${name}`));
  return ["index.md", ...inFolders].sort().map((path) => ({ path, text: readFileSync(join(DOCS, path), "utf8") }));
}

/** Pages that differ between two sets, by path: the ones missing on either side and the ones whose text differs. */
function differences(expected: ReadonlyArray<RegistryPage>, actual: ReadonlyArray<RegistryPage>): string[] {
  const paths = [...new Set([...expected, ...actual].map((page) => page.path))].sort();
  return paths.flatMap((path) => {
    const want = expected.find((page) => page.path === path);
    const have = actual.find((page) => page.path === path);
    if (!want) return [`docs/${path}: no resource or data source of the schema has this page`];
    if (!have) return [`docs/${path}: missing`];
    return want.text === have.text ? [] : [`docs/${path}: differs from what the schema makes`];
  });
}

describe("the provider's registry docs", () => {
  const generated = registryPages(schemas(), readExamples(ROOT));

  it("are what the provider's schema and examples/terraform-hcl make (regenerate: npm run docs:provider)", () => {
    expect(differences(generated, committedPages())).toEqual([]);
  });

  it("has one page per resource and data source, in the registry's layout", () => {
    const names = (record: Readonly<Record<string, unknown>>) => Object.keys(record).map((type) => type.replace(/^converge_/, "")).sort();
    expect(generated.map((page) => page.path).sort()).toEqual([
      "index.md",
      ...names(convergeProvider.dataSources).map((name) => `data-sources/${name}.md`),
      ...names(convergeProvider.resources).map((name) => `resources/${name}.md`),
    ].sort());
  });

  it("notices a description changed in the schema (the check can fail)", () => {
    const changed = schemas();
    const route = changed.resources["converge_route"]!;
    const probe: ProviderSchemas = {
      ...changed,
      resources: { ...changed.resources, converge_route: { ...route, attributes: { ...route.attributes, route_key: { ...route.attributes["route_key"]!, description: "a probe" } } } },
    };
    expect(differences(registryPages(probe, readExamples(ROOT)), committedPages())).toEqual(["docs/resources/route.md: differs from what the schema makes"]);
  });

  it("notices a resource the schema no longer has, and one it gained", () => {
    const { converge_route: route, ...others } = schemas().resources;
    const probe: ProviderSchemas = { ...schemas(), resources: { ...others, converge_route_copy: route! } };
    const examples = readExamples(ROOT).map((file) => ({ ...file, text: file.text.replaceAll('resource "converge_route"', 'resource "converge_route_copy"') }));
    expect(differences(registryPages(probe, examples), committedPages())).toEqual([
      "docs/resources/route.md: no resource or data source of the schema has this page",
      "docs/resources/route_copy.md: missing",
    ]);
  });

  it("shows each attribute in its group with its type, and the import ID of each resource", () => {
    const route = generated.find((page) => page.path === "resources/route.md")!.text;
    expect(route).toMatch(/^---\npage_title: "converge_route Resource - converge"\nsubcategory: ""\ndescription: \|-\n  /);
    const section = (name: string) => route.split(`### ${name}\n`)[1]!.trim().split("\n\n")[0]!;
    expect(section("Required")).toContain("- `api_id` (String) ");
    expect(section("Optional")).toContain("- `authorization_scopes` (Set of String) ");
    expect(section("Read-Only")).toContain("- `route_id` (String) ");
    expect(route).toContain("terraform import converge_route.example API_ID/ROUTE_ID\n");
    const contact = generated.find((page) => page.path === "resources/alternate_contact.md")!.text;
    expect(contact).toContain("terraform import converge_alternate_contact.example ACCOUNT_ID/TYPE\nterraform import converge_alternate_contact.example TYPE\n");
    const index = generated.find((page) => page.path === "index.md")!.text;
    expect(index).toContain("- `token` (String, Sensitive) ");
  });

  it("takes every block of a type from the examples, with its comments, and nothing else", () => {
    const regions = generated.find((page) => page.path === "data-sources/regions.md")!.text;
    const example = regions.split("```terraform\n")[1]!.split("```")[0]!;
    const blocks = readExamples(ROOT).flatMap(exampleBlocks).filter((block) => block.keyword === "data" && block.labels[0] === "converge_regions");
    expect(blocks.length).toBeGreaterThan(0);
    expect(example).toBe(`${blocks.map((block) => block.text).join("\n\n")}\n`);
    expect(example).toMatch(/^# /);
  });

  it("refuses a resource without an example, and an id that does not describe the import ID, naming them", () => {
    const bare = readExamples(ROOT).map((file) => ({ ...file, text: file.text.replaceAll('resource "converge_route"', 'resource "converge_other"') }));
    expect(() => registryPages(schemas(), bare)).toThrow('resource "converge_route" has no example in examples/terraform-hcl/main.tf: expected at least one resource block of that type to show');
    const changed = schemas();
    const route = changed.resources["converge_route"]!;
    const probe: ProviderSchemas = {
      ...changed,
      resources: { ...changed.resources, converge_route: { ...route, attributes: { ...route.attributes, id: { ...route.attributes["id"]!, description: "The ID." } } } },
    };
    expect(() => registryPages(probe, readExamples(ROOT))).toThrow(`converge_route: attribute id's description "The ID." is not valid: expected the import ID's forms in backquotes before "the import ID"`);
  });

  it("refuses an example block that does not close, naming the file and line", () => {
    expect(() => exampleBlocks({ path: "x.tf", text: 'resource "converge_route" "a" {\n  route_key = "$default"\n' })).toThrow('x.tf:1: block "resource \\"converge_route\\" \\"a\\" {" is not closed');
  });
});
