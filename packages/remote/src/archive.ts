import { createHash, type Hash } from "node:crypto";
import { constants, createReadStream } from "node:fs";
import { copyFile, type FileHandle, mkdir, open, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createGunzip, gunzipSync } from "node:zlib";
import {
  DEFAULT_MAX_BYTES,
  errnoOf,
  formatBytes,
  quote,
  resolveInside,
  SkillError,
  type SkillErrorCode,
} from "@skill/core";
import { BLOCK_BYTES } from "./http.js";
import { fileProblem, foldKey } from "./safe-path.js";
import { errorText } from "./text.js";

export type ArchiveFormat = "tar.gz" | "zip";

export interface UnpackLimits {
  /** Most entries (files, folders, links). */
  readonly maxFiles: number;
  /** Most bytes unpacked, each file counted as at least one block. */
  readonly maxBytes: number;
}

/** A file the archive unpacked to: its size and SHA-256 (hex). */
export interface UnpackedFile {
  readonly size: number;
  readonly sha256: string;
}

/**
 * The format of an archive: from its `Content-Type`, else from the URL's extension, else from
 * its first bytes.
 */
export function archiveFormat(
  contentType: string | undefined,
  url: string,
  head: Uint8Array,
): ArchiveFormat | undefined {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/zip" || type === "application/x-zip-compressed") return "zip";
  if (type === "application/gzip" || type === "application/x-gzip" || type === "application/x-tar")
    return "tar.gz";
  const named = formatByExtension(new URL(url).pathname);
  if (named) return named;
  if (head[0] === 0x50 && head[1] === 0x4b) return "zip";
  if (head[0] === 0x1f && head[1] === 0x8b) return "tar.gz";
  return undefined;
}

/** The format an archive's path names by its extension, if any. */
function formatByExtension(path: string): ArchiveFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith(".zip")) return "zip";
  if (lower.endsWith(".tar.gz") || lower.endsWith(".tgz")) return "tar.gz";
  return undefined;
}

function refuse(code: SkillErrorCode, reason: string): SkillError {
  return new SkillError(code, `Refused the archive: ${reason}`);
}

interface Link {
  readonly path: string;
  readonly target: string;
  readonly hard: boolean;
}

/** A file being unpacked: its bytes wait in memory until the write queue reaches them. */
interface OpenFile {
  readonly path: string;
  handle?: FileHandle | undefined;
  chunks: Uint8Array[];
  bytes: number;
}

/** The largest `SKILL.md` whose bytes an unpack hands back (as core reads one: `DEFAULT_MAX_BYTES`). */
const HEAD_BYTES = DEFAULT_MAX_BYTES;

/** Bytes a file holds in memory before they are queued for writing. */
const WRITE_BATCH = 256 * 1024;
/** Bytes queued but not yet written, past which the reader waits for the disk. */
const MAX_BACKLOG = 1024 * 1024;

function writeError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError("WRITE_ERROR", `Failed to unpack ${quote(path)} (${errorText(error)})`, {
    cause: error,
  });
}

/**
 * Collects an archive's entries into a raw folder, enforcing every rule as they stream. Every
 * rule, count and hash is applied synchronously as entries arrive; the folders and files are
 * made by one queue of asynchronous writes (in order), so a pull's downloads go on while the
 * disk works. {@link settle} waits for the queue and reports its first failure.
 */
class Unpacker {
  readonly files = new Map<string, { path: string; size: number; sha256: string }>();
  /** The bytes of each `SKILL.md` at the root or one folder down, by path, up to {@link HEAD_BYTES}. */
  readonly heads = new Map<string, Buffer>();
  readonly dirs = new Set<string>();
  readonly links: Link[] = [];
  readonly #seen = new Set<string>();
  /** Files being written: closed (and reported truncated) if the archive ends or fails first. */
  readonly open = new Set<OpenFile>();
  /** Folders (relative to `raw`) already queued for creation. */
  readonly #made = new Set<string>();
  #queue: Promise<void> = Promise.resolve();
  #failure: SkillError | undefined;
  #backlog = 0;
  #entries = 0;
  #bytes = 0;

  constructor(
    readonly raw: string,
    readonly limits: UnpackLimits,
  ) {}

  /** The first write that failed, if any. */
  get failure(): SkillError | undefined {
    return this.#failure;
  }

  /** Bytes handed to the writer and not yet on disk. */
  get backlog(): number {
    return this.#backlog;
  }

  #enqueue(path: string, op: () => Promise<void>): void {
    this.#queue = this.#queue.then(async () => {
      if (this.#failure) return;
      try {
        await op();
      } catch (error) {
        this.#failure ??= writeError(error, path);
      }
    });
  }

  #flush(file: OpenFile): void {
    if (file.bytes === 0) return;
    const body = file.chunks.length === 1 ? (file.chunks[0] as Uint8Array) : Buffer.concat(file.chunks);
    file.chunks = [];
    file.bytes = 0;
    this.#enqueue(file.path, async () => {
      const handle = file.handle as FileHandle;
      for (let offset = 0; offset < body.byteLength; ) {
        const { bytesWritten } = await handle.write(body, offset, body.byteLength - offset);
        offset += bytesWritten;
      }
      this.#backlog -= body.byteLength;
    });
  }

  /** Waits until every queued write is on disk; throws the first that failed. */
  async settle(): Promise<void> {
    await this.#queue;
    if (this.#failure) throw this.#failure;
  }

  /** Counts one entry; returns its checked path (`""` for the archive's root folder). */
  entry(name: string, isDir: boolean): string {
    if (++this.#entries > this.limits.maxFiles) {
      throw refuse("LIMIT_EXCEEDED", `it holds more than ${this.limits.maxFiles} entries (maxArchiveFiles)`);
    }
    if (name.includes("\\") || name.includes("\0")) {
      throw refuse("UNSAFE_PATH", `entry ${quote(name)} holds a backslash or NUL`);
    }
    if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) {
      throw refuse("UNSAFE_PATH", `entry ${quote(name)} is an absolute path`);
    }
    const parts = name
      .split("/")
      .filter((p, i, all) => p !== "." && !(p === "" && (i === all.length - 1 || i === 0)));
    if (parts.includes("..")) throw refuse("UNSAFE_PATH", `entry ${quote(name)} has a ".." segment`);
    const path = parts.join("/");
    if (path === "") return "";
    const problem = fileProblem(path);
    if (problem) throw refuse("UNSAFE_PATH", `entry ${quote(name)}: ${problem}`);
    const key = foldKey(path);
    if (isDir) {
      if (this.files.has(key)) throw refuse("UNSAFE_PATH", `${quote(path)} is both a file and a folder`);
      this.dirs.add(key);
      return path;
    }
    if (this.#seen.has(key) || this.dirs.has(key)) {
      throw refuse("UNSAFE_PATH", `it holds ${quote(path)} twice (names are compared case-insensitively)`);
    }
    this.#seen.add(key);
    return path;
  }

  count(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.limits.maxBytes) {
      throw refuse(
        "LIMIT_EXCEEDED",
        `it unpacks to more than ${formatBytes(this.limits.maxBytes)} (maxUnpackedBytes); stopped while inflating`,
      );
    }
  }

  /**
   * Starts a regular file; the returned writer counts and hashes synchronously, and queues the
   * bytes for the disk. An `executable` entry (any x bit in the archive) is written 0755, every
   * other one 0644: the archive's other mode bits (setuid, world-writable) are never taken.
   */
  start(
    path: string,
    expected?: number,
    executable = false,
  ): { write(chunk: Uint8Array): void; end(): void } {
    // The entry name passed `fileProblem` already; core's path rule still places it.
    const dest = resolveInside(this.raw, path);
    const parent = path.split("/").slice(0, -1);
    for (let i = 1; i <= parent.length; i++) {
      const key = foldKey(parent.slice(0, i).join("/"));
      if (this.files.has(key))
        throw refuse(
          "UNSAFE_PATH",
          `${quote(path)} is inside the file ${quote(parent.slice(0, i).join("/"))}`,
        );
      this.dirs.add(key);
    }
    const file: OpenFile = { path, chunks: [], bytes: 0 };
    this.open.add(file);
    const folder = parent.join("/");
    const mkdirFirst = folder !== "" && !this.#made.has(folder);
    for (let i = 1; i <= parent.length; i++) this.#made.add(parent.slice(0, i).join("/"));
    this.#enqueue(path, async () => {
      if (mkdirFirst) await mkdir(join(this.raw, ...parent), { recursive: true, mode: 0o755 });
      file.handle = await open(
        dest,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        executable ? 0o755 : 0o644,
      );
    });
    const hash: Hash = createHash("sha256");
    let size = 0;
    const head: Uint8Array[] | undefined = /^([^/]+\/)?SKILL\.md$/.test(path) ? [] : undefined;
    return {
      write: (chunk) => {
        this.count(chunk.byteLength);
        size += chunk.byteLength;
        hash.update(chunk);
        if (head && size <= HEAD_BYTES) head.push(chunk);
        file.chunks.push(chunk);
        file.bytes += chunk.byteLength;
        this.#backlog += chunk.byteLength;
        if (file.bytes >= WRITE_BATCH) this.#flush(file);
      },
      end: () => {
        if (!this.open.delete(file)) return;
        this.#flush(file);
        this.#enqueue(path, async () => {
          const handle = file.handle;
          file.handle = undefined;
          await handle?.close();
        });
        if (expected !== undefined && size !== expected) {
          throw refuse("INTEGRITY_ERROR", `it ends inside ${quote(path)} (${size} of ${expected} bytes)`);
        }
        if (size < BLOCK_BYTES) this.count(BLOCK_BYTES - size);
        this.files.set(foldKey(path), { path, size, sha256: hash.digest("hex") });
        if (head && size <= HEAD_BYTES) this.heads.set(path, Buffer.concat(head));
      },
    };
  }

  /**
   * Waits for the queue, then closes what a failure or a truncated archive left open; returns the
   * first such path.
   */
  async close(): Promise<string | undefined> {
    await this.#queue;
    const first = this.open.values().next().value?.path;
    for (const file of this.open) await file.handle?.close().catch(() => {});
    this.open.clear();
    return first;
  }
}

/**
 * Follows `path` segment by segment through the archive's own symlinks. Returns the path it
 * lands on, or `undefined` when it leaves the archive's root. Not core's `resolveInside`: a link
 * target inside an archive may climb with `..` and still land inside, and the names it walks
 * are archive entries, not files on disk (entry names themselves pass the stricter
 * `fileProblem` rule in `Unpacker.entry`).
 */
function followArchiveLinks(
  start: readonly string[],
  links: ReadonlyMap<string, Link>,
): string[] | undefined {
  const parts: string[] = [];
  const queue = [...start];
  let hops = 0;
  while (queue.length > 0) {
    const segment = queue.shift() as string;
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
      continue;
    }
    parts.push(segment);
    const link = links.get(foldKey(parts.join("/")));
    if (link && !link.hard) {
      if (++hops > 40) throw refuse("UNSAFE_PATH", `symlink ${quote(link.path)} is part of a loop`);
      if (link.target.startsWith("/")) return undefined;
      parts.pop();
      queue.unshift(...link.target.split("/"));
    }
  }
  return parts;
}

/** Links become copies of the file they name; one that leaves `prefix` refuses the archive. */
async function settleLinks(u: Unpacker, prefix: string): Promise<void> {
  const symlinks = new Map(u.links.filter((l) => !l.hard).map((l) => [foldKey(l.path), l]));
  // First every link's reach (so a chain that leaves is named as such), then what each lands on.
  const landed = u.links.map((link) => {
    const kind = link.hard ? "hard link" : "symlink";
    const leaves = () =>
      refuse(
        "UNSAFE_PATH",
        `${kind} ${quote(link.path)} points at ${quote(link.target)}, outside the skill folder`,
      );
    if (
      link.target.startsWith("/") ||
      link.target.includes("\\") ||
      link.target.includes("\0") ||
      link.target === ""
    ) {
      throw leaves();
    }
    const from = link.hard
      ? link.target.split("/")
      : [...link.path.split("/").slice(0, -1), ...link.target.split("/")];
    const resolved = followArchiveLinks(from, symlinks);
    const inside =
      resolved !== undefined && (prefix === "" || (resolved.length > 1 && resolved[0] === prefix));
    if (!resolved || !inside) throw leaves();
    return { link, kind, resolved };
  });
  for (const { link, kind, resolved } of landed) {
    const target = u.files.get(foldKey(resolved.join("/")));
    if (!target) {
      throw refuse(
        "UNSAFE_PATH",
        `${kind} ${quote(link.path)} points at ${quote(link.target)}, which is not a file in the archive`,
      );
    }
    const dest = resolveInside(u.raw, link.path);
    await mkdir(dirname(dest), { recursive: true });
    await copyFile(resolveInside(u.raw, target.path), dest, constants.COPYFILE_EXCL);
    u.count(Math.max(target.size, BLOCK_BYTES));
    u.files.set(foldKey(link.path), { path: link.path, size: target.size, sha256: target.sha256 });
  }
}

/**
 * Starts loading the readers of the formats the archives at `urls` appear to be in (by
 * extension; tar when unsure), so a pull compiles them while its first downloads are in flight
 * rather than after the first arrives. A failure here is ignored: the unpack reports it.
 */
export function preloadArchiveReaders(urls: readonly string[]): void {
  const isZip = (url: string) => formatByExtension(url.split(/[?#]/, 1)[0] ?? "") === "zip";
  const zip = urls.some(isZip);
  const tar = urls.some((u) => !isZip(u));
  if (tar) import("tar").catch(() => {});
  if (zip) import("yauzl").catch(() => {});
}

/** Where an archive's bytes are: a file, or memory. */
export type ArchiveSource = string | Uint8Array;

async function unpackTar(source: ArchiveSource, u: Unpacker, signal: AbortSignal | undefined): Promise<void> {
  const { Parser } = await import("tar");
  const parser = new Parser({ strict: true });
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
  };
  parser.on("error", fail);
  parser.on("warn", (code: string, message: string | Error) => {
    fail(refuse("INTEGRITY_ERROR", `it is not a valid tar archive (${code}: ${errorText(message)})`));
  });
  parser.on("entry", (entry: import("tar").ReadEntry) => {
    if (failure) {
      entry.resume();
      return;
    }
    try {
      const type = entry.type;
      if (type === "Directory") {
        u.entry(entry.path, true);
        entry.resume();
        return;
      }
      if (type === "SymbolicLink" || type === "Link") {
        const path = u.entry(entry.path, false);
        u.links.push({ path, target: entry.linkpath ?? "", hard: type === "Link" });
        entry.resume();
        return;
      }
      if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile") {
        u.entry(entry.path, false);
        const what =
          type === "CharacterDevice" || type === "BlockDevice"
            ? "a device"
            : type === "FIFO"
              ? "a FIFO"
              : `an entry of type ${quote(type)}`;
        throw refuse("UNSAFE_PATH", `entry ${quote(entry.path)} is ${what}`);
      }
      const path = u.entry(entry.path, false);
      if (path === "")
        throw refuse("UNSAFE_PATH", `entry ${quote(entry.path)} is a file at the root's own name`);
      const out = u.start(path, entry.size, ((entry.mode ?? 0) & 0o111) !== 0);
      entry.on("data", (chunk: Buffer) => {
        if (failure) return;
        try {
          out.write(chunk);
        } catch (error) {
          fail(error);
        }
      });
      entry.on("end", () => {
        if (failure) return;
        try {
          out.end();
        } catch (error) {
          fail(error);
        }
      });
    } catch (error) {
      fail(error);
      entry.resume();
    }
  });

  const limit = u.limits.maxBytes + (u.limits.maxFiles + 8) * 3 * 512 + 1024 * 1024;
  let inflated = 0;
  let tail = Buffer.alloc(0);
  const chunks = gunzipped(source, limit, u);
  try {
    for await (const chunk of chunks) {
      if (signal?.aborted) throw signal.reason;
      inflated += chunk.byteLength;
      if (inflated > limit) u.count(u.limits.maxBytes + 1);
      tail = Buffer.concat([tail, chunk.subarray(-1024)]).subarray(-1024);
      parser.write(chunk);
      if (u.backlog > MAX_BACKLOG) await u.settle();
      if (failure || u.failure) break;
    }
    // A tar ends with two zero blocks; without them it was cut short, perhaps between entries.
    if (!failure && (inflated % 512 !== 0 || tail.length < 1024 || tail.some((b) => b !== 0))) {
      fail(refuse("INTEGRITY_ERROR", "it is cut short (no end-of-archive blocks)"));
    }
    if (!failure) await new Promise<void>((resolve) => parser.end(resolve));
  } catch (error) {
    if (SkillError.isInstance(error) || signal?.aborted) fail(error);
    else fail(refuse("INTEGRITY_ERROR", `it is not a valid .tar.gz (${errorText(error)})`));
  } finally {
    await chunks.return(undefined);
  }
  if (failure) throw failure;
}

/** A gzip held in memory up to this size is inflated in one synchronous call (no stream, no thread). */
const INFLATE_AT_ONCE = 64 * 1024;
const INFLATED_CHUNK = 64 * 1024;

/**
 * The inflated bytes of a `.tar.gz`, in chunks: a small one in memory at once (never past
 * `limit`: past it the unpack limit is reported), anything else as a stream.
 */
async function* gunzipped(source: ArchiveSource, limit: number, u: Unpacker): AsyncGenerator<Buffer> {
  if (typeof source !== "string" && source.byteLength <= INFLATE_AT_ONCE) {
    let whole: Buffer;
    try {
      whole = gunzipSync(source, { maxOutputLength: limit + 1 });
    } catch (error) {
      if (errnoOf(error) === "ERR_BUFFER_TOO_LARGE") u.count(u.limits.maxBytes + 1);
      throw error;
    }
    for (let at = 0; at < whole.byteLength; at += INFLATED_CHUNK)
      yield whole.subarray(at, at + INFLATED_CHUNK);
    return;
  }
  const gunzip = createGunzip();
  const stream = typeof source === "string" ? createReadStream(source).pipe(gunzip) : gunzip;
  if (typeof source !== "string") gunzip.end(source);
  try {
    yield* stream as AsyncIterable<Buffer>;
  } finally {
    stream.destroy();
  }
}

const S_IFMT = 0o170000;

async function unpackZip(source: ArchiveSource, u: Unpacker, signal: AbortSignal | undefined): Promise<void> {
  const yauzl = await import("yauzl");
  const zipLib = (yauzl as unknown as { default?: typeof yauzl }).default ?? yauzl;
  let zip: import("yauzl").ZipFile;
  try {
    const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true };
    zip = await (typeof source === "string"
      ? zipLib.openPromise(source, options)
      : zipLib.fromBufferPromise(Buffer.from(source.buffer, source.byteOffset, source.byteLength), options));
  } catch (error) {
    throw refuse("INTEGRITY_ERROR", `it is not a valid .zip (${errorText(error)})`);
  }
  try {
    if (zip.entryCount > u.limits.maxFiles) {
      throw refuse(
        "LIMIT_EXCEEDED",
        `it holds ${zip.entryCount} entries, more than ${u.limits.maxFiles} (maxArchiveFiles)`,
      );
    }
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for await (const entry of zip.eachEntry()) {
      if (signal?.aborted) throw signal.reason;
      const rawName =
        (entry as unknown as { fileNameRaw?: Buffer }).fileNameRaw ?? (entry.fileName as unknown as Buffer);
      let name: string;
      try {
        name = decoder.decode(rawName);
      } catch {
        throw refuse(
          "UNSAFE_PATH",
          `an entry name is not valid UTF-8 (${quote(rawName.toString("latin1"))})`,
        );
      }
      const header = await zip.readLocalFileHeaderPromise(entry).catch((error: unknown) => {
        throw refuse(
          "INTEGRITY_ERROR",
          `entry ${quote(name)} has no valid local header (${errorText(error)})`,
        );
      });
      const sizesKnown = (entry.generalPurposeBitFlag & 8) === 0;
      const disagrees =
        !Buffer.from(header.fileName).equals(rawName) ||
        header.compressionMethod !== entry.compressionMethod ||
        (sizesKnown && header.crc32 !== entry.crc32) ||
        (sizesKnown &&
          header.compressedSize !== 0xffffffff &&
          header.compressedSize !== entry.compressedSize) ||
        (sizesKnown &&
          header.uncompressedSize !== 0xffffffff &&
          header.uncompressedSize !== entry.uncompressedSize);
      if (disagrees) {
        throw refuse(
          "INTEGRITY_ERROR",
          `entry ${quote(name)}: its central directory record and its local header disagree (${quote(Buffer.from(header.fileName).toString("utf8"))})`,
        );
      }
      const unix = entry.versionMadeBy >> 8 === 3;
      const mode = unix ? (entry.externalFileAttributes >>> 16) & S_IFMT : 0;
      const isDir = name.endsWith("/") || mode === 0o040000;
      if (isDir) {
        u.entry(name, true);
        continue;
      }
      if (mode !== 0 && mode !== 0o100000 && mode !== 0o120000) {
        u.entry(name, false);
        const what =
          mode === 0o010000
            ? "a FIFO"
            : mode === 0o020000 || mode === 0o060000
              ? "a device"
              : "not a regular file";
        throw refuse("UNSAFE_PATH", `entry ${quote(name)} is ${what}`);
      }
      if (entry.isEncrypted()) throw refuse("INTEGRITY_ERROR", `entry ${quote(name)} is encrypted`);
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw refuse(
          "INTEGRITY_ERROR",
          `entry ${quote(name)} uses compression method ${entry.compressionMethod}`,
        );
      }
      const path = u.entry(name, false);
      if (path === "") throw refuse("UNSAFE_PATH", `entry ${quote(name)} has no name`);
      const stream = await zip.openReadStreamPromise(entry);
      if (mode === 0o120000) {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.byteLength;
          if (size > 4096) throw refuse("UNSAFE_PATH", `symlink ${quote(name)} has a target over 4 KiB`);
          chunks.push(chunk);
        }
        u.links.push({ path, target: Buffer.concat(chunks).toString("utf8"), hard: false });
        continue;
      }
      const out = u.start(path, undefined, unix && ((entry.externalFileAttributes >>> 16) & 0o111) !== 0);
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (signal?.aborted) throw signal.reason;
          out.write(chunk);
          if (u.backlog > MAX_BACKLOG) await u.settle();
        }
      } catch (error) {
        stream.destroy();
        if (SkillError.isInstance(error) || signal?.aborted) throw error;
        throw refuse("INTEGRITY_ERROR", `entry ${quote(name)} is damaged (${errorText(error)})`);
      }
      out.end();
    }
  } finally {
    zip.close();
  }
}

/** What an archive unpacked to: the skill folder and every file in it, by path. */
export interface Unpacked {
  /** `raw`, or its single top-level folder when the archive wraps the skill in one. */
  readonly root: string;
  readonly files: Map<string, UnpackedFile>;
  /**
   * The bytes written to `<root>/SKILL.md` when it was a regular entry of at most
   * `DEFAULT_MAX_BYTES` (so its head can be read without reading the file back).
   */
  readonly skillMd?: Buffer;
}

/**
 * Unpacks a verified archive into the empty folder `raw`, refusing the whole archive on an
 * absolute path, a `..` segment, a backslash or NUL, a link leaving the skill folder, a device
 * or FIFO, a duplicate name, too many entries or bytes (counted while inflating), a zip whose
 * central directory and local headers disagree, or no `SKILL.md` at its root (or inside its
 * single top-level folder). Links inside the folder become copies of their target. On failure
 * `raw` may hold part of the archive: the caller removes it.
 *
 * @throws SkillError `UNSAFE_PATH`, `LIMIT_EXCEEDED`, `INTEGRITY_ERROR`, `MISSING_FIELD`, `WRITE_ERROR`
 */
export async function unpackArchive(
  source: ArchiveSource,
  format: ArchiveFormat,
  raw: string,
  limits: UnpackLimits,
  signal?: AbortSignal,
): Promise<Unpacked> {
  const u = new Unpacker(raw, limits);
  try {
    if (format === "zip") await unpackZip(source, u, signal);
    else await unpackTar(source, u, signal);
    await u.settle();
    const cut = await u.close();
    if (cut !== undefined) throw refuse("INTEGRITY_ERROR", `it ends inside ${quote(cut)}`);
    // SKILL.md at the root, or inside the single top-level folder when the root holds nothing else.
    const top = new Set([...u.files.values(), ...u.links].map((f) => f.path.split("/")[0] as string));
    for (const d of u.dirs) top.add(d.split("/")[0] as string);
    let prefix = "";
    if (!u.files.has(foldKey("SKILL.md")) || u.files.get(foldKey("SKILL.md"))?.path !== "SKILL.md") {
      const only = top.size === 1 ? ([...top][0] as string) : undefined;
      const inner = only === undefined ? undefined : u.files.get(foldKey(`${only}/SKILL.md`));
      if (only === undefined || inner?.path !== `${only}/SKILL.md`) {
        throw refuse(
          "MISSING_FIELD",
          "it has no SKILL.md at its root (nor inside a single top-level folder)",
        );
      }
      prefix = only;
    }
    await settleLinks(u, prefix);
    const files = new Map<string, UnpackedFile>();
    for (const f of u.files.values()) {
      const path = prefix === "" ? f.path : f.path.slice(prefix.length + 1);
      files.set(path, { size: f.size, sha256: f.sha256 });
    }
    // `raw` is the caller's own empty folder; only a single top-level folder needs the check.
    const root = prefix === "" ? raw : join(raw, prefix);
    if (prefix !== "" && !(await stat(root)).isDirectory())
      throw refuse("MISSING_FIELD", "its skill folder is not a folder");
    const skillMd = u.heads.get(prefix === "" ? "SKILL.md" : `${prefix}/SKILL.md`);
    return { root, files, ...(skillMd === undefined ? {} : { skillMd }) };
  } finally {
    await u.close();
  }
}
