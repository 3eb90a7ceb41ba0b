import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, brokenLinks } from "../support/markdown-links.js";

/**
 * Every relative link of the front page (README.md) and of docs/ resolves: its file or folder
 * exists in the repository, and its #anchor is a heading (by GitHub's rules) or an `<a id>` of the
 * file it points at.
 */
const ROOT = resolve(import.meta.dirname, "../..");

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
