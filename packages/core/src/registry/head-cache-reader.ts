import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { readFullySync } from "../files/read-file.js";
import { deepFreeze } from "../parse/json-value.js";
import { errorMessage } from "../util/error-text.js";
import { isMapping } from "../util/mapping.js";
import {
  type Columns,
  FORMAT_VERSION,
  type Held,
  isCount,
  isEntry,
  isId,
  isTime,
  K_CTIME,
  K_MTIME,
  K_SHARED,
  K_SIZE,
  K_STORED,
  KEY_WIDTH,
  NO_COLUMNS,
  NO_CTIME,
  READ_VERSIONS,
} from "./head-cache-format.js";

/** A cache file larger than this is not read (it could not be one this code wrote). */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/**
 * What reading a cache file's text into the entries gave: its columns, the records after its
 * document, the malformed entries dropped, and whether a flush may append to it (the document
 * ends its line). Else the file is an empty cache: `version`, of another format, or `corrupt`, why.
 */
export type DocumentRead =
  | {
      readonly ok: true;
      readonly columns: Columns;
      readonly records: number;
      readonly dropped: number;
      readonly appendable: boolean;
    }
  | { readonly ok: false; readonly version: number }
  | { readonly ok: false; readonly corrupt: string };

/** Reads the text of a cache file (any version this code reads) into `entries`. */
export function readDocument(text: string, entries: Map<string, Held>): DocumentRead {
  // The document is the first line; appended records follow it, one per line.
  const end = text.indexOf("\n");
  let doc: unknown;
  try {
    doc = JSON.parse(end === -1 ? text : text.slice(0, end));
  } catch (error) {
    return { ok: false, corrupt: `it is not JSON (${errorMessage(error)})` };
  }
  if (isMapping(doc) && typeof doc.version === "number" && !READ_VERSIONS.includes(doc.version)) {
    return { ok: false, version: doc.version };
  }
  let columns = NO_COLUMNS;
  let dropped = 0;
  if (isMapping(doc) && doc.version === FORMAT_VERSION && isTime(doc.writtenAt)) {
    const read = readColumns(doc, entries);
    if (typeof read === "string") return { ok: false, corrupt: read };
    columns = read.columns;
    dropped = read.dropped;
  } else if (isMapping(doc) && isTime(doc.writtenAt) && isMapping(doc.entries)) {
    const stored = doc.entries;
    for (const path of Object.keys(stored)) {
      const entry = stored[path];
      if (path !== "" && isEntry(entry)) entries.set(path, entry);
      else dropped++;
    }
  } else {
    return {
      ok: false,
      corrupt: `expected { version: ${FORMAT_VERSION}, writtenAt, paths, keys, shared, frontmatter }`,
    };
  }
  let records = 0;
  if (end !== -1 && end < text.length - 1) {
    const replayed = replayRecords(text, end + 1, entries);
    records = replayed.records;
    dropped += replayed.dropped;
  }
  // A document without its closing newline was cut short where a record would follow, and a
  // record without its own (torn by a crash) would swallow the next one appended after it.
  return { ok: true, columns, records, dropped, appendable: end !== -1 && text.endsWith("\n") };
}

/**
 * Head fields a version 4 document (in columns, as since version 3) stores once for every entry
 * that has them: everything of a head but `frontmatter`, and but `size` when it is the file's
 * own size (most heads).
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
 * Takes the entries of a version 4 document into `entries`, each a position in the columns
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
    const code: unknown = keys[k + K_SHARED];
    if (
      typeof path === "string" &&
      path !== "" &&
      isId(keys[k]) &&
      isId(keys[k + 1]) &&
      isCount(keys[k + K_SIZE]) &&
      isTime(keys[k + K_MTIME]) &&
      isTime(keys[k + K_CTIME]) &&
      (keys[k + K_CTIME] === NO_CTIME || keys[k + K_CTIME] >= 0) &&
      isTime(keys[k + K_STORED]) &&
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
 * Applies the records after the document, in order: `{"path","entry"}` stores (as the most
 * recently used), `{"path"}` deletes. Returns how many records there were, and how many were
 * malformed (a record cut short by a crash is one), each dropped alone.
 */
function replayRecords(
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
