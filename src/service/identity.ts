import type { ErrorDialect, ServiceName } from "./service-error.js";

/** Who is calling: the account the token belongs to and what it may do. Never holds the token. */
export interface Identity {
  readonly accountId: string;
  /** Stable key for per-identity bookkeeping (throttling). */
  readonly key: string;
  /** Whether the identity may perform `service:Operation`. */
  may(action: string): boolean;
}

export interface IdentityConfig {
  readonly token: string;
  readonly accountId: string;
  readonly allow: ReadonlyArray<string>;
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

  /** The identity behind an `Authorization` header, or AccessDenied in the caller's service dialect. */
  authenticate(authorization: string | undefined, dialect: ErrorDialect): Identity {
    if (!authorization) throw dialect.accessDenied("missing credentials: send an Authorization: Bearer <token> header");
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw dialect.accessDenied('malformed Authorization header: expected "Bearer <token>"');
    const identity = this.#byToken.get(match[1]!);
    if (!identity) throw dialect.accessDenied("the security token included in the request is invalid");
    return identity;
  }

  authorize(identity: Identity, service: ServiceName, operation: string, dialect: ErrorDialect): void {
    const action = `${service}:${operation}`;
    if (!identity.may(action)) {
      throw dialect.accessDenied(`account ${identity.accountId} is not authorized to perform ${action}`);
    }
  }

  accountIds(): string[] {
    return [...new Set([...this.#byToken.values()].map((identity) => identity.accountId))];
  }
}

function compileAllowEntry(entry: string): (action: string) => boolean {
  if (entry === "*") return () => true;
  if (entry.endsWith("*")) {
    const prefix = entry.slice(0, -1);
    return (action) => action.startsWith(prefix);
  }
  return (action) => action === entry;
}
