import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/manual/dependencies.md says why each dependency is there: its table names every package of
 * package.json's dependencies and devDependencies, and no package that is not one.
 */
const ROOT = resolve(import.meta.dirname, "../..");

/** The packages the first column of the page's table names (`cdktf, constructs`; `vitest (dev)`). */
function documentedPackages(page: string): string[] {
  return page.split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| package |") && !line.startsWith("|---"))
    .flatMap((line) => line.split("|")[1]!.replace(/\([^)]*\)/g, "").split(","))
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

describe("docs/manual/dependencies.md", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; allowScripts?: Record<string, boolean> };
  const page = readFileSync(join(ROOT, "docs/manual/dependencies.md"), "utf8");

  it("names every dependency of package.json, and only those", () => {
    const declared = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)].sort();
    expect([...new Set(documentedPackages(page))].sort()).toEqual(declared);
  });

  it("says why each install script package.json's allowScripts answers runs or not, as `NAME: true|false`", () => {
    const answered = Object.entries(manifest.allowScripts ?? {});
    expect(answered.length).toBeGreaterThan(0);
    for (const [name, allowed] of answered) expect(page, name).toContain(`- \`${name}: ${allowed}\`: `);
  });

  it("reads the table's first column, packages listed together and marks in parentheses included (the check can fail)", () => {
    const probe = "| package | why |\n|---|---|\n| zod | schemas |\n| cdktf, constructs | constructs |\n| cdktn (dev, optional peer) | the fork |\n";
    expect(documentedPackages(probe)).toEqual(["zod", "cdktf", "constructs", "cdktn"]);
  });
});
