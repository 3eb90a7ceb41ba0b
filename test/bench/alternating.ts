/**
 * Runs `a` and `b` one after the other: `a` first in even rounds, `b` first in odd ones, so that
 * neither always runs on a machine the other has just warmed (or loaded). Returns both results.
 */
export async function inAlternatingOrder<A, B>(round: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (round % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const second = await b();
  return [await a(), second];
}
