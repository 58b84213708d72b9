import { quote, readInside, type SkillFolderStage } from "@skill/core";
import { BLOCK_BYTES } from "./http.js";
import { foldKey } from "./safe-path.js";
import { unpackTar } from "./tar-reader.js";
import {
  type ArchiveSource,
  type Link,
  refuse,
  type UnpackedFile,
  Unpacker,
  type UnpackLimits,
} from "./unpacker.js";
import { unpackZip } from "./zip-reader.js";

export type { ArchiveSource, UnpackedFile, UnpackLimits } from "./unpacker.js";

export type ArchiveFormat = "tar.gz" | "zip";

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
    // Read back through core's reader from the stage it was written to, and written again as a file.
    const bytes = await readInside(u.stage.path, target.path, { maxBytes: target.size });
    await u.stage.write(link.path, bytes, { executable: target.executable });
    u.count(Math.max(target.size, BLOCK_BYTES));
    u.files.set(foldKey(link.path), { ...target, path: link.path });
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

/** What an archive unpacked to: where the skill folder is in the stage, and every file in it, by path. */
export interface Unpacked {
  /** `""`, or the archive's single top-level folder when it wraps the skill in one. */
  readonly prefix: string;
  readonly files: Map<string, UnpackedFile>;
  /**
   * The bytes written to `<prefix>/SKILL.md` when it was a regular entry of at most
   * `DEFAULT_MAX_BYTES` (so its head can be read without reading the file back).
   */
  readonly skillMd?: Buffer;
}

/**
 * Unpacks a verified archive into the empty `stage` (core's `stageSkillFolder`: every file is
 * written by it, new, never through a link), refusing the whole archive on an
 * absolute path, a `..` segment, a backslash or NUL, a link leaving the skill folder, a device
 * or FIFO, a duplicate name, too many entries or bytes (counted while inflating), a zip whose
 * central directory and local headers disagree, or no `SKILL.md` at its root (or inside its
 * single top-level folder). Links inside the folder become copies of their target, read back
 * through core's reader. The caller commits the stage, or aborts it on failure (it may then
 * hold part of the archive).
 *
 * @throws SkillError `UNSAFE_PATH`, `LIMIT_EXCEEDED`, `INTEGRITY_ERROR`, `MISSING_FIELD`, `WRITE_ERROR`
 */
export async function unpackArchive(
  source: ArchiveSource,
  format: ArchiveFormat,
  stage: SkillFolderStage,
  limits: UnpackLimits,
  signal?: AbortSignal,
): Promise<Unpacked> {
  const u = new Unpacker(stage, limits);
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
    // The stage made every folder on the way to `<prefix>/SKILL.md` itself: `prefix` is a folder.
    const skillMd = u.heads.get(prefix === "" ? "SKILL.md" : `${prefix}/SKILL.md`);
    return { prefix, files, ...(skillMd === undefined ? {} : { skillMd }) };
  } finally {
    await u.close();
  }
}
