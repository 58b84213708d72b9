import { rm } from "node:fs/promises";
import { compareCodeUnits, quote, redactUrl, SkillError, type SkillFolderStage } from "@skill/core";
import { archiveFormat, unpackArchive } from "./archive.js";
import { type FileState, type SkillState, table } from "./cache-state.js";
import { fetchBody } from "./fetch-body.js";
import type { RemoteSkillEntry } from "./manifest.js";
import type { PullContext } from "./pull-context.js";

// A v0.2 entry's artifact: one SKILL.md or an archive, pinned by its digest, downloaded,
// verified and written into core's stage of the skill folder.

/** Bytes of an archive kept in memory; a larger one goes to a file as it streams. */
const ARCHIVE_IN_MEMORY = 1024 * 1024;

/** An artifact URL of a v0.2 entry, resolved against the index URL: http(s), no credentials. */
export function artifactUrl(raw: string, indexUrl: string): string {
  let url: URL;
  try {
    url = new URL(raw, indexUrl);
  } catch {
    throw new SkillError("INVALID_URL", `Invalid "url" ${quote(redactUrl(raw))} in ${indexUrl}`, {
      url: redactUrl(raw),
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SkillError("INVALID_URL", `Invalid "url" ${quote(redactUrl(raw))}: not http(s)`, {
      url: redactUrl(raw),
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw new SkillError("INVALID_URL", `Invalid "url" ${quote(redactUrl(raw))}: it holds credentials`, {
      url: redactUrl(raw),
    });
  }
  url.hash = "";
  return url.href;
}

/** How progress events name a v0.2 artifact: `SKILL.md`, or the archive's file name. */
export function artifactName(entry: RemoteSkillEntry): string {
  if (entry.type !== "archive") return "SKILL.md";
  const last = (entry.url ?? "").split(/[?#]/)[0]?.split("/").pop();
  return last || "archive";
}

function integrityError(url: string, found: string, expected: string): SkillError {
  return new SkillError(
    "INTEGRITY_ERROR",
    `Digest mismatch: ${url} has sha256:${found}, the index says ${expected}`,
    { url },
  );
}

function countPackFiles(ctx: PullContext, n: number): void {
  ctx.packFiles.count += n;
  if (ctx.packFiles.count > ctx.settings.maxPackFiles) {
    throw new SkillError(
      "LIMIT_EXCEEDED",
      `the pack holds more than ${ctx.settings.maxPackFiles} files (maxPackFiles)`,
    );
  }
}

/** A staged v0.2 skill: its state, where the skill folder is in the stage, and its SKILL.md's bytes when held. */
export interface Pinned {
  readonly state: SkillState;
  /** `""`, or the archive's single top-level folder that holds the skill. */
  readonly prefix: string;
  readonly skillMd?: Uint8Array;
}

/**
 * Downloads a v0.2 artifact, checks its digest, and writes the skill folder it holds into
 * `stage` (an archive of a few hundred KiB is held in memory until it is verified and unpacked;
 * a larger one streams to `download`, a file beside the scratch folder, removed after).
 */
export async function fetchPinned(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  stage: SkillFolderStage,
  download: string,
): Promise<Pinned> {
  const url = artifactUrl(entry.url as string, ctx.indexUrl);
  const expected = entry.digest as string;
  const signal = ctx.signal ?? new AbortController().signal;
  const common = {
    type: entry.type,
    url,
    digest: expected,
    ...(entry.version ? { version: entry.version } : {}),
  };
  if (entry.type === "skill-md") {
    const got = await ctx.limit(() => fetchBody(ctx, url, undefined, signal));
    if (`sha256:${got.sha256}` !== expected) throw integrityError(url, got.sha256, expected);
    const body = got.body ?? Buffer.alloc(0);
    await stage.write("SKILL.md", body);
    ctx.settings.emit({ type: "file", skill: entry.name, file: "SKILL.md", bytes: got.bytes, cached: false });
    const files = table<FileState>();
    files["SKILL.md"] = { size: got.bytes, sha256: got.sha256 };
    return { state: { ...common, files } as SkillState, prefix: "", skillMd: body };
  }
  // Only an archive too large to hold in memory is written to `download`: otherwise there is nothing to remove.
  const spilled = { wrote: false };
  try {
    return await unpackPinned(
      ctx,
      entry,
      stage,
      url,
      { spillAt: ARCHIVE_IN_MEMORY, file: download, spilled },
      common,
    );
  } finally {
    if (spilled.wrote) await rm(download, { force: true }).catch(() => {});
  }
}

async function unpackPinned(
  ctx: PullContext,
  entry: RemoteSkillEntry,
  stage: SkillFolderStage,
  url: string,
  archive: { spillAt: number; file: string; spilled: { wrote: boolean } },
  common: object,
): Promise<Pinned> {
  const expected = entry.digest as string;
  const signal = ctx.signal ?? new AbortController().signal;
  // Only the request takes a request slot: unpacking runs beside the next downloads.
  const got = await ctx.limit(() => fetchBody(ctx, url, undefined, signal, undefined, archive));
  if (`sha256:${got.sha256}` !== expected) throw integrityError(url, got.sha256, expected);
  // The slot just freed starts its next request now; the unpack's synchronous work (inflating,
  // parsing the tar) waits one turn of the event loop, so it does not hold that request back.
  await new Promise((resolve) => setImmediate(resolve));
  ctx.settings.emit({
    type: "file",
    skill: entry.name,
    file: artifactName(entry),
    bytes: got.bytes,
    cached: false,
  });
  const format = archiveFormat(got.contentType, got.url, got.head);
  if (!format) {
    throw new SkillError(
      "INVALID_FIELD",
      `Cannot tell the archive format of ${url} (Content-Type ${quote(got.contentType ?? "")}; expected .tar.gz or .zip)`,
      { url },
    );
  }
  let unpacked: Awaited<ReturnType<typeof unpackArchive>>;
  try {
    const limits = { maxFiles: ctx.settings.maxArchiveFiles, maxBytes: ctx.settings.maxUnpackedBytes };
    unpacked = await unpackArchive(got.body ?? archive.file, format, stage, limits, signal);
  } catch (error) {
    if (SkillError.isInstance(error) && error.code !== "ABORTED" && error.url === undefined) {
      throw new SkillError(error.code, `${error.message} (${url})`, { url, cause: error });
    }
    throw error;
  }
  countPackFiles(ctx, unpacked.files.size - 1);
  const files = table<FileState>();
  for (const [path, f] of [...unpacked.files].sort(([a], [b]) => compareCodeUnits(a, b))) files[path] = f;
  return {
    state: { ...common, files } as SkillState,
    prefix: unpacked.prefix,
    ...(unpacked.skillMd === undefined ? {} : { skillMd: unpacked.skillMd }),
  };
}
