import { createHash } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import type { FileState } from "./cache-state.js";
import { cacheError } from "./options.js";
import type { PullContext } from "./pull-context.js";
import { request } from "./request.js";

/** What one download brought: its bytes (or where they went), their SHA-256, and its validators. */
export interface Fetched {
  readonly notModified: boolean;
  /** The whole body, unless an archive spilled to its file (`ArchiveFetch`). */
  readonly body?: Buffer;
  readonly bytes: number;
  /** SHA-256 (hex) of the body, hashed as it arrived. */
  readonly sha256: string;
  /** The first bytes, for telling an archive's format. */
  readonly head: Uint8Array;
  readonly url: string;
  readonly contentType?: string;
  readonly etag?: string;
  readonly lastModified?: string;
}

/**
 * How an archive is fetched: held in memory up to `spillAt` bytes; past that, what arrived and
 * the rest go to `file` (a downloaded archive, not a skill path) and `spilled.wrote` is set.
 */
export interface ArchiveFetch {
  readonly spillAt: number;
  readonly file: string;
  readonly spilled: { wrote: boolean };
}

/** A writer of a spilled archive's bytes at increasing positions. */
function spillWriter(archive: ArchiveFetch) {
  let handle: FileHandle | undefined;
  let position = 0;
  return {
    async write(chunk: Uint8Array): Promise<void> {
      try {
        if (!handle) {
          handle = await open(archive.file, "wx");
          archive.spilled.wrote = true;
        }
        for (let offset = 0; offset < chunk.byteLength; ) {
          const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset, position);
          offset += bytesWritten;
          position += bytesWritten;
        }
      } catch (error) {
        throw cacheError(error, archive.file);
      }
    },
    close: () => handle?.close().catch(() => {}),
  };
}

/**
 * Downloads one URL, hashing as the bytes arrive, and holds the body in memory (a file is at
 * most `maxFileBytes`), to be written through core's stage. An `archive` may be
 * `maxArchiveBytes` long and spills to its file past `spillAt` bytes. `cached` validators make
 * the request conditional.
 */
export async function fetchBody(
  ctx: PullContext,
  url: string,
  origin: string | undefined,
  signal: AbortSignal,
  cached?: FileState,
  archive?: ArchiveFetch,
): Promise<Fetched> {
  const headers: Record<string, string> = {};
  if (cached?.etag) headers["if-none-match"] = cached.etag;
  if (cached?.lastModified) headers["if-modified-since"] = cached.lastModified;
  const hash = createHash("sha256");
  let head = new Uint8Array(0);
  let memory: Buffer[] | undefined = [];
  let held = 0;
  const spill = archive && spillWriter(archive);
  try {
    const result = await request(url, {
      fetch: ctx.fetch,
      origin,
      signal,
      timeoutMs: ctx.settings.timeoutMs,
      deadlineMs: ctx.settings.requestTimeoutMs,
      ...(archive
        ? { maxBytes: ctx.settings.maxArchiveBytes, maxBytesOption: "maxArchiveBytes" }
        : { maxBytes: ctx.settings.maxFileBytes }),
      budget: ctx.budget,
      headers,
      credentials: ctx.settings.headers,
      conditional: cached !== undefined && Object.keys(headers).length > 0,
      open: async () => async (chunk) => {
        hash.update(chunk);
        if (head.byteLength < 8) head = Buffer.concat([head, chunk.subarray(0, 8)]);
        if (memory === undefined) return (spill as ReturnType<typeof spillWriter>).write(chunk);
        held += chunk.byteLength;
        memory.push(Buffer.from(chunk));
        if (!spill || held <= (archive as ArchiveFetch).spillAt) return;
        const kept = Buffer.concat(memory);
        memory = undefined;
        await spill.write(kept);
      },
    });
    if (result.notModified) return { notModified: true, bytes: 0, sha256: "", head, url };
    return {
      notModified: false,
      ...(memory === undefined ? {} : { body: Buffer.concat(memory) }),
      bytes: result.bytes,
      sha256: hash.digest("hex"),
      head,
      url: result.url,
      ...(result.contentType === undefined ? {} : { contentType: result.contentType }),
      ...(result.etag === undefined ? {} : { etag: result.etag }),
      ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
    };
  } finally {
    await spill?.close();
  }
}
