import { createHash } from "node:crypto";

/** One file of a provider package: its path inside the package and its content. */
export interface PackageFile {
  readonly name: string;
  readonly data: Buffer;
}

/**
 * The `h1:` hash terraform records in `.terraform.lock.hcl` and mirrors list: Go's
 * golang.org/x/mod/sumdb/dirhash Hash1 of the package's files (the zip's entries, or an unpacked
 * directory's files): for each file sorted by name a line `SHA256HEX  NAME\n`, and the base64 of
 * the SHA-256 of those lines.
 */
export function packageHashV1(files: ReadonlyArray<PackageFile>): string {
  const names = files.map((file) => file.name);
  for (const name of names) {
    if (name.includes("\n")) throw new Error(`package file name ${JSON.stringify(name)} contains a newline: dirhash cannot hash it`);
  }
  const summary = [...files]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((file) => `${sha256Hex(file.data)}  ${file.name}\n`)
    .join("");
  return `h1:${createHash("sha256").update(summary).digest("base64")}`;
}

/** The `zh:` hash of a provider's zip archive: the hex SHA-256 of the archive's bytes, as SHA256SUMS lists it. */
export function zipHash(archive: Buffer): string {
  return `zh:${sha256Hex(archive)}`;
}

/** The hex SHA-256 of `data`. */
export function sha256Hex(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}
