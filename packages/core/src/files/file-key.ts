import type { FileKey } from "../spec/skill-source.js";

/**
 * The {@link FileKey} of a file: its path and the state `fs.stat` gave (device, inode, size in
 * bytes, modification and status change times in milliseconds). Only those fields are kept,
 * so a whole `fs.Stats` may be passed.
 *
 * @example
 * const key = fileKey(path, await stat(path));
 * const head = cache.get(key); // undefined once the file changed
 */
export function fileKey(
  path: string,
  stats: {
    readonly dev: number;
    readonly ino: number;
    readonly size: number;
    readonly mtimeMs: number;
    readonly ctimeMs?: number;
  },
): FileKey {
  const { dev, ino, size, mtimeMs, ctimeMs } = stats;
  return ctimeMs === undefined
    ? { path, dev, ino, size, mtimeMs }
    : { path, dev, ino, size, mtimeMs, ctimeMs };
}

/**
 * A file whose mtime is this close to (or after) the moment something was taken from it (a head
 * stored, a digest hashed) is not trusted later: git's "racily clean" rule. A file modified within
 * the timestamp granularity of that moment may have changed again since without its mtime showing it.
 */
export const RACY_MS = 2_000;

/**
 * Whether two {@link FileKey}s name the same file in the same state: path, device, inode, size,
 * mtime and change time (`ctimeMs`, absent on both or equal) all equal. What a cache keyed by
 * file state compares before it trusts what it holds.
 *
 * @example
 * if (!sameFileKey(held.key, fileKey(path, statSync(path)))) walkAgain();
 */
export function sameFileKey(a: FileKey, b: FileKey): boolean {
  return (
    a.path === b.path &&
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs
  );
}
