import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { slug } from "github-slugger";
import { anchorsOf, brokenLinks } from "../support/markdown-links.js";

/**
 * Every relative link of the front page (README.md) and of docs/ resolves: its file or folder
 * exists in the repository, and its #anchor is a heading (by GitHub's rules) or an `<a id>` of the
 * file it points at.
 */
const ROOT = resolve(import.meta.dirname, "../..");

/** The source, test and example files whose comments cite the documentation (the probes of test/docs/ aside). */
function citingFiles(): string[] {
  return ["src", "constructs", "test", "examples"].flatMap((directory) =>
    readdirSync(join(ROOT, directory), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && !entry.parentPath.includes("node_modules") && /\.(ts|mjs|js|tf|ya?ml)$/.test(entry.name))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
      .filter((file) => !file.startsWith("test/docs/")));
}

/** Citations of docs/ files that do not exist, and of README sections (`README, "Section"`) the README no longer has. */
function deadCitations(file: string, text: string, readmeAnchors: ReadonlySet<string>): string[] {
  const flat = text.replace(/\n[ \t]*(?:\*|\/\/|#)?[ \t]*/g, " ");
  const files = [...flat.matchAll(/\bdocs\/[\w./-]+\.md\b/g)].map((match) => match[0]).filter((path) => !existsSync(join(ROOT, path)));
  const sections = [...flat.matchAll(/\bREADME,? \\?"([^"\\]+)\\?"/g)].map((match) => match[1]!).filter((title) => !readmeAnchors.has(slug(title)));
  return [...files.map((path) => `${file}: ${path} does not exist`), ...sections.map((title) => `${file}: README has no section "${title}"`)];
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
  return ["README.md", ...docs.sort()];
}

describe("links of README.md and docs/", () => {
  it("all resolve, anchors included", () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((file) => brokenLinks(ROOT, file, readFileSync(join(ROOT, file), "utf8")))).toEqual([]);
  });

  it("are checked at all: the front page links to the manual and the manual to the reference by anchor", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("](docs/manual/reference.md)");
    const manual = readFileSync(join(ROOT, "docs/manual/README.md"), "utf8");
    expect(manual).toContain("](reference.md#clients-and-cli)");
  });

  it("finds a missing file, a missing anchor, a link out of the repository and an anchor into a folder (the check can fail)", () => {
    const probe = [
      "# Probe",
      "[gone](no-such-page.md) [bad anchor](reference.md#no-such-heading) [own](#probe) [own, wrong](#nope)",
      "[out](../../../etc/passwd) [folder](../resources/#x) [fine](reference.md#clients-and-cli) [web](https://example.com/x.md)",
      "`[in code](no-such-file.md)`",
      "```md",
      "[in a block](no-such-file.md)",
      "```",
    ].join("\n");
    expect(brokenLinks(ROOT, "docs/manual/probe.md", probe)).toEqual([
      "docs/manual/probe.md: no-such-page.md: docs/manual/no-such-page.md does not exist",
      'docs/manual/probe.md: reference.md#no-such-heading: no heading or anchor "no-such-heading" in docs/manual/reference.md',
      'docs/manual/probe.md: #nope: no heading or anchor "nope" in docs/manual/probe.md',
      "docs/manual/probe.md: ../../../etc/passwd: ../etc/passwd is outside the repository",
      "docs/manual/probe.md: ../resources/#x: an anchor into a folder",
    ]);
  });

  it("names anchors as GitHub does: punctuation and code marks dropped, repeats numbered, <a id> kept", () => {
    const text = [
      "# Terraform provider (where terraform and the spec leave room; `src/provider/`)",
      "## cdktf constructs (issue \"cdktf deploy at the engine's speed\")",
      "## One run of 2026-11-24: cdktf vehicles",
      "## Exit codes",
      "## Exit codes",
      '<a id="nestedatt--regions"></a>',
    ].join("\n\n");
    expect([...anchorsOf(text)]).toEqual([
      "terraform-provider-where-terraform-and-the-spec-leave-room-srcprovider",
      "cdktf-constructs-issue-cdktf-deploy-at-the-engines-speed",
      "one-run-of-2026-11-24-cdktf-vehicles",
      "exit-codes",
      "exit-codes-1",
      "nestedatt--regions",
    ]);
  });
});

describe("citations of the documentation in sources, tests and examples", () => {
  const readmeAnchors = anchorsOf(readFileSync(join(ROOT, "README.md"), "utf8"));

  it("name docs/ files that exist and README sections the README has", () => {
    const files = citingFiles();
    expect(files.length).toBeGreaterThan(200);
    expect(files.flatMap((file) => deadCitations(file, readFileSync(join(ROOT, file), "utf8"), readmeAnchors))).toEqual([]);
  });

  it("finds a citation of a moved README section and of a missing page (the check can fail)", () => {
    const probe = ' * the lock (README, "Plan\n * and apply"); the start (README, "Quickstart"); docs/manual/gone.md, docs/manual/drift.md\n';
    expect(deadCitations("src/probe.ts", probe, readmeAnchors)).toEqual([
      "src/probe.ts: docs/manual/gone.md does not exist",
      'src/probe.ts: README has no section "Plan and apply"',
    ]);
  });
});
