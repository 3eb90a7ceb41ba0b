import { once } from "node:events";
import { createWriteStream, renameSync } from "node:fs";
import yazl from "yazl";

import { DEFAULT_SOURCE_DATE_EPOCH, dosTimeOfEpoch } from "./source-date-epoch.js";

/**
 * Writes a zip of one executable entry `name` (mode 0755, which terraform keeps when it unpacks),
 * with the content of `executable`, deflated, at `output` (written whole, then renamed into place).
 * The entry's time is `epoch` (seconds, UTC; default DEFAULT_SOURCE_DATE_EPOCH) in the MS-DOS
 * fields only: with the extended timestamp field left out, the same executable and epoch always
 * give the same zip, byte for byte.
 */
export async function writeReleaseZip(options: { readonly executable: string; readonly name: string; readonly output: string; readonly epoch?: number }): Promise<void> {
  const zip = new yazl.ZipFile();
  const mtime = dosTimeOfEpoch(options.epoch ?? DEFAULT_SOURCE_DATE_EPOCH);
  zip.addFile(options.executable, options.name, { mtime, mode: 0o100755, compress: true, forceDosTimestamp: true });
  zip.end();
  const partial = `${options.output}.${process.pid}.partial`;
  const out = createWriteStream(partial);
  zip.outputStream.pipe(out);
  await once(out, "close");
  renameSync(partial, options.output);
}
