/** A file of terraform configuration, by its path as the documentation names it. */
export interface ExampleFile {
  readonly path: string;
  readonly text: string;
}

/** A top-level block of an example (`resource "TYPE" "NAME" { … }`), with the comment lines just above it. */
export interface ExampleBlock {
  /** `resource`, `data`, `provider`, `terraform`, … */
  readonly keyword: string;
  /** The block's labels: the type and the name of a resource, the name of a provider. */
  readonly labels: ReadonlyArray<string>;
  readonly text: string;
}

const BLOCK_START = /^([a-z_]+)((?:\s+"[^"]*")*)\s*\{\s*(\})?\s*$/;

/**
 * The top-level blocks of formatted terraform configuration (`terraform fmt`'s layout: a block
 * opens at column 0 and its closing brace is the next line that is `}` alone, or it closes on its
 * own line), each with the `#` comment lines directly above it. A block that does not close is an
 * error naming the file and the line where it opens.
 */
export function exampleBlocks(file: ExampleFile): ExampleBlock[] {
  const lines = file.text.split("\n");
  const blocks: ExampleBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const match = BLOCK_START.exec(lines[index]!);
    if (!match) continue;
    let first = index;
    while (first > 0 && /^#/.test(lines[first - 1]!) && !/^# ---/.test(lines[first - 1]!)) first--;
    let last = index;
    if (!match[3]) {
      last = lines.indexOf("}", index + 1);
      if (last < 0) throw new Error(`${file.path}:${index + 1}: block ${JSON.stringify(lines[index])} is not closed: expected a line "}" at column 0 (terraform fmt's layout)`);
    }
    const labels = [...(match[2] ?? "").matchAll(/"([^"]*)"/g)].map((label) => label[1]!);
    blocks.push({ keyword: match[1]!, labels, text: lines.slice(first, last + 1).join("\n") });
    index = last;
  }
  return blocks;
}
