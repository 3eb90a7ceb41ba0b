/** Length in Unicode code points, the way the service counts characters (an emoji is one). */
export function codePointLength(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}
