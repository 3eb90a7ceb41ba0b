import { isApiError } from "../clients/errors.js";

/** The flags that say where the token comes from (ConnectionFlags' own). */
export interface TokenSourceFlags {
  readonly tokenFile?: string | undefined;
  readonly tokenEnv?: string | undefined;
}

/** Where the command took its token from, as a person set it: `CONVERGE_TOKEN`, `the token file t.txt (--token-file)`. */
export function tokenSource(flags: TokenSourceFlags): string {
  if (flags.tokenFile !== undefined) return `the token file ${flags.tokenFile} (--token-file)`;
  if (flags.tokenEnv !== undefined) return `${flags.tokenEnv} (--token-env)`;
  return "CONVERGE_TOKEN";
}

/**
 * What to do when the service refused the token (403 AccessDeniedException: a token it does not
 * know, or one whose identity may not call the operation): where the token came from, the action
 * it needs, and the ways to give another. Undefined for any other error. Never the token itself.
 */
export function refusedTokenHint(error: unknown, flags: TokenSourceFlags): string | undefined {
  if (!isApiError(error) || error.status !== 403) return undefined;
  return `the token from ${tokenSource(flags)} was refused: check that it is a token of this endpoint, and that its identity `
    + `is allowed ${error.service}:${error.operation}; give another with CONVERGE_TOKEN, --token-file FILE or --token-env NAME`;
}
