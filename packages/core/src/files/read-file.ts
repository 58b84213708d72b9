import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, read, readSync, type Stats } from "node:fs";
import { promisify } from "node:util";
import { frontmatterEndInBytes } from "../parse/frontmatter.js";
import { DEFAULT_MAX_BYTES } from "../spec/constants.js";
import { SkillError } from "../spec/errors.js";
import { errnoOf } from "../util/errno.js";
import { errorMessage } from "../util/error-text.js";
import { formatBytes } from "../util/text.js";

/** Rule ids of a file that could not be read, by error code: one id for one failure everywhere. */
export const READ_CODES: Readonly<Record<string, string>> = {
  NOT_FOUND: "file-not-found",
  READ_ERROR: "file-unreadable",
  LIMIT_EXCEEDED: "file-too-large",
};

export function tooLargeError(location: string, size: number, maxBytes: number): SkillError {
  return new SkillError(
    "LIMIT_EXCEEDED",
    `Skill file too large: ${location} is ${formatBytes(size)}, the limit is ${formatBytes(maxBytes)} (maxBytes)`,
    { path: location },
  );
}

/**
 * The `maxBytes` option, checked: a non-number, NaN or negative value would silently
 * disable the limit.
 */
export function checkMaxBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_BYTES;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid maxBytes: expected a number of bytes >= 0, found ${typeof value === "number" ? String(value) : typeof value}`,
      { field: "maxBytes" },
    );
  }
  return value;
}

/** A SKILL.md read from disk: its text, whether it was valid UTF-8, and its file identity. */
export interface SkillFileText {
  readonly text: string;
  readonly invalidUtf8: boolean;
  /** `dev:ino` of the file: the same file reached through two paths has the same id. */
  readonly id: string;
  /** The file's state when read: what a head cache keys on. */
  readonly stat: FileStat;
}

/** The parts of a file's `stat` that say which file and which version of it was read. */
export interface FileStat {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

export function fileStatOf(stats: Stats): FileStat {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

export function readError(path: string, error: unknown): SkillError {
  const code = errnoOf(error);
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new SkillError("NOT_FOUND", `Skill file not found: ${path}`, { path, cause: error });
  }
  const reason = code === "EISDIR" ? "it is a directory" : errorMessage(error);
  return new SkillError("READ_ERROR", `Failed to read skill file: ${path} (${reason})`, {
    path,
    cause: error,
  });
}

/** What a path that is not a regular file is, for messages. */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * A regular file of at most `maxBytes`, else `READ_ERROR` saying what it is instead
 * ("expected <expected>, found a FIFO") or `LIMIT_EXCEEDED`.
 */
export function checkFileStats(
  path: string,
  stats: Stats,
  maxBytes: number,
  expected = "a regular file",
): void {
  if (!stats.isFile()) {
    throw new SkillError(
      "READ_ERROR",
      `Failed to read skill file: ${path} (expected ${expected}, found ${kindOf(stats)})`,
      { path },
    );
  }
  if (stats.size > maxBytes) throw tooLargeError(path, stats.size, maxBytes);
}

function decode(buffer: Buffer, filled: number, stats: Stats): SkillFileText {
  const bytes = filled === buffer.length ? buffer : buffer.subarray(0, filled);
  return {
    text: bytes.toString("utf8"),
    invalidUtf8: !isUtf8(bytes),
    id: `${stats.dev}:${stats.ino}`,
    stat: fileStatOf(stats),
  };
}

// Synchronous reads decode into a string straight away, so one scratch buffer serves them
// all: thousands of fresh buffers would each count as external memory and provoke full GCs.
const LF = 0x0a;

let scratch = Buffer.allocUnsafeSlow(64 * 1024);
function scratchBuffer(size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, scratch.length * 2));
  return scratch;
}

// Non-blocking open: a FIFO named SKILL.md must not hang the reader waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * Reads a SKILL.md, refusing it before reading when it is larger than `maxBytes`, and never
 * blocking on a FIFO.
 */
export async function readSkillFile(
  path: string,
  maxBytes = DEFAULT_MAX_BYTES,
): Promise<SkillFileText & { readonly bytes: Uint8Array }> {
  const { bytes, stats } = await readSkillBytes(path, maxBytes);
  return { ...decode(bytes, bytes.length, stats), bytes };
}

/**
 * Opens a skill file and checks what it is (a regular file of at most `maxBytes`); the caller
 * reads and closes `fd`. Every failure is a `SkillError` naming `path`.
 */
function openChecked(path: string, maxBytes: number): { fd: number; stats: Stats } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw readError(path, error);
  }
  try {
    const stats = fstatSync(fd);
    checkFileStats(path, stats, maxBytes, "a file");
    return { fd, stats };
  } catch (error) {
    closeQuietly(fd);
    throw SkillError.isInstance(error) ? error : readError(path, error);
  }
}

/** {@link readSkillFile}'s bytes and the file's stats, not decoded (for a caller that decodes them itself). */
export async function readSkillBytes(
  path: string,
  maxBytes = DEFAULT_MAX_BYTES,
): Promise<{ bytes: Buffer; stats: Stats }> {
  const { fd, stats } = openChecked(path, maxBytes);
  try {
    const buffer = Buffer.allocUnsafe(stats.size);
    const filled = await readFully(fd, buffer);
    return { bytes: buffer.subarray(0, filled), stats };
  } catch (error) {
    throw SkillError.isInstance(error) ? error : readError(path, error);
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Files up to this size are opened, measured and read with synchronous calls (a few
 * microseconds each from the page cache, against a round trip through the thread pool per
 * call); larger ones are read through the thread pool, so that no read holds the event loop.
 */
const SYNC_READ_BYTES = 256 * 1024;

const readAsync = promisify(read);

/**
 * Reads `fd` from its start into `buffer` as {@link readFullySync} does: synchronously up to
 * {@link SYNC_READ_BYTES}, else through the thread pool, checking `signal` between reads.
 */
export async function readFully(fd: number, buffer: Uint8Array, signal?: AbortSignal): Promise<number> {
  if (buffer.length <= SYNC_READ_BYTES) return readFullySync(fd, buffer);
  let filled = 0;
  while (filled < buffer.length) {
    signal?.throwIfAborted();
    const { bytesRead } = await readAsync(fd, buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** Closes a read-only descriptor; closing one cannot lose data, so a failure is ignored. */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {}
}

/**
 * Reads `fd` from its start into `buffer` until it is full or the file ends; returns the bytes
 * read (fewer than the buffer holds when the file shrank since it was measured).
 */
export function readFullySync(fd: number, buffer: Uint8Array): number {
  let filled = 0;
  while (filled < buffer.length) {
    const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/**
 * The synchronous twin of {@link readSkillFile}, for bulk loads: on local disks a sync read
 * of a small file costs a fraction of the promise round trips (the service yields to the
 * event loop between batches).
 *
 * With `headBytes`, reads only that much when it already holds the whole frontmatter (the
 * text is then cut after its last complete line and `complete` is false): listing skills
 * needs the frontmatter and the start of the body (its summary), not the whole body.
 */
export function readSkillFileSync(
  path: string,
  maxBytes = DEFAULT_MAX_BYTES,
  headBytes = Number.POSITIVE_INFINITY,
): SkillFileText & { readonly complete: boolean } {
  const { fd, stats } = openChecked(path, maxBytes);
  try {
    if (stats.size > headBytes) {
      const head = scratchBuffer(headBytes);
      const got = readSync(fd, head, 0, headBytes, 0);
      const end = frontmatterEndInBytes(head, got);
      // The frontmatter and the body's whole lines within the prefix (a line feed never sits
      // inside a UTF-8 sequence, so the cut splits no character).
      if (end > 0)
        return { ...decode(head, Math.max(end, head.lastIndexOf(LF, got - 1) + 1), stats), complete: false };
    }
    const buffer = scratchBuffer(stats.size).subarray(0, stats.size);
    const filled = readFullySync(fd, buffer);
    return { ...decode(buffer, filled, stats), complete: true };
  } catch (error) {
    throw SkillError.isInstance(error) ? error : readError(path, error);
  } finally {
    closeQuietly(fd);
  }
}

/**
 * What a source's `read()` returned, as text: bytes are decoded as UTF-8 (noting invalid
 * sequences), and either form is refused over `maxBytes`.
 */
export function decodeEntry(
  value: unknown,
  location: string,
  maxBytes: number,
): { text: string; invalidUtf8: boolean } {
  if (typeof value === "string") {
    if (value.length > maxBytes / 3) {
      const size = Buffer.byteLength(value, "utf8");
      if (size > maxBytes) throw tooLargeError(location, size, maxBytes);
    }
    return { text: value, invalidUtf8: false };
  }
  if (value instanceof Uint8Array) {
    if (value.byteLength > maxBytes) throw tooLargeError(location, value.byteLength, maxBytes);
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return { text: bytes.toString("utf8"), invalidUtf8: !isUtf8(bytes) };
  }
  throw new SkillError(
    "READ_ERROR",
    `Failed to read skill file: ${location} (its source returned ${value === null ? "null" : typeof value}, expected a string or bytes)`,
    { path: location },
  );
}
