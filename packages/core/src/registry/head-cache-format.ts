import { RACY_MS } from "../files/file-key.js";
import { deepFreeze } from "../parse/json-value.js";
import type { FileKey, SkillHead } from "../spec/skill-source.js";
import { isMapping } from "../util/mapping.js";

// The file format of `fileHeadCache`: what a cache file holds and how its parts are checked.
// Reading a file is in head-cache-reader.ts, writing one in head-cache-writer.ts; the cache
// itself (order, eviction, flushes) is in head-cache.ts.

/**
 * Version of the cache file's format; a file of another version is an empty cache.
 * - 1: one document, `entries` an object of path → entry.
 * - 2: version 1's document on the first line, followed by appended records (one per line).
 * - 3: the document in columns (paths, stat keys, frontmatter, shared head fields), so that a
 *   warm start parses one number array and one list of frontmatter instead of an object per
 *   entry, and a field every head repeats (the load rules' fingerprint) is stored once.
 * - 4: version 3 with each file's status change time (`ctimeMs`) in its key: a file replaced by
 *   one of the same inode, size and mtime, or whose mode changed, is no longer a hit.
 * Records are the same in versions 2 to 4 (an entry's `ctimeMs` is new in 4). Versions 1 and 2
 * are still read; their entries hold no `ctimeMs`, so they match only keys without one. A
 * version 3 file is another version: none of its entries could match a key with `ctimeMs`.
 */
export const FORMAT_VERSION = 4;
export const READ_VERSIONS: readonly number[] = [1, 2, FORMAT_VERSION];
/** Numbers per entry in a version 4 document's `keys`: dev, ino, size, mtimeMs, ctimeMs, storedAt, shared. */
export const KEY_WIDTH = 7;
/** Where each number of an entry sits in its {@link KEY_WIDTH} numbers. */
export const K_SIZE = 2;
export const K_MTIME = 3;
export const K_CTIME = 4;
export const K_STORED = 5;
export const K_SHARED = 6;
/** `ctimeMs` in `keys` for an entry stored without one. */
export const NO_CTIME = -1;

/** One stored head and the file state it belongs to, as held in memory and in the file. */
export interface Entry {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** The file's status change time, when its key had one. */
  readonly ctimeMs?: number;
  /** When `set` stored it (ms since the epoch): what the racily-clean rule compares with. */
  readonly storedAt: number;
  readonly head: SkillHead;
}

export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A device or inode number: on some systems above 2^53, so not always a safe integer. */
export function isId(value: unknown): value is number {
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
    isTime(key.mtimeMs) &&
    (key.ctimeMs === undefined || (isTime(key.ctimeMs) && key.ctimeMs >= 0))
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
    (value.ctimeMs === undefined || (isTime(value.ctimeMs) && value.ctimeMs >= 0)) &&
    isTime(value.storedAt) &&
    isHead(value.head)
  );
}

/**
 * Whether a head stored for a file in the state `dev`, `ino`, `size`, `mtimeMs`, `ctimeMs` at
 * `storedAt` still holds for `key`: the same state (a `ctimeMs` on one side only is another
 * state), and not racily clean (git's rule: a file modified within the timestamp granularity
 * of the moment it was read may have changed again since without its mtime showing it; as in
 * git, the change time is compared, not judged racy).
 */
export function stillHolds(
  key: FileKey,
  dev: number | undefined,
  ino: number | undefined,
  size: number | undefined,
  mtimeMs: number | undefined,
  ctimeMs: number | undefined,
  storedAt: number | undefined,
): boolean {
  return (
    dev === key.dev &&
    ino === key.ino &&
    size === key.size &&
    mtimeMs === key.mtimeMs &&
    ctimeMs === key.ctimeMs &&
    key.mtimeMs < (storedAt as number) - RACY_MS
  );
}

/** A `ctimeMs` as `keys` holds it ({@link NO_CTIME} for none), and back. */
export const ctimeColumn = (ctimeMs: number | undefined): number => ctimeMs ?? NO_CTIME;
export const ctimeOf = (column: number | undefined): number | undefined =>
  column === NO_CTIME ? undefined : column;

/** A version 4 document's columns as read; an entry still in them is held by its position. */
export interface Columns {
  /** {@link KEY_WIDTH} numbers per entry: dev, ino, size, mtimeMs, ctimeMs, storedAt, and `shared` × 2 (+ 1: `size` is the file's). */
  readonly keys: readonly number[];
  readonly frontmatter: readonly Readonly<Record<string, unknown>>[];
  readonly shared: readonly Readonly<Record<string, unknown>>[];
}

/** What the cache holds for a path: an entry, or the position of one still in the file's columns. */
export type Held = Entry | number;

export const NO_COLUMNS: Columns = { keys: [], frontmatter: [], shared: [] };

/** The head of the entry at `at` of `columns`, made and frozen on use. */
export function headAt(columns: Columns, at: number): SkillHead {
  const code = columns.keys[at * KEY_WIDTH + K_SHARED] as number;
  const shared = columns.shared[Math.floor(code / 2)];
  const frontmatter = columns.frontmatter[at] as Readonly<Record<string, unknown>>;
  // The shared fields, then the head's own.
  const head: { -readonly [K in keyof SkillHead]: SkillHead[K] } = { ...shared, frontmatter };
  if (code % 2 === 1) head.size = columns.keys[at * KEY_WIDTH + K_SIZE] as number;
  return deepFreeze(head);
}

/** The entry at `at` of `columns`, as the other versions hold it. */
export function entryAt(columns: Columns, at: number): Entry {
  const k = at * KEY_WIDTH;
  const keys = columns.keys as number[];
  const ctimeMs = ctimeOf(keys[k + K_CTIME]);
  return {
    dev: keys[k] as number,
    ino: keys[k + 1] as number,
    size: keys[k + K_SIZE] as number,
    mtimeMs: keys[k + K_MTIME] as number,
    ...(ctimeMs === undefined ? {} : { ctimeMs }),
    storedAt: keys[k + K_STORED] as number,
    head: headAt(columns, at),
  };
}
