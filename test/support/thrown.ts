/** The error `run` throws; fails (throws itself) when `run` returns instead. The synchronous twin of the clients' `rejectionOf`. */
export function thrownBy(run: () => unknown): unknown {
  let value: unknown;
  try {
    value = run();
  } catch (error) {
    return error;
  }
  throw new Error(`expected a throw, got ${JSON.stringify(value)}`);
}
