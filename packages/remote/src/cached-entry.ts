import { basename, dirname, join } from "node:path";
import {
  quote,
  readInside,
  type ScanContext,
  SKILL_FILE,
  SkillError,
  type SourceEntry,
  sha256Digest,
} from "@skill/core";
import { type FileState, readState, type SkillState } from "./cache-state.js";
import type { PullResult } from "./options.js";

function integrityError(dir: string, path: string, reason: string): SkillError {
  const where = join(dir, ...path.split("/"));
  return new SkillError(
    "INTEGRITY_ERROR",
    `Cached remote skill file ${where} ${reason}; nothing of it was used (pull the pack again to restore it)`,
    { path: where },
  );
}

/** The bytes of `path` in a cached skill folder, read by core's safe reader and checked against its recorded SHA-256. */
async function verifiedRead(
  dir: string,
  path: string,
  recorded: FileState | undefined,
  ctx: ScanContext,
): Promise<Uint8Array> {
  if (recorded?.sha256 === undefined) {
    throw integrityError(dir, path, "is not part of what was pulled");
  }
  let bytes: Uint8Array;
  try {
    bytes = await readInside(dir, path, {
      maxBytes: recorded.size,
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    });
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "LIMIT_EXCEEDED") {
      throw integrityError(dir, path, `is larger than the ${recorded.size} bytes that were pulled`);
    }
    throw error;
  }
  const found = sha256Digest(bytes);
  if (found !== `sha256:${recorded.sha256}`) {
    throw integrityError(
      dir,
      path,
      `no longer matches what was pulled (${found}, recorded ${quote(`sha256:${recorded.sha256}`)})`,
    );
  }
  return bytes;
}

/**
 * The source entry of one cached skill: its `SKILL.md` path and origin, and what core needs to
 * refuse bytes that are no longer what was pulled. With a recorded frontmatter, the entry has a
 * `head` (frontmatter, size, digest): nothing is read at load, and `SkillService.read` verifies
 * the bytes against it (`INTEGRITY_ERROR`). Without one, `read` checks the recorded SHA-256.
 * Bundled files are read through `readFile`, each checked against its recorded SHA-256. A cache
 * with nothing recorded (written before digests were kept) gives a plain file entry.
 */
export function cachedEntry(location: string, origin: string, skill: SkillState | undefined): SourceEntry {
  const md = skill?.files[SKILL_FILE];
  if (!skill || md?.sha256 === undefined) return { location, origin };
  const dir = dirname(location);
  const readFile = (path: string, ctx: ScanContext) => verifiedRead(dir, path, skill.files[path], ctx);
  if (skill.frontmatter !== undefined) {
    return {
      location,
      origin,
      head: { frontmatter: skill.frontmatter, digest: `sha256:${md.sha256}`, size: md.size },
      readFile,
    };
  }
  return { location, origin, read: (ctx) => verifiedRead(dir, SKILL_FILE, md, ctx), readFile };
}

/** The entries of a pull's (or the cache's) result, in its order, each with what was recorded for it. */
export async function cachedEntries(result: PullResult, origin: string): Promise<SourceEntry[]> {
  const state = await readState(result.dir);
  return result.files.map((location) =>
    cachedEntry(location, origin, state?.skills[basename(dirname(location))]),
  );
}
