import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { CredentialsError } from "./errors.js";
import { describeFileError } from "../contract/file-errors.js";

/**
 * A bearer token kept out of sight: it lives in a private field, and inspecting, printing or
 * serializing the object shows `[redacted]`. Only `authorizationHeader()` reveals it, to the transport.
 */
export class Credentials {
  readonly #header: string;
  /** Matches the token as written raw or in any of the encodings a server may echo it in. */
  readonly #echo: RegExp;
  /** Where the token came from ("CONVERGE_TOKEN", a file path, "inline"), for messages. */
  readonly source: string;

  constructor(token: string, source = "inline") {
    const trimmed = token.trim();
    if (trimmed.length === 0 || /\s/.test(trimmed)) throw new CredentialsError(`the token from ${source} is empty or contains whitespace`);
    this.#header = `Bearer ${trimmed}`;
    this.#echo = echoPattern(trimmed);
    this.source = source;
  }

  /** The value of the Authorization header. */
  authorizationHeader(): string {
    return this.#header;
  }

  /**
   * `text` with every occurrence of the token replaced by `[redacted]`. For whatever comes back from
   * the network: a server that echoes the request (a proxy's error page, a debugging endpoint) must
   * not carry the token into an error message. The token is found raw and as a server may have
   * encoded it, each character in any mix of forms: JSON escapes (`\/`, `\u002f`, also escaped
   * again), percent-encoding of its UTF-8 bytes, and HTML character references (`&#47;`, `&#x2F;`).
   * Callers redact the raw text and again every string decoded from it.
   */
  redact(text: string): string {
    this.#echo.lastIndex = 0;
    return this.#echo.test(text) ? text.replace(this.#echo, "[redacted]") : text;
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
        throw new CredentialsError(`cannot read the token file ${options.tokenFile}: ${describeFileError(error)}`);
      }
      return new Credentials(text, options.tokenFile);
    }
    const token = env.CONVERGE_TOKEN;
    if (token !== undefined && token.trim() !== "") return new Credentials(token, "CONVERGE_TOKEN");
    throw new CredentialsError("no token: set CONVERGE_TOKEN or pass --token-file FILE");
  }
}

/**
 * A pattern matching `token` with each of its characters written raw or encoded: JSON backslash
 * escapes (`\/`, `\\/`), JSON `\uXXXX` escapes (UTF-16 code units, any case, also escaped again),
 * percent-encoded UTF-8 bytes (`%2F`, `%2f`, also with `%` JSON-escaped) and HTML numeric character
 * references.
 */
function echoPattern(token: string): RegExp {
  const hex = (value: number, digits: number) => value.toString(16).padStart(digits, "0");
  const forms = [...token].map((character) => {
    const codePoint = character.codePointAt(0)!;
    const units = [...Array(character.length).keys()].map((index) => character.charCodeAt(index));
    const utf8 = [...Buffer.from(character, "utf8")];
    const alternatives = [
      `\\\\*${escapeRegExp(character)}`,
      units.map((unit) => `\\\\+u${hex(unit, 4)}`).join(""),
      utf8.map((byte) => `(?:%|\\\\+u0025)${hex(byte, 2)}`).join(""),
      `&#0*${codePoint};`,
      `&#x0*${hex(codePoint, 1)};`,
    ];
    return `(?:${alternatives.join("|")})`;
  });
  return new RegExp(forms.join(""), "gi");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
