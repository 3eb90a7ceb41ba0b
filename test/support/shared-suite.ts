import { afterAll, beforeAll } from "vitest";

/** A suite's members while its setup fills them in: each may still be missing. */
export type Filling<T> = { -readonly [K in keyof T]?: T[K] };

/**
 * Registers a setup shared by the suites of many files: `setup` in a `beforeAll` fills `values` in
 * one by one, `teardown` in an `afterAll` releases what was filled in (even after a failed setup);
 * both registered where the call stands, before that file's own hooks. Returns membersOnceSet's view.
 */
export function sharedSuite<T extends object>(
  suite: string,
  names: ReadonlyArray<keyof T & string>,
  hooks: { readonly setup: (values: Filling<T>) => Promise<void>; readonly teardown: (values: Filling<T>) => Promise<void>; readonly timeoutMs: number },
): T {
  const values: Filling<T> = {};
  beforeAll(() => hooks.setup(values), hooks.timeoutMs);
  afterAll(() => hooks.teardown(values));
  return membersOnceSet(suite, values, names);
}

/**
 * A view of `values` (filled in by a suite's `beforeAll`) whose members `names` read through to
 * them; reading one that is not set yet throws an error that names the suite and what to do: what a
 * shared setup hands the hooks and tests of the file that registered it.
 */
export function membersOnceSet<T extends object>(suite: string, values: Filling<T>, names: ReadonlyArray<keyof T & string>): T {
  const view = {} as T;
  for (const name of names) {
    Object.defineProperty(view, name, {
      enumerable: true,
      get: () => {
        const value = values[name];
        if (value === undefined) throw new Error(`${suite} has no ${name} yet: read it in a hook or a test, after the suite's beforeAll has run`);
        return value as T[typeof name];
      },
    });
  }
  return view;
}
