import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { KINDS } from "../../src/desired/schema.js";
import { KIND_ENGINES } from "../../src/reconcile/kinds/registry.js";

/**
 * The layers point down (docs/manual/layout.md): input-limits and contract ← service, clients, desired ← reconcile ← provider,
 * cli (neither imports the other, nothing below imports either; a fact both need lives below them, as go-plugin's handshake in
 * src/contract/plugin-handshake.ts); testing (`converge/testing`, the services as a test double) stands on service and clients; the provider's runtime uses nothing of src/ but that; constructs use only desired and contract. Every relative import of every source file is checked,
 * static and dynamic, type-only included (a type import is still a dependency on the layer), and
 * no imports may form a cycle, type-only included: a shared type lives in the module that owns the
 * contract, never in one of its consumers.
 */

const ROOT = resolve(import.meta.dirname, "../..");

/** The layers each layer may import from (its own included). */
const ALLOWED: Readonly<Record<string, ReadonlyArray<string>>> = {
  "src/input-limits": ["src/input-limits"],
  "src/contract": ["src/contract"],
  "src/service": ["src/service", "src/contract", "src/input-limits"],
  "src/clients": ["src/clients", "src/contract"],
  "src/desired": ["src/desired", "src/contract", "src/input-limits"],
  "src/reconcile": ["src/reconcile", "src/desired", "src/clients", "src/contract"],
  "src/provider/runtime": ["src/provider/runtime", "src/contract"],
  "src/provider": ["src/provider", "src/provider/runtime", "src/reconcile", "src/desired", "src/clients", "src/contract"],
  "src/cli": ["src/cli", "src/reconcile", "src/desired", "src/clients", "src/service", "src/contract", "src/input-limits"],
  "src/testing": ["src/testing", "src/service", "src/clients", "src/contract"],
  "constructs": ["constructs", "src/desired", "src/contract"],
};

interface Import {
  readonly from: string;
  readonly to: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The relative imports of a file, resolved to repository paths (`.js` specifiers name `.ts` sources). */
function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return ts.preProcessFile(text, true, true).importedFiles
    .filter((imported) => imported.fileName.startsWith("."))
    .map((imported) => ({ from: file, to: relative(ROOT, resolve(ROOT, dirname(file), imported.fileName)).replace(/\.js$/, ".ts") }));
}

/** Every cycle of the imports among the files, each as `a -> b -> a` (imports of any kind, type-only included). */
function cyclesOf(files: ReadonlyArray<string>, imports: ReadonlyArray<Import>): string[] {
  const edges = new Map<string, string[]>();
  for (const edge of imports) edges.set(edge.from, [...(edges.get(edge.from) ?? []), edge.to]);
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

/** The layer of a file: the longest that holds it (`src/provider/runtime` before `src/provider`). */
function layerOf(file: string): string | undefined {
  return Object.keys(ALLOWED).filter((layer) => file === layer || file.startsWith(`${layer}/`)).sort((a, b) => b.length - a.length)[0];
}

const FILES = [...sourceFiles("src"), ...sourceFiles("constructs")];
const IMPORTS = FILES.flatMap(importsOf);

describe("import structure", () => {
  it("finds the sources and their imports (the check below has something to check)", () => {
    expect(FILES.length).toBeGreaterThan(80);
    expect(IMPORTS.length).toBeGreaterThan(300);
    expect(IMPORTS.some((edge) => edge.from.startsWith("constructs/") && edge.to.startsWith("src/desired/"))).toBe(true);
  });

  it("has every source file in a layer", () => {
    expect(FILES.filter((file) => layerOf(file) === undefined)).toEqual([]);
  });

  it("imports only from the same layer or the layers below it", () => {
    const upward = IMPORTS.filter((edge) => {
      const target = layerOf(edge.to);
      return target !== undefined && !ALLOWED[layerOf(edge.from)!]!.includes(target);
    }).map((edge) => `${edge.from} -> ${edge.to}`);
    expect(upward).toEqual([]);
  });

  it("keeps the provider runtime generic: src/provider/runtime/ imports nothing else of src/ but go-plugin's handshake constants", () => {
    const runtime = "src/provider/runtime/";
    const handshake = "src/contract/plugin-handshake.ts";
    expect(IMPORTS.some((edge) => edge.from.startsWith(runtime))).toBe(true);
    expect(IMPORTS.filter((edge) => edge.from.startsWith(runtime) && !edge.to.startsWith(runtime) && edge.to !== handshake).map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
  });

  it("has no import that leaves the source tree (constructs and src import no tests, no examples)", () => {
    expect(IMPORTS.filter((edge) => layerOf(edge.to) === undefined).map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
  });

  it("finds a cycle of type-only imports (the check below can fail)", () => {
    const probes = ["src/desired/cycle-probe-a.ts", "src/desired/cycle-probe-b.ts"];
    writeFileSync(join(ROOT, probes[0]!), 'import type { B } from "./cycle-probe-b.js";\nexport interface A { readonly b?: B }\n');
    writeFileSync(join(ROOT, probes[1]!), 'import type { A } from "./cycle-probe-a.js";\nexport interface B { readonly a?: A }\n');
    try {
      expect(cyclesOf(probes, probes.flatMap(importsOf))).toEqual(["src/desired/cycle-probe-a.ts -> src/desired/cycle-probe-b.ts -> src/desired/cycle-probe-a.ts"]);
    } finally {
      for (const probe of probes) rmSync(join(ROOT, probe));
    }
  });

  it("has no cycle of imports, type-only included", () => {
    expect(cyclesOf(FILES, IMPORTS)).toEqual([]);
  });
});

/**
 * A resource kind's facts live with the kind (docs/manual/layout.md): its name and its engine's operation
 * names appear only in the kind's own files (its model and engine under `kinds/`, its construct
 * `constructs/<kind>.ts`, its provider resource under `src/provider/resources/`) and in the document
 * schemas that define the kinds. Shared code calls capabilities instead of comparing names; a string
 * literal of a kind or operation name anywhere else (a comparison, a case, a literal type) fails.
 * The service, the clients and the contract are not checked: there "Route" or "Api" name the
 * service's resource types (NotFound's resourceType), another vocabulary.
 */
describe("kind and operation names", () => {
  const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
  // "none" (an integration no-op's request) is a common word; it is left out
  const opsOf = new Map(Object.entries(KIND_ENGINES).map(([kind, engine]) => [kind, (engine.ops as ReadonlyArray<string>).filter((op) => op !== "none")]));
  const ownerOf = new Map<string, string>();
  for (const kind of KINDS) {
    ownerOf.set(kind, kind);
    for (const op of opsOf.get(kind) ?? []) ownerOf.set(op, kind);
  }
  const CHECKED = ["src/reconcile/", "src/cli/", "src/desired/", "src/provider/", "constructs/"];
  const mayName = (file: string, kind: string) =>
    /^src\/(desired|reconcile)\/kinds\//.test(file) || file.startsWith("src/provider/resources/") || file === "src/desired/schema.ts" || file === `constructs/${kebab(kind)}.ts`;

  function namesOutsideTheirKind(file: string): string[] {
    const text = readFileSync(join(ROOT, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        const kind = ownerOf.get(node.text);
        if (kind !== undefined && !ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent) && !mayName(file, kind)) {
          found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: "${node.text}" (${kind})`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  it("knows every kind and its operations (the check below has something to check)", () => {
    expect([...ownerOf.keys()]).toEqual(expect.arrayContaining(["Route", "Integration", "createIntegration", "deleteRoute", "putContact", "setRegion"]));
  });

  it("finds a name switched on outside its kind's files (the check can fail)", () => {
    const probe = join(ROOT, "src/reconcile/kind-name-probe.ts");
    writeFileSync(probe, 'export const isRoute = (kind: string) => kind === "Route";\nexport const op = (o: string) => o === "deleteIntegration";\n');
    try {
      expect(namesOutsideTheirKind("src/reconcile/kind-name-probe.ts")).toEqual([
        'src/reconcile/kind-name-probe.ts:1: "Route" (Route)',
        'src/reconcile/kind-name-probe.ts:2: "deleteIntegration" (Integration)',
      ]);
    } finally {
      rmSync(probe);
    }
  });

  it("names kinds and operations only in their kinds' files", () => {
    const files = FILES.filter((file) => CHECKED.some((prefix) => file.startsWith(prefix)));
    expect(files.flatMap(namesOutsideTheirKind)).toEqual([]);
  });
});

/**
 * One name for every type (docs/manual/layout.md): the provider's name, its source address and the
 * types of its resources and data sources are built from PROVIDER_NAME in
 * src/desired/terraform-attributes.ts (`resourceTypeOf`, `dataSourceTypeOf`); a string or template
 * literal that writes a type itself (`"converge_route"`, `` `data.converge_api.${name}` ``) anywhere
 * else in src/ or constructs/ fails. Comments may name a type: they are not code.
 */
describe("terraform type names", () => {
  const NAMING_SOURCE = "src/desired/terraform-attributes.ts";
  // a type begins the literal or follows a dot or a quote; `terraform-provider-converge_v1` names an executable (src/cli/release/release-names.ts)
  const TYPE_NAME = /(?<![\w-])converge_/;

  function typeNamesWritten(file: string): string[] {
    const text = readFileSync(join(ROOT, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
        if (TYPE_NAME.test(node.text)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${JSON.stringify(node.text)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  }

  it("finds a type name written outside the naming source (the check can fail)", () => {
    const probe = join(ROOT, "src/reconcile/type-name-probe.ts");
    writeFileSync(probe, [
      "// a comment may name converge_route and `converge_api`",
      'export const type = "converge_route";',
      "export const other = 'converge_integration';",
      "export const lookup = (name: string) => `data.converge_api.${name}`;",
      "export const plain = `converge_region_opt_in`;",
      'export const executable = "terraform-provider-converge_v1.0.0";',
      "",
    ].join("\n"));
    try {
      expect(typeNamesWritten("src/reconcile/type-name-probe.ts")).toEqual([
        'src/reconcile/type-name-probe.ts:2: "converge_route"',
        'src/reconcile/type-name-probe.ts:3: "converge_integration"',
        'src/reconcile/type-name-probe.ts:4: "data.converge_api."',
        'src/reconcile/type-name-probe.ts:5: "converge_region_opt_in"',
      ]);
    } finally {
      rmSync(probe);
    }
  });

  it("writes terraform type names only in src/desired/terraform-attributes.ts", () => {
    expect(FILES).toContain(NAMING_SOURCE);
    expect(FILES.filter((file) => file !== NAMING_SOURCE).flatMap(typeNamesWritten)).toEqual([]);
  });
});

/**
 * Comments and docs cite only files in the repository (README sections, files of the tree): a clone
 * has no design notes or spec pages beside it, so a reference to one is a dead end for its reader.
 */
describe("references", () => {
  const OUTSIDE = [/\bDESIGN\.md\b/, /\bspec\/[\w-]+\.md\b/, /\bshared\/(?:DESIGN|STYLE|spec)\b/, /\bSTYLE\.md\b/];
  const TREES = ["src", "constructs", "test", "examples", ".ci", "docs"];

  function textFiles(directory: string): string[] {
    return readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && !entry.parentPath.includes("node_modules") && /\.(ts|mjs|js|md|ya?ml|json|sh|tf|hcl|proto)$|^run$/.test(entry.name))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
  }

  function outsideReferences(file: string): string[] {
    return readFileSync(join(ROOT, file), "utf8").split("\n").flatMap((line, index) =>
      OUTSIDE.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []);
  }

  it("finds a reference to a document outside the repository (the check can fail)", () => {
    const probe = join(ROOT, "src/reference-probe.ts");
    writeFileSync(probe, ["// see DESIGN", ".md §2"].join("") + "\n");
    try {
      expect(outsideReferences("src/reference-probe.ts")).toHaveLength(1);
    } finally {
      rmSync(probe);
    }
  });

  it("cites no document outside the repository in the sources, tests, examples, CI, README or docs", () => {
    const files = [...TREES.flatMap(textFiles), "README.md"].filter((file) => file !== "test/architecture/layers.test.ts");
    expect(files.length).toBeGreaterThan(200);
    expect(files.flatMap(outsideReferences)).toEqual([]);
  });
});
