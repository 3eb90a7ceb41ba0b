import { open, rename, rm, writeFile, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * The writes the journal makes to its file. The journal goes through this seam only, so that a
 * full or failing disk can be simulated (the world file's `faults.stateFile`).
 */
export interface StateFileSystem {
  /** Opens the file for appending at its end. */
  openAppend(path: string): Promise<AppendFile>;
  /**
   * Replaces the file with `text`, atomically and durably (temporary file, sync, rename, directory
   * sync). Throws only while the file still holds its old content.
   */
  replace(path: string, text: string): Promise<void>;
}

export interface AppendFile {
  /** Appends every byte; a failure may leave some of them written. */
  append(bytes: Buffer): Promise<void>;
  /** fdatasync. */
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

class NodeAppendFile implements AppendFile {
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  async append(bytes: Buffer): Promise<void> {
    // a full disk may take part of a write and refuse the rest on the next call
    for (let offset = 0; offset < bytes.length;) {
      const { bytesWritten } = await this.#handle.write(bytes, offset, bytes.length - offset);
      if (bytesWritten === 0) throw Object.assign(new Error("write took no bytes"), { code: "EIO" });
      offset += bytesWritten;
    }
  }

  sync(): Promise<void> {
    return this.#handle.datasync();
  }

  truncate(length: number): Promise<void> {
    return this.#handle.truncate(length);
  }

  close(): Promise<void> {
    return this.#handle.close();
  }
}

export const NODE_STATE_FILE_SYSTEM: StateFileSystem = {
  async openAppend(path) {
    return new NodeAppendFile(await open(path, "a"));
  },
  async replace(path, text) {
    const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    try {
      await writeFile(temporary, text, { flush: true });
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
    // the new content is in place: a failing directory sync must not report the replacement as not done
    try {
      const directory = await open(dirname(path), "r");
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    } catch {
      // the rename stands; only a power loss before the next sync could bring the old file back
    }
  },
};

/** World file `faults.stateFile`: a window of failing writes, as a full or failing disk gives. */
export interface StateFileFaults {
  /** Writes (appends and snapshot rewrites) that succeed before the failures begin. */
  readonly failAfterWrites: number;
  /** How many writes fail in a row; later ones succeed again ("space came back"). */
  readonly failingWrites: number;
  /**
   * `write`: half of the bytes are written, then ENOSPC (a snapshot rewrite fails before its rename);
   * `sync`: every byte is written and synced, then fdatasync reports EIO.
   */
  readonly failure: "write" | "sync";
}

/** Wraps a file system so that writes number `failAfterWrites + 1` … `failAfterWrites + failingWrites` fail. */
export function faultyStateFileSystem(inner: StateFileSystem, faults: StateFileFaults): StateFileSystem {
  let writes = 0;
  const failsNext = () => {
    writes += 1;
    return writes > faults.failAfterWrites && writes <= faults.failAfterWrites + faults.failingWrites;
  };
  const fault = (code: "ENOSPC" | "EIO") => Object.assign(
    new Error(`${code}: ${code === "ENOSPC" ? "no space left on device" : "i/o error"} (injected: world faults.stateFile, write ${writes})`),
    { code },
  );
  return {
    async openAppend(path) {
      const file = await inner.openAppend(path);
      let failSync = false;
      return {
        async append(bytes) {
          if (!failsNext()) return file.append(bytes);
          if (faults.failure === "sync") {
            failSync = true;
            return file.append(bytes);
          }
          await file.append(bytes.subarray(0, Math.floor(bytes.length / 2)));
          throw fault("ENOSPC");
        },
        async sync() {
          await file.sync();
          if (failSync) {
            failSync = false;
            throw fault("EIO");
          }
        },
        truncate: (length) => file.truncate(length),
        close: () => file.close(),
      };
    },
    async replace(path, text) {
      if (failsNext()) throw fault(faults.failure === "sync" ? "EIO" : "ENOSPC");
      return inner.replace(path, text);
    },
  };
}
