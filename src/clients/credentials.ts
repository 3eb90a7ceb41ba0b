import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { CredentialsError } from "./errors.js";

/**
 * A bearer token kept out of sight: it lives in a private field, and inspecting, printing or
 * serializing the object shows `[redacted]`. Only `authorizationHeader()` reveals it, to the transport.
 */
export class Credentials {
  readonly #token: string;
  readonly #header: string;
  /** Where the token came from ("CONVERGE_TOKEN", a file path, "inline"), for messages. */
  readonly source: string;

  constructor(token: string, source = "inline") {
    const trimmed = token.trim();
    if (trimmed.length === 0 || /\s/.test(trimmed)) throw new CredentialsError(`the token from ${source} is empty or contains whitespace`);
    this.#token = trimmed;
    this.#header = `Bearer ${trimmed}`;
    this.source = source;
  }

  /** The value of the Authorization header. */
  authorizationHeader(): string {
    return this.#header;
  }

  /**
   * `text` with every occurrence of the token replaced by `[redacted]`. For whatever comes back from
   * the network: a server that echoes the request (a proxy's error page, a debugging endpoint) must
   * not carry the token into an error message.
   */
  redact(text: string): string {
    return text.includes(this.#token) ? text.split(this.#token).join("[redacted]") : text;
  }

  toJSON(): string {
    return "[redacted]";
  }

  toString(): string {
    return `Credentials(${this.source}, [redacted])`;
  }

  [inspect.custom](): string {
    return this.toString();
  }

  /**
   * Credentials from a token file (first) or `CONVERGE_TOKEN`. A missing token is an error naming
   * both ways to give one, never the value of anything.
   */
  static resolve(options: { tokenFile?: string | undefined; env?: NodeJS.ProcessEnv } = {}): Credentials {
    const env = options.env ?? process.env;
    if (options.tokenFile !== undefined) {
      let text: string;
      try {
        text = readFileSync(options.tokenFile, "utf8");
      } catch (error) {
        throw new CredentialsError(`cannot read the token file ${options.tokenFile}: ${(error as NodeJS.ErrnoException).code ?? "read error"}`);
      }
      return new Credentials(text, options.tokenFile);
    }
    const token = env.CONVERGE_TOKEN;
    if (token !== undefined && token.trim() !== "") return new Credentials(token, "CONVERGE_TOKEN");
    throw new CredentialsError("no token: set CONVERGE_TOKEN or pass --token-file FILE");
  }
}
