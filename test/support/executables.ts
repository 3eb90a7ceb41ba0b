import { accessSync, constants } from "node:fs";

/** The first of `candidates` that this process may execute, or `undefined` when none is. */
export function firstExecutable(candidates: ReadonlyArray<string>): string | undefined {
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
