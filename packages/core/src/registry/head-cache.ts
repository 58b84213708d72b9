import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { readFullySync } from "../files/read-file.js";
import { deepFreeze, toJsonValue } from "../parse/json-value.js";
import { SkillError } from "../spec/errors.js";
import type { FileKey, HeadCache, Logger, SkillHead } from "../spec/types.js";
import { errnoOf } from "../util/errno.js";
import { errorMessage } from "../util/error-text.js";
import { guardLogger } from "../util/logger.js";

/**
 * Version of the cache file's format; a file of another version is an empty cache.
 * - 1: one document, `entries` an object of path → entry.
 * - 2: version 1's document on the first line, followed by appended records (one per line).
 * - 3: the document in columns (paths, stat keys, frontmatter, shared head fields), so that a
 *   warm start parses one number array and one list of frontmatter instead of an object per
 *   entry, and a field every head repeats (the load rules' fingerprint) is stored once.
 * Records are the same in versions 2 and 3. Versions 1 and 2 are still read.
 */
const FORMAT_VERSION = 3;
const READ_VERSIONS: readonly number[] = [1, 2, FORMAT_VERSION];
/** Numbers per entry in a version 3 document's `keys`: dev, ino, size, mtimeMs, storedAt, shared. */
const KEY_WIDTH = 6;
/** A file whose mtime is this close to (or after) the moment its head was stored is not trusted. */
const RACY_MS = 2_000;
const DEFAULT_MAX_ENTRIES = 100_000;
/** A cache file larger than this is not read (it could not be one this code wrote). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;
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

/** One stored head and the file state it belongs to, as held in memory and in the file. */
interface Entry {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** When `set` stored it (ms since the epoch): what the racily-clean rule compares with. */
  readonly storedAt: number;
  readonly head: SkillHead;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A device or inode number: on some systems above 2^53, so not always a safe integer. */
function isId(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isTime(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function isKey(key: FileKey): boolean {
  return (
    typeof key === "object" &&
    key !== null &&
    typeof key.path === "string" &&
    key.path !== "" &&
    isId(key.dev) &&
    isId(key.ino) &&
    isCount(key.size) &&
    isTime(key.mtimeMs)
  );
}

function isHead(value: unknown): value is SkillHead {
  return (
    isMapping(value) &&
    isMapping(value.frontmatter) &&
    (value.digest === undefined || typeof value.digest === "string") &&
    (value.size === undefined || isCount(value.size))
  );
}

function isEntry(value: unknown): value is Entry {
  return (
    isMapping(value) &&
    isId(value.dev) &&
    isId(value.ino) &&
    isCount(value.size) &&
    isTime(value.mtimeMs) &&
    isTime(value.storedAt) &&
    isHead(value.head)
  );
}

/**
 * Head fields a version 3 document stores once for every entry that has them: everything of a
 * head but `frontmatter`, and but `size` when it is the file's own size (most heads).
 */
function isShared(value: unknown): value is Record<string, unknown> {
  return (
    isMapping(value) &&
    !Object.hasOwn(value, "frontmatter") &&
    (value.digest === undefined || typeof value.digest === "string") &&
    (value.size === undefined || isCount(value.size))
  );
}

/**
 * Whether a head stored for a file in the state `dev`, `ino`, `size`, `mtimeMs` at `storedAt`
 * still holds for `key`: the same state, and not racily clean (git's rule: a file modified
 * within the timestamp granularity of the moment it was read may have changed again since
 * without its mtime showing it).
 */
function stillHolds(
  key: FileKey,
  dev: number | undefined,
  ino: number | undefined,
  size: number | undefined,
  mtimeMs: number | undefined,
  storedAt: number | undefined,
): boolean {
  return (
    dev === key.dev &&
    ino === key.ino &&
    size === key.size &&
    mtimeMs === key.mtimeMs &&
    key.mtimeMs < (storedAt as number) - RACY_MS
  );
}

/** A version 3 document's columns as read; an entry still in them is held by its position. */
interface Columns {
  /** {@link KEY_WIDTH} numbers per entry: dev, ino, size, mtimeMs, storedAt, and `shared` × 2 (+ 1: `size` is the file's). */
  readonly keys: readonly number[];
  readonly frontmatter: readonly Readonly<Record<string, unknown>>[];
  readonly shared: readonly Readonly<Record<string, unknown>>[];
}

/** What the cache holds for a path: an entry, or the position of one still in the file's columns. */
type Held = Entry | number;

const NO_COLUMNS: Columns = { keys: [], frontmatter: [], shared: [] };

/** The head of the entry at `at` of `columns`, made and frozen on use. */
function headAt(columns: Columns, at: number): SkillHead {
  const code = columns.keys[at * KEY_WIDTH + 5] as number;
  const shared = columns.shared[Math.floor(code / 2)];
  const frontmatter = columns.frontmatter[at] as Readonly<Record<string, unknown>>;
  // The shared fields, then the head's own.
  const head: { -readonly [K in keyof SkillHead]: SkillHead[K] } = { ...shared, frontmatter };
  if (code % 2 === 1) head.size = columns.keys[at * KEY_WIDTH + 2] as number;
  return deepFreeze(head);
}

/** The entry at `at` of `columns`, as the other versions hold it. */
function entryAt(columns: Columns, at: number): Entry {
  const k = at * KEY_WIDTH;
  const keys = columns.keys as number[];
  return {
    dev: keys[k] as number,
    ino: keys[k + 1] as number,
    size: keys[k + 2] as number,
    mtimeMs: keys[k + 3] as number,
    storedAt: keys[k + 4] as number,
    head: headAt(columns, at),
  };
}

/**
 * Takes the entries of a version 3 document into `entries`, each a position in the columns
 * returned; a malformed entry is dropped alone (counted in `dropped`). A string: why the
 * document as a whole is unusable.
 */
function readColumns(
  doc: Readonly<Record<string, unknown>>,
  entries: Map<string, Held>,
): { columns: Columns; dropped: number } | string {
  const { paths, keys, shared, frontmatter } = doc;
  if (
    !Array.isArray(paths) ||
    !Array.isArray(keys) ||
    !Array.isArray(shared) ||
    !Array.isArray(frontmatter) ||
    keys.length !== paths.length * KEY_WIDTH ||
    frontmatter.length !== paths.length
  ) {
    return `expected { version: ${FORMAT_VERSION}, writtenAt, paths, keys, shared, frontmatter } of matching lengths`;
  }
  const usable = shared.map((value) => {
    if (!isShared(value)) return false;
    deepFreeze(value); // every head made from it shares it
    return true;
  });
  let dropped = 0;
  for (let at = 0; at < paths.length; at++) {
    const path: unknown = paths[at];
    const k = at * KEY_WIDTH;
    const code: unknown = keys[k + 5];
    if (
      typeof path === "string" &&
      path !== "" &&
      isId(keys[k]) &&
      isId(keys[k + 1]) &&
      isCount(keys[k + 2]) &&
      isTime(keys[k + 3]) &&
      isTime(keys[k + 4]) &&
      isCount(code) &&
      usable[Math.floor(code / 2)] === true &&
      isMapping(frontmatter[at])
    ) {
      entries.set(path, at);
    } else {
      dropped++;
    }
  }
  return { columns: { keys, frontmatter, shared }, dropped };
}

/**
 * Reads the cache file without ever blocking: a FIFO or device at that path is refused
 * (`O_NONBLOCK`, then a regular-file check), and so is a file too large to be a cache. The
 * bytes the file has when it is opened are read into one buffer of that size and decoded at
 * once (on Node 20, a third faster than `readFileSync(fd, "utf8")` for a file of megabytes);
 * a record appended meanwhile is read at the next start, one cut short is dropped alone.
 */
function readCacheText(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error("it is not a regular file");
    if (stats.size > MAX_FILE_BYTES) throw new Error(`it is ${stats.size} bytes, more than a cache holds`);
    const bytes = Buffer.allocUnsafe(stats.size);
    return bytes.toString("utf8", 0, readFullySync(fd, bytes));
  } finally {
    closeSync(fd);
  }
}

/**
 * One record per changed path, in the order of the changes: `{"path","entry"}` for an entry
 * the cache holds, `{"path"}` for one it dropped. `undefined` when an entry cannot be
 * serialized (a head nested deeper than JSON.stringify recurses): a full write drops it.
 */
function recordsOf(
  entries: Map<string, Held>,
  columns: Columns,
  dirty: readonly string[],
): string | undefined {
  let text = "";
  try {
    for (const path of dirty) {
      const held = entries.get(path);
      const entry = typeof held === "number" ? entryAt(columns, held) : held;
      text +=
        entry === undefined
          ? `{"path":${JSON.stringify(path)}}\n`
          : `{"path":${JSON.stringify(path)},"entry":${JSON.stringify(entry)}}\n`;
    }
  } catch {
    return undefined;
  }
  return text;
}

class FileHeadCache implements HeadCache {
  readonly #file: string;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #logger: Logger;
  /** Path → entry (or its place in `#columns`), least recently used first; `undefined` until the file is read. */
  #entries: Map<string, Held> | undefined;
  /** The columns of the version 3 document read, which entries not changed since are held in. */
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
      if (!stillHolds(key, keys[k], keys[k + 1], keys[k + 2], keys[k + 3], keys[k + 4])) return undefined;
      head = headAt(this.#columns, entry);
    } else {
      if (!stillHolds(key, entry.dev, entry.ino, entry.size, entry.mtimeMs, entry.storedAt)) return undefined;
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
      storedAt: this.#now(),
      head: data,
    });
    this.#touch(entries, key.path);
    this.#dirty.add(key.path);
    this.#trim(entries, true);
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
    // The document is the first line; appended records follow it, one per line.
    const end = text.indexOf("\n");
    let doc: unknown;
    try {
      doc = JSON.parse(end === -1 ? text : text.slice(0, end));
    } catch (error) {
      this.#corrupt(`it is not JSON (${errorMessage(error)})`);
      return entries;
    }
    if (isMapping(doc) && typeof doc.version === "number" && !READ_VERSIONS.includes(doc.version)) {
      this.#logger.debug?.(
        `head cache: ${this.#file} has format version ${doc.version}, this code reads ${READ_VERSIONS.join(" and ")}; starting empty`,
        { code: "head-cache-corrupt", path: this.#file },
      );
      return entries;
    }
    let dropped = 0;
    if (isMapping(doc) && doc.version === FORMAT_VERSION && isTime(doc.writtenAt)) {
      const read = readColumns(doc, entries);
      if (typeof read === "string") {
        this.#corrupt(read);
        return entries;
      }
      this.#columns = read.columns;
      dropped = read.dropped;
    } else if (isMapping(doc) && isTime(doc.writtenAt) && isMapping(doc.entries)) {
      const stored = doc.entries;
      for (const path of Object.keys(stored)) {
        const entry = stored[path];
        if (path !== "" && isEntry(entry)) entries.set(path, entry);
        else dropped++;
      }
    } else {
      this.#corrupt(`expected { version: ${FORMAT_VERSION}, writtenAt, paths, keys, shared, frontmatter }`);
      return entries;
    }
    if (end !== -1 && end < text.length - 1) dropped += this.#replay(text, end + 1, entries);
    // A document without its closing newline was cut short where a record would follow.
    this.#appendable = end !== -1;
    if (dropped > 0) {
      this.#logger.debug?.(`head cache: dropped ${dropped} malformed entries of ${this.#file}`, {
        code: "head-cache-corrupt",
        path: this.#file,
      });
    }
    this.#trim(entries, false);
    return entries;
  }

  /**
   * Applies the records after the document, in order: `{"path","entry"}` stores (as the most
   * recently used), `{"path"}` deletes. Returns how many were malformed (a record cut short by
   * a crash is one), each dropped alone.
   */
  #replay(text: string, from: number, entries: Map<string, Held>): number {
    let dropped = 0;
    let start = from;
    while (start < text.length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      if (end > start) {
        this.#records++;
        let record: unknown;
        try {
          record = JSON.parse(text.slice(start, end));
        } catch {
          record = undefined;
        }
        if (isMapping(record) && typeof record.path === "string" && record.path !== "") {
          entries.delete(record.path);
          if (record.entry === undefined) {
            // A deletion.
          } else if (isEntry(record.entry)) {
            entries.set(record.path, record.entry);
          } else {
            dropped++;
          }
        } else {
          dropped++;
        }
      }
      start = end + 1;
    }
    return dropped;
  }

  #corrupt(why: string): void {
    this.#logger.warn(`Head cache ${this.#file} is unusable (${why}); starting with an empty cache`, {
      code: "head-cache-corrupt",
      path: this.#file,
    });
  }

  /**
   * The version 3 document of `entries`, in their order. An entry whose head is nested deeper
   * than JSON.stringify recurses is dropped (and reported); nothing else is.
   */
  #serialize(entries: Map<string, Held>): string {
    const columns = this.#columns;
    const paths: string[] = [];
    const keys: number[] = [];
    const frontmatter: Readonly<Record<string, unknown>>[] = [];
    // Each distinct set of shared fields once, by its JSON text.
    const shared: string[] = [];
    const sharedAt = new Map<string, number>();
    const intern = (text: string): number => {
      let at = sharedAt.get(text);
      if (at === undefined) {
        at = shared.length;
        shared.push(text);
        sharedAt.set(text, at);
      }
      return at;
    };
    // A set of the columns read → its place in `shared`.
    const fromColumns = new Map<number, number>();
    for (const [path, held] of entries) {
      if (typeof held === "number") {
        const k = held * KEY_WIDTH;
        const code = columns.keys[k + 5] as number;
        const old = Math.floor(code / 2);
        let at = fromColumns.get(old);
        if (at === undefined) {
          try {
            at = intern(JSON.stringify(columns.shared[old]));
          } catch (error) {
            // Read from a file, but nested deeper than JSON.stringify recurses: not kept.
            this.#dropUnwritable(entries, path, error);
            continue;
          }
          fromColumns.set(old, at);
        }
        paths.push(path);
        for (let i = 0; i < 5; i++) keys.push(columns.keys[k + i] as number);
        keys.push(at * 2 + (code % 2));
        frontmatter.push(columns.frontmatter[held] as Readonly<Record<string, unknown>>);
        continue;
      }
      const { frontmatter: fields, ...rest } = held.head as SkillHead & Record<string, unknown>;
      const own = rest.size === held.size;
      if (own) delete rest.size;
      let text: string;
      try {
        text = JSON.stringify(rest);
      } catch (error) {
        this.#dropUnwritable(entries, path, error);
        continue;
      }
      paths.push(path);
      keys.push(held.dev, held.ino, held.size, held.mtimeMs, held.storedAt, intern(text) * 2 + (own ? 1 : 0));
      frontmatter.push(fields);
    }
    let fields: string;
    try {
      // One JSON.stringify of every frontmatter is several times faster than one each.
      fields = JSON.stringify(frontmatter);
    } catch {
      // A frontmatter nested deeper than JSON.stringify recurses: found and dropped one by one.
      const texts: string[] = [];
      let kept = 0;
      for (let at = 0; at < paths.length; at++) {
        try {
          texts.push(JSON.stringify(frontmatter[at]));
        } catch (error) {
          this.#dropUnwritable(entries, paths[at] as string, error);
          continue;
        }
        paths[kept] = paths[at] as string;
        for (let i = 0; i < KEY_WIDTH; i++) keys[kept * KEY_WIDTH + i] = keys[at * KEY_WIDTH + i] as number;
        kept++;
      }
      paths.length = kept;
      keys.length = kept * KEY_WIDTH;
      fields = `[${texts.join(",")}]`;
    }
    return (
      `{"version":${FORMAT_VERSION},"writtenAt":${JSON.stringify(this.#now())},` +
      `"paths":${JSON.stringify(paths)},"keys":${JSON.stringify(keys)},` +
      `"shared":[${shared.join(",")}],"frontmatter":${fields}}\n`
    );
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
    const dir = dirname(this.#file);
    // Same folder, so the rename is atomic: a reader sees the old file or the new one.
    const temp = join(dir, `.${basename(this.#file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      const text = this.#serialize(this.#ordered(entries));
      await mkdir(dir, { recursive: true });
      await writeFile(temp, text, { flag: "wx" });
      await rename(temp, this.#file);
      this.#appendable = true;
      this.#records = 0;
    } catch (error) {
      for (const path of dirty) this.#dirty.add(path);
      await rm(temp, { force: true }).catch(() => {});
      this.#writeFailed(error);
    }
  }
  /**
   * Appends `text` to the file as it is, with one write (never through a symlink, never to
   * anything but a regular file). `absent` when there is no such file to append to: the caller
   * writes it anew. A failed write is reported, and the next flush writes the file anew.
   */
  async #append(text: string): Promise<"appended" | "absent" | "failed"> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(
        this.#file,
        constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
      );
    } catch {
      return "absent";
    }
    try {
      if (!(await handle.stat()).isFile()) return "absent";
      const bytes = Buffer.from(text, "utf8");
      let written = 0;
      while (written < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
        written += bytesWritten;
      }
      return "appended";
    } catch (error) {
      // What reached the file is unknown: the next flush writes it anew.
      this.#appendable = false;
      this.#writeFailed(error);
      return "failed";
    } finally {
      await handle.close().catch(() => {});
    }
  }

  #writeFailed(error: unknown): void {
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
 * - `get` returns a head (deep-frozen JSON data) only when path, `dev`, `ino`, `size` and
 *   `mtimeMs` all match, and not when the file's mtime is within 2 s of (or after) the moment
 *   the head was stored (git's "racily clean" rule): such a file is read again.
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
 * File format: a first line `{ "version": 3, "writtenAt": <ms>, "paths": [<path>, …], "keys":
 * [dev, ino, size, mtimeMs, storedAt, shared, …], "shared": [{ <head fields> }, …],
 * "frontmatter": [{ … }, …] }`, entries least recently used first, in columns: entry `i` is
 * `paths[i]`, the six numbers from `keys[6 i]` and `frontmatter[i]`. Its head is that
 * frontmatter with the fields of `shared[⌊s / 2⌋]` (everything else the head held, stored once
 * for all heads that hold the same), plus `size` set to the file's size when `s` is odd. Then
 * zero or more records, one JSON object a line, in order: `{ "path", "entry": { "dev", "ino",
 * "size", "mtimeMs", "storedAt", "head" } }` stores an entry as the most recently used,
 * `{ "path" }` drops one. Files of versions 1 and 2 (a first line `{ "version", "writtenAt",
 * "entries": { "<path>": <entry> } }`) are read as they are.
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
