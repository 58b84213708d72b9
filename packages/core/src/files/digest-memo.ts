import { isUtf8 } from "node:buffer";
import { type Stats, statSync } from "node:fs";
import { SkillError } from "../spec/errors.js";
import type { FileKey } from "../spec/skill-source.js";
import { abortError } from "../util/abort.js";
import { errnoOf } from "../util/errno.js";
import { errorMessage } from "../util/error-text.js";
import { sha256Digest } from "./digest.js";
import { fileKey, RACY_MS, sameFileKey } from "./file-key.js";
import { resolveInside } from "./inside.js";
import { checkFileStats, tooLargeError } from "./read-file.js";
import { DEFAULT_MAX_FILE_BYTES, readInside } from "./read-inside.js";

/** What a {@link DigestMemo} knows of one file's bytes: valid while the file keeps its `key`. */
export interface FileDigest {
  /** The file's state when its bytes were read (taken before the read). */
  readonly key: FileKey;
  /** {@link sha256Digest} of the bytes: `sha256:` and 64 lower-case hex digits. */
  readonly digest: string;
  /** Bytes read. */
  readonly size: number;
  /** Whether the bytes are valid UTF-8 (a text file, for a server choosing text or base64). */
  readonly utf8: boolean;
}

/** Options of {@link DigestMemo.digest} and {@link DigestMemo.read}. */
export interface FileDigestOptions {
  /**
   * How the bytes are read when they must be (default: {@link readInside} of `root` and `path`).
   * A caller with rules of its own (a service's `readFile`, which checks permissions and
   * verifies SKILL.md against the registry) passes them here; the memo still keys the result
   * by the file's state, taken before this is called.
   */
  readonly read?: () => Promise<Uint8Array>;
  /** Largest file read, in bytes (default 10 MiB): a larger one is `LIMIT_EXCEEDED` before any read. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/** What a {@link DigestMemo} did since it was made. */
export interface DigestMemoStats {
  /** Digests held now. */
  readonly entries: number;
  /** Files read and hashed (by `digest` when nothing held could answer, and by every `read`). */
  readonly hashed: number;
  /** `digest` calls answered from the memo, without a read. */
  readonly hits: number;
  /** `digest` calls that joined a read of the same file in the same state already under way. */
  readonly joined: number;
}

/**
 * Digests of files, remembered by the file's {@link FileKey}: what a server that lists digests
 * (an MCP server's `skills/list`) keeps between requests, so that a file is hashed once while it
 * does not change, however many clients ask. Make one with {@link digestMemo}; share it.
 */
export interface DigestMemo {
  /**
   * The digest of the file `path` below `root` ({@link resolveInside}): from the memo when the
   * file's state (one `stat`, following links) is the one it was hashed in and was not racily
   * clean then; otherwise read with `options.read` and hashed. Callers asking for a file in the
   * same state while it is being read share that read: one hash, however many ask at once.
   *
   * @throws SkillError `NOT_FOUND` (the file is gone), `READ_ERROR` (not a regular file, or
   *   unreadable), `LIMIT_EXCEEDED` (over `maxBytes`), `UNSAFE_PATH` (a bad `path`), `ABORTED`,
   *   or what `options.read` throws.
   */
  digest(root: string, path: string, options?: FileDigestOptions): Promise<FileDigest>;
  /**
   * Reads the file now (never from the memo), for a caller that serves its bytes, and remembers
   * their digest: a listing made after it shows the digest of the bytes served.
   *
   * @throws SkillError as {@link DigestMemo.digest}.
   */
  read(
    root: string,
    path: string,
    options?: FileDigestOptions,
  ): Promise<{ readonly bytes: Uint8Array; readonly digest: FileDigest }>;
  /** What the memo did so far: digests held, files hashed, answers without a read, reads shared. */
  stats(): DigestMemoStats;
}

/** Options of {@link digestMemo}. */
export interface DigestMemoOptions {
  /** Most digests held (default 100,000); past it the oldest stored go first. */
  readonly maxEntries?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

const DEFAULT_MAX_ENTRIES = 100_000;

/** A remembered digest and when it was taken. */
interface Held {
  readonly digest: FileDigest;
  /** When the bytes were hashed (ms since the epoch): what the racily-clean rule compares with. */
  readonly hashedAt: number;
}

function statError(full: string, error: unknown): SkillError {
  const code = errnoOf(error);
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new SkillError("NOT_FOUND", `Skill file not found: ${full}`, { path: full, cause: error });
  }
  return new SkillError("READ_ERROR", `Failed to read skill file: ${full} (${code ?? errorMessage(error)})`, {
    path: full,
    cause: error,
  });
}

/** The state of the file at `full` now, checked: a regular file of at most `maxBytes`. */
function stateOf(full: string, maxBytes: number): FileKey {
  let stats: Stats;
  try {
    stats = statSync(full);
  } catch (error) {
    throw statError(full, error);
  }
  checkFileStats(full, stats, maxBytes);
  return fileKey(full, stats);
}

function idOf(key: FileKey): string {
  return `${key.dev}:${key.ino}:${key.size}:${key.mtimeMs}:${key.ctimeMs}:${key.path}`;
}

class Memo implements DigestMemo {
  readonly #held = new Map<string, Held>();
  readonly #reading = new Map<string, Promise<FileDigest>>();
  readonly #maxEntries: number;
  readonly #now: () => number;
  #hashed = 0;
  #hits = 0;
  #joined = 0;

  constructor(maxEntries: number, now: () => number) {
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  async digest(root: string, path: string, options: FileDigestOptions = {}): Promise<FileDigest> {
    const full = resolveInside(root, path);
    if (options.signal?.aborted)
      throw abortError(options.signal, `Reading ${full} was aborted`, { path: full });
    const key = stateOf(full, options.maxBytes ?? DEFAULT_MAX_FILE_BYTES);
    const held = this.#held.get(full);
    // Racily clean: a file modified within RACY_MS of the hash may have changed again since
    // without its mtime showing it; such a digest is taken again.
    if (held && sameFileKey(held.digest.key, key) && key.mtimeMs < held.hashedAt - RACY_MS) {
      this.#hits++;
      return held.digest;
    }
    const id = idOf(key);
    const reading = this.#reading.get(id);
    if (reading) {
      this.#joined++;
      return reading;
    }
    const started = this.#hash(root, path, key, options).then(({ digest }) => digest);
    this.#reading.set(id, started);
    try {
      return await started;
    } finally {
      this.#reading.delete(id);
    }
  }

  async read(root: string, path: string, options: FileDigestOptions = {}) {
    const full = resolveInside(root, path);
    if (options.signal?.aborted)
      throw abortError(options.signal, `Reading ${full} was aborted`, { path: full });
    return this.#hash(root, path, stateOf(full, options.maxBytes ?? DEFAULT_MAX_FILE_BYTES), options);
  }

  stats(): DigestMemoStats {
    return { entries: this.#held.size, hashed: this.#hashed, hits: this.#hits, joined: this.#joined };
  }

  async #hash(root: string, path: string, key: FileKey, options: FileDigestOptions) {
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
    const bytes = await (options.read
      ? options.read()
      : readInside(root, path, { maxBytes, ...(options.signal ? { signal: options.signal } : {}) }));
    if (bytes.byteLength > maxBytes) throw tooLargeError(key.path, bytes.byteLength, maxBytes);
    this.#hashed++;
    const digest: FileDigest = {
      key,
      digest: sha256Digest(bytes),
      size: bytes.byteLength,
      utf8: isUtf8(bytes),
    };
    this.#remember(digest);
    return { bytes, digest };
  }

  #remember(digest: FileDigest): void {
    const path = digest.key.path;
    // Re-inserted, so that eviction takes the oldest stored first.
    this.#held.delete(path);
    this.#held.set(path, { digest, hashedAt: this.#now() });
    for (const oldest of this.#held.keys()) {
      if (this.#held.size <= this.#maxEntries) break;
      this.#held.delete(oldest);
    }
  }
}

/**
 * A {@link DigestMemo}: digests of files kept in memory by {@link FileKey} (path, device, inode,
 * size, mtime, change time), never by who asks, so every caller sharing it shares one hash per
 * file.
 *
 * - `digest(root, path)` stats the file (following links) and answers from the memo when that
 *   state is the one the digest was taken in, else reads and hashes the file once for every
 *   caller asking meanwhile.
 * - A file rewritten in place (same inode) with the same size and its mtime then set back is
 *   seen: the rewrite moved its change time, which the key compares.
 * - A digest taken when the file's mtime was within 2 s of (or after) the moment it was hashed
 *   is not trusted later: the file is hashed again (git's "racily clean" rule, as in
 *   `fileHeadCache`).
 * - `read` always reads, and the digest of the bytes it returns replaces the one held.
 *
 * @example
 * const memo = digestMemo();
 * const { digest, size } = await memo.digest("/skills/pdf", "scripts/fill.py");
 */
export function digestMemo(options: DigestMemoOptions = {}): DigestMemo {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (typeof maxEntries !== "number" || !Number.isInteger(maxEntries) || maxEntries < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid maxEntries: expected a whole number >= 0, found ${typeof maxEntries === "number" ? String(maxEntries) : typeof maxEntries}`,
      { field: "maxEntries" },
    );
  }
  return new Memo(maxEntries, options.now ?? Date.now);
}
