/** Small statistics for benchmark rounds. Inputs are not modified. */

/** The middle value (mean of the two middle values for an even count). Throws on an empty list. */
export function median(values: ReadonlyArray<number>): number {
  return percentile(values, 50);
}

/**
 * The p-th percentile (0..100) by linear interpolation between closest ranks, the method of
 * numpy's default and of most spreadsheets. Throws on an empty list or a p outside 0..100.
 */
export function percentile(values: ReadonlyArray<number>, p: number): number {
  if (values.length === 0) throw new RangeError("percentile of an empty list: expected at least one value");
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile ${p} is not valid: expected a number from 0 to 100`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}
