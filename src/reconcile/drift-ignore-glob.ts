/**
 * The globs of ignore rules (docs/manual/drift.md, "Ignore rules"), matched against a drift report's
 * addresses (`Route/a1b2c3d4e5/GET /orders/{id}`, `Route/a1b2c3d4e5/$default`): `*` stands for any
 * run of characters, `/` included, `?` for one character; every other character stands for itself.
 * There is no escape, so a glob for an address that holds `*` or `?` also matches a few others.
 */

/** C0 controls and DEL: no address holds one, so a glob that does was not meant as one. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/u;

/**
 * Why `glob` cannot be an address glob (empty, blank at either end, or holding a control
 * character, none of which an address has), or undefined when it can.
 */
export function addressGlobProblem(glob: string): string | undefined {
  if (glob.trim() === "") return "is empty: expected an address or a glob of addresses (e.g. \"Route/a1b2c3d4e5/*\")";
  const control = CONTROL_CHARACTER.exec(glob);
  if (control) {
    return `holds the control character U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}, `
      + "which no address holds: expected printable characters, * and ?";
  }
  if (glob.trim() !== glob) return "starts or ends with white space, which no address does: expected the address without it";
  return undefined;
}

/**
 * Whether `address` matches `glob`, character by character (code points, so `?` is one emoji too).
 * Linear in practice and never worse than the product of the lengths: on a mismatch the last `*`
 * takes one more character, with no backtracking over earlier ones (which a regular expression
 * of many `*` could do without end).
 */
export function matchesAddressGlob(glob: string, address: string): boolean {
  const pattern = Array.from(glob);
  const text = Array.from(address);
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && (pattern[p] === "?" || (pattern[p] !== "*" && pattern[p] === text[t]))) {
      p += 1;
      t += 1;
    } else if (p < pattern.length && pattern[p] === "*") {
      star = p;
      resume = t;
      p += 1;
    } else if (star !== -1) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p += 1;
  return p === pattern.length;
}
