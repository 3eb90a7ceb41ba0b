import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The layers point down (README, "Layout"): spec ← service, clients, desired ← reconcile ← cli, and
 * constructs use only desired and spec. Every relative import of every source file is checked,
 * static and dynamic, type-only included (a type import is still a dependency on the layer), and
 * the value imports of src/ may not form a cycle.
 */

const ROOT = resolve(import.meta.dirname, "../..");

/** The layers each layer may import from (its own included). */
const ALLOWED: Readonly<Record<string, ReadonlyArray<string>>> = {
  "src/spec": ["src/spec"],
  "src/service": ["src/service", "src/spec"],
  "src/clients": ["src/clients", "src/spec"],
  "src/desired": ["src/desired", "src/spec"],
  "src/reconcile": ["src/reconcile", "src/desired", "src/clients", "src/spec"],
  "src/cli": ["src/cli", "src/reconcile", "src/desired", "src/clients", "src/service", "src/spec"],
  "constructs": ["constructs", "src/desired", "src/spec"],
};

interface Import {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The relative imports of a file, resolved to repository paths (`.js` specifiers name `.ts` sources). */
function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const typeOnly = new Set<string>();
  for (const match of text.matchAll(/^\s*(?:import|export)\s+type\s[^;]*?from\s+"([^"]+)"/gm)) typeOnly.add(match[1]!);
  return ts.preProcessFile(text, true, true).importedFiles
    .filter((imported) => imported.fileName.startsWith("."))
    .map((imported) => ({
      from: file,
      to: relative(ROOT, resolve(ROOT, dirname(file), imported.fileName)).replace(/\.js$/, ".ts"),
      typeOnly: typeOnly.has(imported.fileName),
    }));
}

function layerOf(file: string): string | undefined {
  return Object.keys(ALLOWED).find((layer) => file === layer || file.startsWith(`${layer}/`));
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

  it("has no import that leaves the source tree (constructs and src import no tests, no examples)", () => {
    expect(IMPORTS.filter((edge) => layerOf(edge.to) === undefined).map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
  });

  it("has no cycle of value imports", () => {
    const edges = new Map<string, string[]>();
    for (const edge of IMPORTS) if (!edge.typeOnly) edges.set(edge.from, [...(edges.get(edge.from) ?? []), edge.to]);
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
    for (const file of FILES) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
