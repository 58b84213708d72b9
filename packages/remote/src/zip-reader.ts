import { quote, SkillError } from "@skill/core";
import type { Entry, ZipFile } from "yauzl";
import { errorText } from "./text.js";
import { type ArchiveSource, MAX_BACKLOG, refuse, type Unpacker } from "./unpacker.js";

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

async function openZip(source: ArchiveSource): Promise<ZipFile> {
  const yauzl = await import("yauzl");
  const zipLib = (yauzl as unknown as { default?: typeof yauzl }).default ?? yauzl;
  try {
    const options = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true };
    return await (typeof source === "string"
      ? zipLib.openPromise(source, options)
      : zipLib.fromBufferPromise(Buffer.from(source.buffer, source.byteOffset, source.byteLength), options));
  } catch (error) {
    throw refuse("INTEGRITY_ERROR", `it is not a valid .zip (${errorText(error)})`);
  }
}

/** An entry's name as UTF-8, with its raw bytes; a name that is not UTF-8 refuses the archive. */
function nameOf(entry: Entry, decoder: { decode(input: Uint8Array): string }): { name: string; raw: Buffer } {
  const raw =
    (entry as unknown as { fileNameRaw?: Buffer }).fileNameRaw ?? (entry.fileName as unknown as Buffer);
  try {
    return { name: decoder.decode(raw), raw };
  } catch {
    throw refuse("UNSAFE_PATH", `an entry name is not valid UTF-8 (${quote(raw.toString("latin1"))})`);
  }
}

/** Refuses an entry whose local header says something else than the central directory. */
async function checkLocalHeader(zip: ZipFile, entry: Entry, name: string, raw: Buffer): Promise<void> {
  const header = await zip.readLocalFileHeaderPromise(entry).catch((error: unknown) => {
    throw refuse("INTEGRITY_ERROR", `entry ${quote(name)} has no valid local header (${errorText(error)})`);
  });
  const sizesKnown = (entry.generalPurposeBitFlag & 8) === 0;
  const disagrees =
    !Buffer.from(header.fileName).equals(raw) ||
    header.compressionMethod !== entry.compressionMethod ||
    (sizesKnown && header.crc32 !== entry.crc32) ||
    (sizesKnown && header.compressedSize !== 0xffffffff && header.compressedSize !== entry.compressedSize) ||
    (sizesKnown &&
      header.uncompressedSize !== 0xffffffff &&
      header.uncompressedSize !== entry.uncompressedSize);
  if (disagrees) {
    throw refuse(
      "INTEGRITY_ERROR",
      `entry ${quote(name)}: its central directory record and its local header disagree (${quote(Buffer.from(header.fileName).toString("utf8"))})`,
    );
  }
}

/** Refuses an entry that is neither a folder, a regular file nor a symlink, or that cannot be read. */
function checkKind(entry: Entry, name: string, mode: number): void {
  if (mode !== 0 && mode !== 0o100000 && mode !== S_IFLNK) {
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
}

async function readLinkTarget(stream: AsyncIterable<Buffer>, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > 4096) throw refuse("UNSAFE_PATH", `symlink ${quote(name)} has a target over 4 KiB`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** One zip entry: a folder or link is noted, a regular file streamed to the unpacker, anything else refused. */
async function readEntry(
  zip: ZipFile,
  entry: Entry,
  u: Unpacker,
  decoder: { decode(input: Uint8Array): string },
  signal: AbortSignal | undefined,
): Promise<void> {
  const { name, raw } = nameOf(entry, decoder);
  await checkLocalHeader(zip, entry, name, raw);
  const unix = entry.versionMadeBy >> 8 === 3;
  const mode = unix ? (entry.externalFileAttributes >>> 16) & S_IFMT : 0;
  if (name.endsWith("/") || mode === 0o040000) {
    u.entry(name, true);
    return;
  }
  const path = u.entry(name, false);
  checkKind(entry, name, mode);
  if (path === "") throw refuse("UNSAFE_PATH", `entry ${quote(name)} has no name`);
  const stream = await zip.openReadStreamPromise(entry);
  if (mode === S_IFLNK) {
    u.links.push({ path, target: await readLinkTarget(stream, name), hard: false });
    return;
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

/** Unpacks a `.zip` into `u`, entry by entry, each checked against its local header. */
export async function unpackZip(
  source: ArchiveSource,
  u: Unpacker,
  signal: AbortSignal | undefined,
): Promise<void> {
  const zip = await openZip(source);
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
      await readEntry(zip, entry, u, decoder, signal);
    }
  } finally {
    zip.close();
  }
}
