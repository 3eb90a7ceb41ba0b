import { once } from "node:events";
import { createWriteStream, renameSync } from "node:fs";
import yazl from "yazl";

/**
 * The one time every release archive's entries carry, as the zip's MS-DOS date fields (local time,
 * so it is built from local fields: the same fields in every time zone). With the extended
 * timestamp field left out, the same executable always gives the same zip, byte for byte.
 */
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);

/**
 * Writes a zip of one executable entry `name` (mode 0755, which terraform keeps when it unpacks),
 * with the content of `executable`, deflated, at `output` (written whole, then renamed into place).
 */
export async function writeReleaseZip(options: { readonly executable: string; readonly name: string; readonly output: string }): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addFile(options.executable, options.name, { mtime: FIXED_MTIME, mode: 0o100755, compress: true, forceDosTimestamp: true });
  zip.end();
  const partial = `${options.output}.${process.pid}.partial`;
  const out = createWriteStream(partial);
  zip.outputStream.pipe(out);
  await once(out, "close");
  renameSync(partial, options.output);
}
