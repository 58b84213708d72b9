import type { FileKey } from "../spec/skill-source.js";

/**
 * The {@link FileKey} of a file: its path and the state `fs.stat` gave (device, inode, size in
 * bytes, modification time in milliseconds). Only those four fields are kept, so a whole
 * `fs.Stats` may be passed.
 *
 * @example
 * const key = fileKey(path, await stat(path));
 * const head = cache.get(key); // undefined once the file changed
 */
export function fileKey(
  path: string,
  stats: { readonly dev: number; readonly ino: number; readonly size: number; readonly mtimeMs: number },
): FileKey {
  return { path, dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}
