import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { RACY_MS } from "../files/file-key.js";
import { readFullySync } from "../files/read-file.js";
import { deepFreeze } from "../parse/json-value.js";
import type { FileKey, SkillHead } from "../spec/types.js";

// The file format of `fileHeadCache`: what a cache file holds, how it is read back, checked and
// written. The cache itself (order, eviction, flushes) is in head-cache.ts.

/**
 * Version of the cache file's format; a file of another version is an empty cache.
 * - 1: one document, `entries` an object of path → entry.
 * - 2: version 1's document on the first line, followed by appended records (one per line).
 * - 3: the document in columns (paths, stat keys, frontmatter, shared head fields), so that a
 *   warm start parses one number array and one list of frontmatter instead of an object per
 *   entry, and a field every head repeats (the load rules' fingerprint) is stored once.
 * Records are the same in versions 2 and 3. Versions 1 and 2 are still read.
 */
export const FORMAT_VERSION = 3;
export const READ_VERSIONS: readonly number[] = [1, 2, FORMAT_VERSION];
/** Numbers per entry in a version 3 document's `keys`: dev, ino, size, mtimeMs, storedAt, shared. */
export const KEY_WIDTH = 6;
/** A cache file larger than this is not read (it could not be one this code wrote). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** One stored head and the file state it belongs to, as held in memory and in the file. */
export interface Entry {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** When `set` stored it (ms since the epoch): what the racily-clean rule compares with. */
  readonly storedAt: number;
  readonly head: SkillHead;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A device or inode number: on some systems above 2^53, so not always a safe integer. */
function isId(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

export function isTime(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

export function isKey(key: FileKey): boolean {
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

export function isHead(value: unknown): value is SkillHead {
  return (
    isMapping(value) &&
    isMapping(value.frontmatter) &&
    (value.digest === undefined || typeof value.digest === "string") &&
    (value.size === undefined || isCount(value.size))
  );
}

export function isEntry(value: unknown): value is Entry {
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
export function stillHolds(
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
export interface Columns {
  /** {@link KEY_WIDTH} numbers per entry: dev, ino, size, mtimeMs, storedAt, and `shared` × 2 (+ 1: `size` is the file's). */
  readonly keys: readonly number[];
  readonly frontmatter: readonly Readonly<Record<string, unknown>>[];
  readonly shared: readonly Readonly<Record<string, unknown>>[];
}

/** What the cache holds for a path: an entry, or the position of one still in the file's columns. */
export type Held = Entry | number;

export const NO_COLUMNS: Columns = { keys: [], frontmatter: [], shared: [] };

/** The head of the entry at `at` of `columns`, made and frozen on use. */
export function headAt(columns: Columns, at: number): SkillHead {
  const code = columns.keys[at * KEY_WIDTH + 5] as number;
  const shared = columns.shared[Math.floor(code / 2)];
  const frontmatter = columns.frontmatter[at] as Readonly<Record<string, unknown>>;
  // The shared fields, then the head's own.
  const head: { -readonly [K in keyof SkillHead]: SkillHead[K] } = { ...shared, frontmatter };
  if (code % 2 === 1) head.size = columns.keys[at * KEY_WIDTH + 2] as number;
  return deepFreeze(head);
}

/** The entry at `at` of `columns`, as the other versions hold it. */
export function entryAt(columns: Columns, at: number): Entry {
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
export function readColumns(
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
export function readCacheText(file: string): string {
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
export function recordsOf(
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

/**
 * Applies the records after the document, in order: `{"path","entry"}` stores (as the most
 * recently used), `{"path"}` deletes. Returns how many records there were, and how many were
 * malformed (a record cut short by a crash is one), each dropped alone.
 */
export function replayRecords(
  text: string,
  from: number,
  entries: Map<string, Held>,
): { records: number; dropped: number } {
  let records = 0;
  let dropped = 0;
  let start = from;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (end > start) {
      records++;
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
  return { records, dropped };
}

/**
 * The version 3 document of `entries`, in their order. An entry whose head is nested deeper
 * than JSON.stringify recurses is dropped (and reported); nothing else is.
 */
export function serializeDocument(
  entries: Map<string, Held>,
  columns: Columns,
  writtenAt: number,
  drop: (path: string, error: unknown) => void,
): string {
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
          drop(path, error);
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
      drop(path, error);
      continue;
    }
    paths.push(path);
    keys.push(held.dev, held.ino, held.size, held.mtimeMs, held.storedAt, intern(text) * 2 + (own ? 1 : 0));
    frontmatter.push(fields);
  }
  const fields = frontmatterText(paths, keys, frontmatter, drop);
  return (
    `{"version":${FORMAT_VERSION},"writtenAt":${JSON.stringify(writtenAt)},` +
    `"paths":${JSON.stringify(paths)},"keys":${JSON.stringify(keys)},` +
    `"shared":[${shared.join(",")}],"frontmatter":${fields}}\n`
  );
}

/**
 * The `frontmatter` column as JSON text. One whose frontmatter is nested deeper than
 * JSON.stringify recurses is dropped (and reported through `drop`), its path and keys with it.
 */
function frontmatterText(
  paths: string[],
  keys: number[],
  frontmatter: readonly Readonly<Record<string, unknown>>[],
  drop: (path: string, error: unknown) => void,
): string {
  try {
    // One JSON.stringify of every frontmatter is several times faster than one each.
    return JSON.stringify(frontmatter);
  } catch {
    // A frontmatter nested deeper than JSON.stringify recurses: found and dropped one by one.
    const texts: string[] = [];
    let kept = 0;
    for (let at = 0; at < paths.length; at++) {
      try {
        texts.push(JSON.stringify(frontmatter[at]));
      } catch (error) {
        drop(paths[at] as string, error);
        continue;
      }
      paths[kept] = paths[at] as string;
      for (let i = 0; i < KEY_WIDTH; i++) keys[kept * KEY_WIDTH + i] = keys[at * KEY_WIDTH + i] as number;
      kept++;
    }
    paths.length = kept;
    keys.length = kept * KEY_WIDTH;
    return `[${texts.join(",")}]`;
  }
}
