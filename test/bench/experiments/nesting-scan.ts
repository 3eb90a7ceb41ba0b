import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScanner, SyntaxKind } from "jsonc-parser";
import { loadAll } from "js-yaml";
import { lexedNestingOffset } from "../../support/lexed-nesting.js";
import { MAX_NESTING_DEPTH, excessiveNestingOffset } from "../../../src/input-limits/nesting.js";
import { writeScaledEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";

/** The nesting count of a JSON text from jsonc-parser's scanner: the offset of the bracket that opens level `limit + 1`. */
function jsoncNestingOffset(text: string, limit = MAX_NESTING_DEPTH): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    if (kind === SyntaxKind.OpenBraceToken || kind === SyntaxKind.OpenBracketToken) {
      depth += 1;
      if (depth > limit) return scanner.getTokenOffset();
    } else if (kind === SyntaxKind.CloseBraceToken || kind === SyntaxKind.CloseBracketToken) depth -= 1;
  }
  return undefined;
}

type Scan = (text: string) => number | undefined;

/** Milliseconds one scan of `text` takes. */
function timed(scan: Scan, text: string): { ms: number; offset: number | undefined } {
  const started = performance.now();
  const offset = scan(text);
  return { ms: performance.now() - started, offset };
}

/**
 * Issue 33: the nesting guard alone, the hand-written scanner (src/input-limits/nesting.ts) against
 * the count read from the yaml library's lexer (test/support/lexed-nesting.ts) and, on JSON,
 * jsonc-parser's scanner: the 4,640-document estate's YAML, and the same documents as JSON, in the
 * same process, the scans of each round one after the other (medians of the rounds).
 */
export const nestingScan: BenchExperiment = {
  name: "nesting-scan",
  description: "the nesting guard alone: hand-written scanner against the yaml library's lexer (and jsonc-parser on JSON)",
  async run({ rounds }) {
    const directory = await mkdtemp(join(tmpdir(), "converge-nesting-"));
    let yaml = "";
    try {
      await writeScaledEstate(directory, 1);
      const files = (await readdir(directory, { recursive: true })).filter((file) => file.endsWith(".yaml")).sort();
      for (const file of files) yaml += `---\n${await readFile(join(directory, file), "utf8")}\n`;
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
    const json = JSON.stringify(loadAll(yaml), null, 2);
    const cases: Array<{ name: string; text: string; scans: Array<{ name: string; scan: Scan }> }> = [
      { name: "YAML", text: yaml, scans: [{ name: "hand-written scanner", scan: excessiveNestingOffset }, { name: "yaml library's lexer", scan: lexedNestingOffset }] },
      { name: "JSON", text: json, scans: [{ name: "hand-written scanner", scan: excessiveNestingOffset }, { name: "yaml library's lexer", scan: lexedNestingOffset }, { name: "jsonc-parser's scanner", scan: jsoncNestingOffset }] },
    ];
    const problems: string[] = [];
    const times = cases.map((one) => one.scans.map((): number[] => []));
    // one warm-up round, so that every scan runs optimized code
    for (let round = -1; round < rounds; round += 1) {
      for (const [c, one] of cases.entries()) {
        for (const [s, { name, scan }] of one.scans.entries()) {
          const { ms, offset } = timed(scan, one.text);
          if (offset !== undefined) problems.push(`${name} on the ${one.name} text: found an excess at offset ${offset}; expected none`);
          if (round >= 0) times[c]![s]!.push(ms);
        }
      }
    }
    const rows = cases.flatMap((one, c) => one.scans.map(({ name }, s) => {
      const ms = median(times[c]![s]!);
      const base = median(times[c]![0]!);
      return `| ${one.name}, ${(one.text.length / 1e6).toFixed(2)} MB | ${name} | ${ms.toFixed(1)} ms | ${(ms / base).toFixed(1)}× | ${times[c]![s]!.map((t) => t.toFixed(0)).join(" / ")} |`;
    }));
    const markdown = [
      "### nesting guard alone: hand-written scanner against the yaml library's lexer",
      "",
      "The 4,640-document estate's YAML (its files joined as one stream) and the same documents as indented JSON, each scanned whole at MAX_NESTING_DEPTH in one process; medians of the rounds, one warm-up round first.",
      "",
      "| text | scan | median | against the scanner | per round, ms |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ].join("\n");
    return { markdown, data: { times }, problems };
  },
};
