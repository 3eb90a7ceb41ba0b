import leven from "leven";

/**
 * The candidate `input` is most likely a typo of, for a "did you mean" (a misspelt field, flag or
 * choice): the closest by Levenshtein distance, ignoring case, when that distance is small for the
 * input's length (1 for up to 5 characters, 2 up to 8, then 3), as cargo's and commander's
 * suggestions are. Undefined when none is that close, or `input` is one of the candidates.
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  const limit = wanted.length <= 5 ? 1 : wanted.length <= 8 ? 2 : 3;
  let best: { readonly candidate: string; readonly distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === input) return undefined;
    const distance = leven(wanted, candidate.toLowerCase(), { maxDistance: limit + 1 });
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
