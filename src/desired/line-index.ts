/**
 * Lines and columns of offsets in a text (1-based, columns in UTF-16 code units, as the yaml
 * library's LineCounter counts them). The table of line starts is built on first use: a file whose
 * positions are never asked for never pays for it.
 */
export class LineIndex {
  readonly #text: string;
  #starts: number[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  /** 1-based line and column of `offset`. */
  position(offset: number): { readonly line: number; readonly column: number } {
    const starts = this.#lineStarts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - starts[low]! + 1 };
  }

  /** 0-based line of `offset` (how many newlines come before it). */
  lineOf(offset: number): number {
    return this.position(offset).line - 1;
  }

  #lineStarts(): number[] {
    if (this.#starts) return this.#starts;
    const starts = [0];
    const text = this.#text;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    this.#starts = starts;
    return starts;
  }
}
