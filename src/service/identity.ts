import type { ErrorDialect, ServiceName } from "./service-error.js";

/** Who is calling: the account the token belongs to and what it may do. Never holds the token. */
export interface Identity {
  readonly accountId: string;
  /** Stable key for per-identity bookkeeping (throttling). */
  readonly key: string;
  /** The identity's name in the journal and in fault rules: its `name` in the world file, else `identities[N]`. */
  readonly label: string;
  /** Whether the identity may perform `service:Operation`. */
  may(action: string): boolean;
}

export interface IdentityConfig {
  readonly token: string;
  readonly accountId: string;
  readonly allow: ReadonlyArray<string>;
  readonly name?: string | undefined;
}

/** Maps bearer tokens to identities; allow-list entries may end in `*`. */
export class IdentityRegistry {
  readonly #byToken = new Map<string, Identity>();

  constructor(identities: ReadonlyArray<IdentityConfig>) {
    identities.forEach((config, index) => {
      const matchers = config.allow.map(compileAllowEntry);
      const decisions = new Map<string, boolean>();
      this.#byToken.set(config.token, {
        accountId: config.accountId,
        key: `identity-${index}`,
        label: config.name ?? `identities[${index}]`,
        may(action) {
          let allowed = decisions.get(action);
          if (allowed === undefined) {
            allowed = matchers.some((matches) => matches(action));
            decisions.set(action, allowed);
          }
          return allowed;
        },
      });
    });
  }

  /** Every token with its identity. */
  entries(): IterableIterator<[string, Identity]> {
    return this.#byToken.entries();
  }

  authorize(identity: Identity, service: ServiceName, operation: string, dialect: ErrorDialect): void {
    const action = `${service}:${operation}`;
    if (!identity.may(action)) {
      throw dialect.accessDenied(`account ${identity.accountId} is not authorized to perform ${action}`);
    }
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization` header, or why it has none: the message AccessDenied answers. */
export function bearerToken(authorization: string | undefined): { readonly token: string } | { readonly denied: string } {
  if (!authorization) return { denied: "missing credentials: send an Authorization: Bearer <token> header" };
  const match = BEARER.exec(authorization);
  if (!match) return { denied: 'malformed Authorization header: expected "Bearer <token>"' };
  return { token: match[1]! };
}

/** The message AccessDenied answers for a token no world knows. */
export const UNKNOWN_TOKEN = "the security token included in the request is invalid";

function compileAllowEntry(entry: string): (action: string) => boolean {
  if (entry === "*") return () => true;
  if (entry.endsWith("*")) {
    const prefix = entry.slice(0, -1);
    return (action) => action.startsWith(prefix);
  }
  return (action) => action === entry;
}
