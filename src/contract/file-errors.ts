/**
 * What a failed file-system call means, in words a person acts on: what is wrong with the path and
 * what to do, the system's code in parentheses (for searching). The caller names the path.
 */
export function describeFileError(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case "ENOENT":
      return `no such file or directory (ENOENT); check the path, relative to the working directory ${process.cwd()}`;
    case "EISDIR":
      return "is a directory, where a file was expected (EISDIR)";
    case "EEXIST":
      return "a file of that name is in the way, where a directory was needed (EEXIST)";
    case "ENOTDIR":
      return "a part of the path is a file, where a directory was expected (ENOTDIR)";
    case "EACCES":
    case "EPERM":
      return `permission denied (${code}); check the owner and mode of the path and of its directories (ls -ld)`;
    case "EROFS":
      return "the file system is read-only (EROFS); choose a path on a writable one";
    case "ENOSPC":
      return "no space left on the device (ENOSPC)";
    case "ELOOP":
      return "too many symbolic links, or a link that points to itself (ELOOP)";
    default:
      return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  }
}
