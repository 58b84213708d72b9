import { relative, sep } from "node:path";
import { compareCodeUnits, readInside, SkillError, sha256Digest, skillFiles } from "@skill/core";
import { presentFiles, type SkillState } from "./cache-state.js";

/** How a cached skill folder differs from what was pulled and verified. */
export interface SkillCheck {
  /** No SHA-256 recorded for some file (a cache from before they were kept): nothing was compared. */
  readonly unverifiable: boolean;
  /** Recorded files, in order, whose bytes differ from their recorded SHA-256. */
  readonly modified: readonly string[];
  /** Recorded files gone (or reached only through a link). */
  readonly missing: readonly string[];
  /** Files in the folder that no pull put there; a folder too large to list names where it stopped. */
  readonly extra: readonly string[];
}

/**
 * Whether a cached file still holds the bytes recorded for it, read through core's reader (a
 * link leaving the folder is never followed) and never past its recorded size; `undefined`
 * when it cannot be read.
 */
async function matches(
  dir: string,
  file: string,
  size: number,
  sha256: string,
): Promise<boolean | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readInside(dir, file, { maxBytes: size });
  } catch (error) {
    // Larger than what was pulled: modified, and not worth reading.
    if (SkillError.isInstance(error) && error.code === "LIMIT_EXCEEDED") return false;
    return undefined;
  }
  return sha256Digest(bytes) === `sha256:${sha256}`;
}

/**
 * What the cached skill folder holds, as core's walker lists it: every file, dot-files,
 * nested skills and links included (a link is never followed out), so that anything planted
 * there that a skill could serve is seen. A folder too large to list is itself the problem.
 */
async function listed(dir: string): Promise<{ files: string[] } | { tooLarge: string }> {
  try {
    const files = await skillFiles(dir, {
      hidden: true,
      nested: true,
      links: true,
      limit: Number.POSITIVE_INFINITY,
      maxBytes: Number.POSITIVE_INFINITY,
    });
    return { files: files.map((f) => f.path) };
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "LIMIT_EXCEEDED") {
      return { tooLarge: error.path ?? dir };
    }
    return { files: [] }; // gone or unreadable: every recorded file is then missing
  }
}

/**
 * Compares a cached skill folder with the state its pull recorded: re-hashes every recorded
 * file (read through core's reader, and only when it is a regular file reached without a
 * link), and lists what else the folder holds. `verifyCache` reports it; `pull` restores a skill that differs.
 */
export async function checkCachedSkill(
  dir: string,
  skill: SkillState,
  present?: ReadonlySet<string>,
): Promise<SkillCheck> {
  const recorded = Object.entries(skill.files).sort(([a], [b]) => compareCodeUnits(a, b));
  const here =
    present ??
    (await presentFiles(
      dir,
      recorded.map(([file]) => file),
    ));
  const missing: string[] = [];
  const modified: string[] = [];
  const unverifiable = recorded.some(([, f]) => f.sha256 === undefined);
  for (const [file, meta] of recorded) {
    if (!here.has(file)) missing.push(file);
    else if (!unverifiable) {
      const found = await matches(dir, file, meta.size, meta.sha256 as string);
      if (found === undefined) missing.push(file);
      else if (!found) modified.push(file);
    }
  }
  if (unverifiable) return { unverifiable, modified, missing, extra: [] };
  const known = new Set(recorded.map(([file]) => file));
  const found = await listed(dir);
  const extra =
    "tooLarge" in found
      ? [relative(dir, found.tooLarge).split(sep).join("/")]
      : found.files.filter((file) => !known.has(file));
  return { unverifiable, modified, missing, extra };
}
