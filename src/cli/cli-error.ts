const BRAND = Symbol.for("converge.error");

/** A usage or precondition error of the CLI (bad flag combination, missing endpoint, …): exit 1. */
export class CliError extends Error {
  readonly code = "CONVERGE_CLI" as const;
  readonly [BRAND] = true;
  constructor(message: string) {
    super(message);
    this.name = "CliError";
  }
}
