import type { ProviderSchemas } from "../runtime/deferred-provider.js";
import type { Schema } from "../runtime/index.js";
import { exampleBlocks, type ExampleBlock, type ExampleFile } from "./example-blocks.js";
import { schemaMarkdown } from "./schema-markdown.js";

/** One page of the provider's documentation: its path under `docs/` and its markdown. */
export interface RegistryPage {
  /** `index.md`, `resources/route.md`, `data-sources/api.md`. */
  readonly path: string;
  readonly text: string;
}

/** The folders of `docs/` whose pages are generated (every page in them is one of a schema's). */
export const GENERATED_FOLDERS = ["resources", "data-sources"] as const;

/**
 * The provider's documentation in the Terraform Registry's layout, as tfplugindocs writes it: an
 * index page for the provider and one page per resource and data source, each with front matter
 * (page_title, subcategory, description), the description, "Example Usage" taken from `examples`
 * (every block of the type, with its comments), "Schema" (Required, Optional, Read-Only attributes
 * with their types and descriptions, then nested schemas) and, for a resource, "Import" with the
 * import ID its `id` attribute describes. A resource or data source that no example declares, or a
 * resource whose `id` does not describe its import ID, is an error naming it.
 */
export function registryPages(schemas: ProviderSchemas, examples: ReadonlyArray<ExampleFile>): RegistryPage[] {
  const blocks = examples.flatMap(exampleBlocks);
  const examplePaths = examples.map((file) => file.path).join(", ");
  const examplesOf = (keyword: string, type: string): string => {
    const found = blocks.filter((block) => block.keyword === keyword && block.labels[0] === type);
    if (found.length === 0) throw new Error(`${keyword} "${type}" has no example in ${examplePaths}: expected at least one ${keyword} block of that type to show`);
    return hcl(found);
  };
  const prefix = `${schemas.name}_`;
  const shortName = (type: string): string => {
    if (!type.startsWith(prefix)) throw new Error(`type name ${JSON.stringify(type)} is not valid: expected a name starting with "${prefix}"`);
    return type.slice(prefix.length);
  };
  const providerBlocks = blocks.filter((block) => block.keyword === "terraform" || (block.keyword === "provider" && block.labels[0] === schemas.name));
  if (!providerBlocks.some((block) => block.keyword === "provider")) throw new Error(`provider "${schemas.name}" has no example in ${examplePaths}: expected a provider block`);
  const index: RegistryPage = {
    path: "index.md",
    text: page(`${schemas.name} Provider`, "", schemas.provider.description, `# ${schemas.name} Provider`, [
      "## Example Usage", "", hcl(providerBlocks), "", schemaMarkdown(schemas.provider),
    ]),
  };
  const resources = sorted(schemas.resources).map(([type, schema]): RegistryPage => ({
    path: `resources/${shortName(type)}.md`,
    text: page(`${type} Resource - ${schemas.name}`, "", schema.description, `# ${type} (Resource)`, [
      "## Example Usage", "", examplesOf("resource", type), "", schemaMarkdown(schema), "", importSection(type, schema),
    ]),
  }));
  const dataSources = sorted(schemas.dataSources).map(([type, schema]): RegistryPage => ({
    path: `data-sources/${shortName(type)}.md`,
    text: page(`${type} Data Source - ${schemas.name}`, "", schema.description, `# ${type} (Data Source)`, [
      "## Example Usage", "", examplesOf("data", type), "", schemaMarkdown(schema),
    ]),
  }));
  return [index, ...resources, ...dataSources];
}

function sorted(schemas: Readonly<Record<string, Schema>>): Array<[string, Schema]> {
  return Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b));
}

/** Front matter, title, description and sections, as tfplugindocs lays a page out. */
function page(title: string, subcategory: string, description: string | undefined, heading: string, sections: ReadonlyArray<string>): string {
  const text = description?.trim() ?? "";
  const frontMatter = ["---", `page_title: ${JSON.stringify(title)}`, `subcategory: ${JSON.stringify(subcategory)}`, "description: |-", ...text.split("\n").map((line) => `  ${line}`), "---"];
  return [...frontMatter, "", heading, "", ...(text === "" ? [] : [text, ""]), ...sections].join("\n").replace(/\n+$/, "") + "\n";
}

/** Blocks of configuration as one fenced example. */
function hcl(blocks: ReadonlyArray<ExampleBlock>): string {
  return ["```terraform", blocks.map((block) => block.text).join("\n\n"), "```"].join("\n");
}

/**
 * The "Import" section: the import IDs are the backquoted forms the `id` attribute's description
 * gives before "the import ID" (`API_ID/ROUTE_ID`, the import ID.), shown with `terraform import`
 * and as an import block.
 */
function importSection(type: string, schema: Schema): string {
  const description = schema.attributes["id"]?.description ?? "";
  const at = description.indexOf("the import ID");
  const forms = [...description.slice(0, Math.max(at, 0)).matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
  if (at < 0 || forms.length === 0) {
    throw new Error(`${type}: attribute id's description ${JSON.stringify(description)} is not valid: expected the import ID's forms in backquotes before "the import ID" (e.g. "\`API_ID/ROUTE_ID\`, the import ID.")`);
  }
  const explained = description.slice(0, at).replace(/[\s,:;]+$/, "");
  return [
    "## Import",
    "",
    `Import is supported using the following syntax. The import ID is ${explained}.`,
    "",
    "```shell",
    ...forms.map((form) => `terraform import ${type}.example ${form}`),
    "```",
    "",
    "With terraform 1.5 or later, an import block:",
    "",
    "```terraform",
    "import {",
    `  to = ${type}.example`,
    `  id = ${JSON.stringify(forms[0])}`,
    "}",
    "```",
  ].join("\n");
}
