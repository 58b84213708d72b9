import { constants, fstatSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { quote, SkillError } from "../spec/errors.js";
import { abortError } from "../util/abort.js";
import { errnoOf } from "../util/errno.js";
import { isInside, resolveInside } from "./inside.js";
import {
  checkFileStats,
  checkMaxBytes,
  closeQuietly,
  readError,
  readFully,
  readFullySync,
} from "./read-file.js";

/** Default largest bundled file {@link readInside} reads, in bytes (10 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Options of {@link readInside}. */
export interface ReadInsideOptions {
  /** Largest file read, in bytes; a larger one is refused before any byte is read. Default 10 MiB. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

// Never follow a link at the last step (the real path was checked; this guards a swap in
// between) and never block on a FIFO.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

function aborted(path: string, signal: AbortSignal): SkillError {
  return abortError(signal, `Reading ${path} was aborted`, { path });
}

function escapes(root: string, path: string, full: string): SkillError {
  return new SkillError(
    "UNSAFE_PATH",
    `Unsafe path: expected a file inside ${root}, found ${quote(path)} leading outside it through a symbolic link`,
    { path: full },
  );
}

function failed(full: string, error: unknown): SkillError {
  if (SkillError.isInstance(error)) return error;
  if (errnoOf(error) === "ELOOP") {
    return new SkillError("READ_ERROR", `Failed to read skill file: ${full} (a loop of symbolic links)`, {
      path: full,
      cause: error,
    });
  }
  return readError(full, error);
}

// Where the open descriptor really points, where the system says (Linux /proc): closes the
// gap between the real-path check and the open, when a folder on the way is swapped for a link.
function openedPath(fd: number): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * The one safe reader of a file bundled in a skill folder: the bytes of `path` below `root`.
 *
 * In order, before any byte is read:
 * 1. `path` must pass {@link resolveInside} (`UNSAFE_PATH`: `..`, absolute, backslash, NUL…).
 * 2. Its real path (symbolic links resolved) must stay inside the real path of `root`:
 *    a link to `/etc/passwd`, to a sibling skill or anywhere else outside is `UNSAFE_PATH`.
 * 3. It is opened read-only, non-blocking and without following a final link; the open
 *    file must be a regular file (a folder, FIFO, socket or device is `READ_ERROR`) of at
 *    most `maxBytes` (`LIMIT_EXCEEDED`).
 *
 * A missing file, or a link with no target, is `NOT_FOUND`. Every error carries `path`: the
 * resolved root for a path refused by the lexical rule, else the absolute path asked for.
 * This reads any file inside `root`; whether a path is one a skill lists (dot-files, nested
 * skills) is the caller's rule, through {@link skillFiles}.
 *
 * @example
 * const bytes = await readInside("/skills/pdf", "scripts/fill.py", { maxBytes: 1 << 20 });
 */
export function readInside(root: string, path: string, options: ReadInsideOptions = {}): Promise<Uint8Array> {
  return readInsideAt(root, path, options);
}

/** The real paths of a skill folder and of a file in it, or why not (as {@link readInside} says). */
function realPaths(base: string, full: string): RealPaths {
  let realRoot: string;
  try {
    // Real paths are taken synchronously (as the open descriptor's): each costs a fraction of a
    // round trip through the thread pool, which a server reading many small files at once
    // would otherwise spend most of its time in. The bytes are read asynchronously.
    realRoot = realpathSync.native(base);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new SkillError("NOT_FOUND", `Skill folder not found: ${base}`, { path: base, cause: error });
    }
    throw new SkillError("READ_ERROR", `Failed to read skill folder: ${base} (${code ?? String(error)})`, {
      path: base,
      cause: error,
    });
  }
  try {
    return { realRoot, real: realpathSync.native(full) };
  } catch (error) {
    throw failed(full, error);
  }
}

/** The real path of a skill folder and of a file in it. */
export interface RealPaths {
  readonly realRoot: string;
  readonly real: string;
}

/**
 * {@link readInside}, given the real paths of the folder and the file when the caller has just
 * taken them (`SkillService.readFile` judges the path by them first): every check after them
 * is made as `readInside` makes it.
 */
export async function readInsideAt(
  root: string,
  path: string,
  options: ReadInsideOptions,
  known?: RealPaths,
): Promise<Uint8Array> {
  const { signal } = options;
  const opened = openInside(root, path, options, known);
  const { fd, full } = opened;
  try {
    // What fstat said is all that is read: a file growing meanwhile cannot push past maxBytes.
    const bytes = new Uint8Array(opened.size);
    const filled = await readFully(fd, bytes, signal);
    return filled === bytes.length ? bytes : bytes.subarray(0, filled);
  } catch (error) {
    if (signal?.aborted) throw aborted(full, signal);
    throw failed(full, error);
  } finally {
    closeQuietly(fd);
  }
}

/**
 * {@link readInside}, synchronously (every check the same): for a small file read while a
 * bulk load reads its SKILL.md files synchronously too (Codex's `agents/openai.yaml`).
 */
export function readInsideSync(
  root: string,
  path: string,
  options: { readonly maxBytes?: number } = {},
): Uint8Array {
  const { fd, full, size } = openInside(root, path, options);
  try {
    const bytes = new Uint8Array(size);
    const filled = readFullySync(fd, bytes);
    return filled === bytes.length ? bytes : bytes.subarray(0, filled);
  } catch (error) {
    throw failed(full, error);
  } finally {
    closeQuietly(fd);
  }
}

/**
 * The checks of {@link readInside} up to an open descriptor of a regular file of at most
 * `maxBytes`, and its size; the caller reads and closes it.
 */
function openInside(
  root: string,
  path: string,
  options: ReadInsideOptions,
  known?: RealPaths,
): { readonly fd: number; readonly full: string; readonly size: number } {
  const maxBytes = options.maxBytes === undefined ? DEFAULT_MAX_FILE_BYTES : checkMaxBytes(options.maxBytes);
  const { signal } = options;
  const full = resolveInside(root, path);
  if (signal?.aborted) throw aborted(full, signal);
  const base = resolve(root);
  const { realRoot, real } = known ?? realPaths(base, full);
  if (!isInside(realRoot, real)) throw escapes(base, path, full);

  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    // ELOOP here: the last step became a link after it was checked.
    if (errnoOf(error) === "ELOOP") throw escapes(base, path, full);
    throw failed(full, error);
  }
  try {
    const opened = openedPath(fd);
    if (opened !== undefined && !isInside(realRoot, opened)) throw escapes(base, path, full);
    const stats = fstatSync(fd);
    checkFileStats(full, stats, maxBytes);
    return { fd, full, size: stats.size };
  } catch (error) {
    closeQuietly(fd);
    throw failed(full, error);
  }
}
