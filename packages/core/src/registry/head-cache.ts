import { basename, dirname, resolve } from "node:path";
import { writeInside } from "../files/write-inside.js";
import { deepFreeze, toJsonValue } from "../parse/json-value.js";
import { SkillError } from "../spec/errors.js";
import type { Logger } from "../spec/logging.js";
import type { FileKey, HeadCache, SkillHead } from "../spec/skill-source.js";
import { errnoOf } from "../util/errno.js";
import { errorMessage } from "../util/error-text.js";
import { guardLogger } from "../util/logger.js";
import {
  type Columns,
  ctimeOf,
  type Held,
  headAt,
  isCount,
  isHead,
  isKey,
  K_CTIME,
  K_MTIME,
  K_SIZE,
  K_STORED,
  KEY_WIDTH,
  NO_COLUMNS,
  READ_VERSIONS,
  stillHolds,
} from "./head-cache-format.js";
import { readCacheText, readDocument } from "./head-cache-reader.js";
import { appendText, recordsOf, serializeDocument } from "./head-cache-writer.js";

const DEFAULT_MAX_ENTRIES = 100_000;
/**
 * A flush appends the changed entries as records while the records in the file stay at most
 * this share of the entries (and at most {@link MAX_RECORDS}); past it, the file is written
 * anew from memory (compacted).
 */
const RECORD_SHARE = 0.25;
const MAX_RECORDS = 10_000;

/** Options of {@link fileHeadCache}. */
export interface FileHeadCacheOptions {
  /**
   * Most entries kept (default 100,000). Beyond it the least recently used entry (stored or
   * returned by `get` longest ago) is dropped; the file keeps entries in that order.
   */
  readonly maxEntries?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /**
   * Receives a warning `head-cache-write-failed` when `flush` cannot write the file,
   * `head-cache-corrupt` / `head-cache-read-failed` when the file cannot be used, and debug lines.
   */
  readonly logger?: Logger;
}

class FileHeadCache implements HeadCache {
  readonly #file: string;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #logger: Logger;
  /** Path → entry (or its place in `#columns`), least recently used first; `undefined` until the file is read. */
  #entries: Map<string, Held> | undefined;
  /** The columns of the version 4 document read, which entries not changed since are held in. */
  #columns: Columns = NO_COLUMNS;
  /** Paths whose entry (or its absence) the file does not hold yet. */
  readonly #dirty = new Set<string>();
  /**
   * Whether the file is known to hold a document of this format with every entry not in
   * `#dirty` (it was read, or written by this cache): only then may a flush append to it.
   */
  #appendable = false;
  /** Records in the file after its document (read or appended). */
  #records = 0;
  /** Paths used (returned or stored) since the map's order last took them in, in order. */
  #uses: string[] = [];
  /** Flushes run one after another, so an older state never renames over a newer one. */
  #queue: Promise<void> = Promise.resolve();

  constructor(file: string, maxEntries: number, now: () => number, logger: Logger) {
    this.#file = file;
    this.#maxEntries = maxEntries;
    this.#now = now;
    this.#logger = logger;
  }

  get(key: FileKey): SkillHead | undefined {
    if (!isKey(key)) return undefined;
    const entries = this.#load();
    const entry = entries.get(key.path);
    if (entry === undefined) return undefined;
    let head: SkillHead;
    if (typeof entry === "number") {
      const keys = this.#columns.keys as number[];
      const k = entry * KEY_WIDTH;
      const ctimeMs = ctimeOf(keys[k + K_CTIME]);
      if (
        !stillHolds(
          key,
          keys[k],
          keys[k + 1],
          keys[k + K_SIZE],
          keys[k + K_MTIME],
          ctimeMs,
          keys[k + K_STORED],
        )
      )
        return undefined;
      head = headAt(this.#columns, entry);
    } else {
      if (!stillHolds(key, entry.dev, entry.ino, entry.size, entry.mtimeMs, entry.ctimeMs, entry.storedAt))
        return undefined;
      head = deepFreeze(entry.head);
    }
    // Most recently used last, once the order is needed (`#touch`). Not a change worth a write on its own.
    this.#touch(entries, key.path);
    return head;
  }

  set(key: FileKey, head: SkillHead): void {
    if (!isKey(key)) {
      this.#logger.debug?.("head cache: ignored a head stored under an invalid file key", {
        code: "head-cache-invalid-key",
        path: typeof key?.path === "string" ? key.path : this.#file,
      });
      return;
    }
    const data = toJsonValue(head);
    if (!isHead(data)) {
      this.#logger.debug?.(`head cache: ignored a head without a frontmatter mapping for ${key.path}`, {
        code: "head-cache-invalid-head",
        path: key.path,
      });
      return;
    }
    const entries = this.#load();
    // Its place in the order (most recent) comes from the use noted below.
    entries.set(key.path, {
      dev: key.dev,
      ino: key.ino,
      size: key.size,
      mtimeMs: key.mtimeMs,
      ...(key.ctimeMs === undefined ? {} : { ctimeMs: key.ctimeMs }),
      storedAt: this.#now(),
      head: data,
    });
    this.#touch(entries, key.path);
    this.#dirty.add(key.path);
    this.#trim(entries, true);
  }

  has(path: string): boolean {
    return this.#load().has(path);
  }

  delete(path: string): void {
    if (this.#load().delete(path)) this.#dirty.add(path);
  }

  flush(): Promise<void> {
    const run = this.#queue.then(() => this.#write());
    this.#queue = run;
    return run;
  }

  /**
   * Notes a use of `path`. The map keeps entries least recently used first, but moving an entry
   * to the end on every hit of a warm start costs more than the hit: uses are noted in order and
   * applied when the order is read (eviction, a full write) or the notes grow past the entries.
   * Replaying them in order gives the order that moving each at once would have.
   */
  #touch(entries: Map<string, Held>, path: string): void {
    this.#uses.push(path);
    if (this.#uses.length > 2 * entries.size + 64) this.#ordered(entries);
  }

  /** Applies the noted uses: each used entry moves to the end, in the order of use. */
  #ordered(entries: Map<string, Held>): Map<string, Held> {
    const uses = this.#uses;
    if (uses.length === 0) return entries;
    this.#uses = [];
    for (const path of uses) {
      const entry = entries.get(path);
      if (entry === undefined) continue;
      entries.delete(path);
      entries.set(path, entry);
    }
    return entries;
  }

  /** Drops the least recently used entries beyond the limit; `record`: the file must drop them too. */
  #trim(entries: Map<string, Held>, record: boolean): void {
    if (entries.size <= this.#maxEntries) return;
    this.#ordered(entries);
    for (const path of entries.keys()) {
      if (entries.size <= this.#maxEntries) break;
      entries.delete(path);
      if (record) this.#dirty.add(path);
    }
  }

  #load(): Map<string, Held> {
    if (this.#entries) return this.#entries;
    const entries = new Map<string, Held>();
    this.#entries = entries;
    let text: string;
    try {
      text = readCacheText(this.#file);
    } catch (error) {
      const errno = errnoOf(error);
      if (errno === "ENOENT" || errno === "ENOTDIR") {
        this.#logger.debug?.(`head cache: no cache file at ${this.#file} yet`, { path: this.#file });
      } else {
        this.#logger.warn(
          `Head cache ${this.#file} could not be read (${errorMessage(error)}); starting with an empty cache`,
          { code: "head-cache-read-failed", path: this.#file, ...(errno === undefined ? {} : { errno }) },
        );
      }
      return entries;
    }
    const read = readDocument(text, entries);
    if (!read.ok) {
      if ("version" in read) {
        this.#logger.debug?.(
          `head cache: ${this.#file} has format version ${read.version}, this code reads ${READ_VERSIONS.join(" and ")}; starting empty`,
          { code: "head-cache-corrupt", path: this.#file },
        );
      } else {
        this.#corrupt(read.corrupt);
      }
      return entries;
    }
    this.#columns = read.columns;
    this.#records += read.records;
    this.#appendable = read.appendable;
    if (read.dropped > 0) {
      this.#logger.debug?.(`head cache: dropped ${read.dropped} malformed entries of ${this.#file}`, {
        code: "head-cache-corrupt",
        path: this.#file,
      });
    }
    this.#trim(entries, false);
    return entries;
  }

  #corrupt(why: string): void {
    this.#logger.warn(`Head cache ${this.#file} is unusable (${why}); starting with an empty cache`, {
      code: "head-cache-corrupt",
      path: this.#file,
    });
  }

  /** Drops an entry whose head JSON.stringify cannot write (nested too deep): it is not kept. */
  #dropUnwritable(entries: Map<string, Held>, path: string, error: unknown): void {
    entries.delete(path);
    this.#logger.debug?.(`head cache: dropped the head of ${path} (${errorMessage(error)})`, {
      code: "head-cache-invalid-head",
      path,
    });
  }

  async #write(): Promise<void> {
    const entries = this.#entries;
    if (entries === undefined || this.#dirty.size === 0) return;
    // What is written is the state now; a change made while it is written waits for the next flush.
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    const records = this.#records + dirty.length;
    if (this.#appendable && records <= Math.min(MAX_RECORDS, entries.size * RECORD_SHARE)) {
      const text = recordsOf(entries, this.#columns, dirty);
      const appended = text === undefined ? "absent" : await this.#append(text);
      if (appended === "appended") {
        this.#records = records;
        return;
      }
      if (appended === "failed") {
        for (const path of dirty) this.#dirty.add(path);
        return;
      }
    }
    try {
      const ordered = this.#ordered(entries);
      const text = serializeDocument(ordered, this.#columns, this.#now(), (path, error) =>
        this.#dropUnwritable(ordered, path, error),
      );
      // Core's one writer: a temporary file beside it renamed over it, the folder made if missing.
      await writeInside(dirname(this.#file), basename(this.#file), Buffer.from(text, "utf8"));
      this.#appendable = true;
      this.#records = 0;
    } catch (error) {
      for (const path of dirty) this.#dirty.add(path);
      this.#writeFailed(error);
    }
  }

  /** Appends records to the file; a failed write is reported, and the next flush writes the file anew. */
  async #append(text: string): Promise<"appended" | "absent" | "failed"> {
    try {
      return await appendText(this.#file, text);
    } catch (error) {
      // What reached the file is unknown: the next flush writes it anew.
      this.#appendable = false;
      this.#writeFailed(error);
      return "failed";
    }
  }

  #writeFailed(failure: unknown): void {
    // The system error behind the writer's WRITE_ERROR, which names the file this message names too.
    const error = SkillError.isInstance(failure) && failure.cause !== undefined ? failure.cause : failure;
    const errno = errnoOf(error);
    this.#logger.warn(
      `Head cache ${this.#file} could not be written (${errorMessage(error)}); the next load reads the skills again`,
      { code: "head-cache-write-failed", path: this.#file, ...(errno === undefined ? {} : { errno }) },
    );
  }
}

/**
 * A {@link HeadCache} kept in one JSON file, for `SkillServiceOptions.headCache`: a warm
 * `discoverAndLoad` stats each unchanged SKILL.md instead of reading it.
 *
 * - The file is read once, synchronously, on the first `get`, `set` or `delete`. A missing,
 *   unreadable, corrupt or other-version file is an empty cache (a warning at most, never a
 *   throw); a malformed entry is dropped alone.
 * - `get` returns a head (deep-frozen JSON data) only when path, `dev`, `ino`, `size`,
 *   `mtimeMs` and `ctimeMs` all match (a key without `ctimeMs` matches only an entry stored
 *   without one), and not when the file's mtime is within 2 s of (or after) the moment the
 *   head was stored (git's "racily clean" rule): such a file is read again.
 * - `set` stores the head as JSON data (see `toJsonValue`): `frontmatter`, `digest`, `size`
 *   and any other JSON-serialisable field the caller adds (parse diagnostics, a load-rules
 *   fingerprint) are kept as given; `undefined` fields are dropped.
 * - `flush` writes only after a change. A few changes against a large cache (records at most
 *   a quarter of the entries) are appended to the file as records, with one write; otherwise
 *   the whole cache is written to a temporary file in the same folder and renamed over the
 *   file (parent folders created), which also drops the records. A reader never sees half a
 *   document, and a record cut short by a crash is dropped alone. Of two processes, each
 *   appended record wins for its path until the last rename replaces the file whole. A
 *   failed write is reported to `logger` as `head-cache-write-failed` and never rejects; the
 *   next flush writes the file anew.
 *
 * File format (version 4): a first line `{ "version": 4, "writtenAt": <ms>, "paths": [<path>,
 * …], "keys": [dev, ino, size, mtimeMs, ctimeMs, storedAt, shared, …], "shared": [{ <head
 * fields> }, …], "frontmatter": [{ … }, …] }`, entries least recently used first, in columns:
 * entry `i` is `paths[i]`, the seven numbers from `keys[7 i]` (`ctimeMs` -1: stored without
 * one) and `frontmatter[i]`. Its head is that frontmatter with the fields of `shared[⌊s / 2⌋]`
 * (everything else the head held, stored once for all heads that hold the same), plus `size`
 * set to the file's size when `s` is odd. Then zero or more records, one JSON object a line,
 * in order: `{ "path", "entry": { "dev", "ino", "size", "mtimeMs", "ctimeMs", "storedAt",
 * "head" } }` stores an entry as the most recently used, `{ "path" }` drops one. Files of
 * versions 1 and 2 (a first line `{ "version", "writtenAt", "entries": { "<path>": <entry> }
 * }`) are read as they are; a version 3 file is another version, an empty cache.
 *
 * @example
 * const service = new SkillService({ sources, headCache: fileHeadCache(join(cacheDir, "heads.json")) });
 */
export function fileHeadCache(file: string, options: FileHeadCacheOptions = {}): HeadCache {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (!isCount(maxEntries)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid maxEntries: expected a whole number >= 0, found ${typeof maxEntries === "number" ? String(maxEntries) : typeof maxEntries}`,
      { field: "maxEntries" },
    );
  }
  if (typeof file !== "string" || file === "") {
    throw new SkillError("INVALID_FIELD", "Invalid head cache file: expected a path, found an empty value", {
      field: "file",
    });
  }
  return new FileHeadCache(resolve(file), maxEntries, options.now ?? Date.now, guardLogger(options.logger));
}
