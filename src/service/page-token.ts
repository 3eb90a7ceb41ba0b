import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Opaque, tamper-evident keyset pagination tokens. A token carries the position after the last item
 * returned and is bound by HMAC to its listing (operation, account or API, filter), so a token from
 * another listing, or an edited one, is rejected.
 */
export class PageTokens {
  readonly #keySource: () => Buffer;
  #key: Buffer | undefined;

  /** `keySource` is read on first use, so that a key restored from a state file wins. */
  constructor(keySource: () => Buffer) {
    this.#keySource = keySource;
  }

  issue(scope: string, position: string): string {
    const payload = Buffer.from(position, "utf8").toString("base64url");
    return `${payload}.${this.#sign(scope, payload)}`;
  }

  /** The position a token carries, or `undefined` when it is malformed, edited or from another listing. */
  read(scope: string, token: string): string | undefined {
    const dot = token.indexOf(".");
    if (dot <= 0 || dot !== token.lastIndexOf(".")) return undefined;
    const payload = token.slice(0, dot);
    // base64url decoding skips stray characters, so compare the text as issued, not the decoded bytes
    const given = Buffer.from(token.slice(dot + 1), "utf8");
    const expected = Buffer.from(this.#sign(scope, payload), "utf8");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const position = Buffer.from(payload, "base64url").toString("utf8");
    return Buffer.from(position, "utf8").toString("base64url") === payload ? position : undefined;
  }

  /** Reads the key again on next use: the state it was stored in was replaced (a reset, a restored checkpoint). */
  reload(): void {
    this.#key = undefined;
  }

  #sign(scope: string, payload: string): string {
    return createHmac("sha256", (this.#key ??= this.#keySource()))
      .update(scope)
      .update("\u0000")
      .update(payload)
      .digest()
      .subarray(0, 18)
      .toString("base64url");
  }
}
