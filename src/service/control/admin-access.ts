import { randomBytes, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { accountDialect, type ServiceError } from "../service-error.js";
import { bearerToken } from "../identity.js";
import type { Worlds } from "../worlds.js";

/** Who may use the control interface: its admin token, where it came from, or why the interface is off. */
export interface AdminAccess {
  /** The admin token; `undefined` when the control interface is off. */
  readonly token: string | undefined;
  /** Whether the service made the token itself (on a loopback address, when none was given). */
  readonly generated: boolean;
}

/**
 * The control interface's access (docs/manual/testing.md): the given admin token; on a loopback
 * address without one, a token made here; on any other address without one, off.
 */
export function adminAccess(host: string, given: string | undefined): AdminAccess {
  if (given !== undefined) return { token: given, generated: false };
  if (isLoopback(host)) return { token: `cvg-admin-${randomBytes(24).toString("base64url")}`, generated: true };
  return { token: undefined, generated: false };
}

/** Whether a listening address is only reachable from this machine: `localhost`, 127.0.0.0/8 or ::1. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || /^::ffff:127\./i.test(bare);
}

/**
 * Refuses a control request without the admin token: no identity of any world may use the control
 * interface, and the admin token is no identity of any world (its services answer it 403).
 */
export function checkAdmin(access: AdminAccess, authorization: string | undefined, worlds: Worlds): ServiceError | undefined {
  if (access.token === undefined) {
    return accountDialect.accessDenied("the control interface is off: the service listens on an address other machines can reach "
      + "and was given no admin token; start it with --admin-token FILE (or CONVERGE_ADMIN_TOKEN) to turn it on");
  }
  const parsed = bearerToken(authorization);
  if ("denied" in parsed) return accountDialect.accessDenied(`${parsed.denied}: the control interface takes the admin token`);
  if (sameText(parsed.token, access.token)) return undefined;
  if (worlds.holds(parsed.token)) {
    return accountDialect.accessDenied("this token belongs to an identity of a world: the control interface takes only the admin token "
      + "(--admin-token FILE, CONVERGE_ADMIN_TOKEN, or the one converge serve printed)");
  }
  return accountDialect.accessDenied("the token is not the admin token: the control interface takes only the admin token "
    + "(--admin-token FILE, CONVERGE_ADMIN_TOKEN, or the one converge serve printed)");
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
