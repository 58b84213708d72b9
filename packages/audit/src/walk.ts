import { constants, type Dirent, type Stats } from "node:fs";
import { lstat, open, readdir, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { compareCodeUnits, SkillError } from "@skill/core";

/** One regular file of a skill folder, read up to the limits. */
export interface SkillFileBytes {
  /** Relative to the skill folder, `/`-separated. */
  readonly path: string;
  readonly bytes: Uint8Array;
  /** Size on disk; more than `bytes.length` when the file was cut short. */
  readonly size: number;
  /** Any exec bit set. */
  readonly execBit: boolean;
}

export interface WalkLimits {
  readonly maxFiles: number;
  readonly maxBytes: number;
  readonly maxFileBytes: number;
  readonly signal?: AbortSignal | undefined;
}

export interface WalkResult {
  readonly files: SkillFileBytes[];
  /** Symlinks whose target is outside the skill folder: relative path → link text. */
  readonly escapes: { readonly path: string; readonly target: string }[];
  /** Why the walk stopped early or cut files short; empty when everything was read. */
  readonly limits: { readonly path: string; readonly message: string }[];
  readonly bytes: number;
}

const MAX_DEPTH = 32;
// Never follow a link (the entry was lstat'ed; this guards the swap in between) and never
// block on a FIFO that replaced a file.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function aborted(): SkillError {
  return new SkillError("ABORTED", "Skill audit was aborted");
}

function errno(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
}

function readError(path: string, error: unknown): SkillError {
  return new SkillError("READ_ERROR", `Failed to read skill file: ${path} (${errno(error)})`, {
    path,
    cause: error,
  });
}

/** The SKILL.md of `root` (real path, a regular file inside the folder). */
async function skillFilePath(root: string): Promise<string> {
  const path = join(root, "SKILL.md");
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) throw new SkillError("NOT_FOUND", `Skill file not found: ${path}`, { path });
  let real = path;
  if (info.isSymbolicLink()) {
    real = await realpath(path).catch(() => "");
    if (real === "")
      throw new SkillError("NOT_FOUND", `Skill file not found: ${path} (a dangling symlink)`, { path });
    if (!inside(root, real)) {
      throw new SkillError(
        "UNSAFE_PATH",
        `Refusing to audit ${path}: it is a symlink to ${real}, outside the skill folder`,
        { path },
      );
    }
  }
  const target = real === path ? info : await lstat(real);
  if (!target.isFile()) {
    throw new SkillError("READ_ERROR", `Failed to read skill file: ${path} (not a regular file)`, { path });
  }
  return real;
}

function byName(a: Dirent, b: Dirent): number {
  return compareCodeUnits(a.name, b.name);
}

async function readPrefix(path: string, max: number): Promise<Uint8Array> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const buffer = new Uint8Array(max);
    let filled = 0;
    while (filled < max) {
      const { bytesRead } = await handle.read(buffer, filled, max - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Reads a skill folder within the limits: SKILL.md first, then every other regular file in
 * name order, depth first. Symlinks are never followed (those leaving the folder are
 * reported); FIFOs, sockets and devices are never opened; `.git` is skipped.
 */
export async function walkSkill(root: string, limits: WalkLimits): Promise<WalkResult> {
  const files: SkillFileBytes[] = [];
  const escapes: { path: string; target: string }[] = [];
  const notes: { path: string; message: string }[] = [];
  let bytes = 0;
  let stopped = false;
  // Folders, links and skipped entries count too: a tree of a million empty folders is no cheaper to walk.
  const maxEntries = limits.maxFiles * 10;
  let entriesSeen = 0;

  const take = async (abs: string, rel: string): Promise<void> => {
    if (limits.signal?.aborted) throw aborted();
    if (files.length >= limits.maxFiles) {
      if (!stopped) notes.push({ path: rel, message: `stopped after ${limits.maxFiles} files (maxFiles)` });
      stopped = true;
      return;
    }
    let info: Stats;
    try {
      info = await lstat(abs);
    } catch (error) {
      notes.push({ path: rel, message: `could not read the file (${errno(error)})` });
      return;
    }
    const budget = Math.min(limits.maxFileBytes, limits.maxBytes - bytes);
    if (budget <= 0 && info.size > 0) {
      if (!stopped) notes.push({ path: rel, message: `stopped after ${bytes} bytes (maxBytes)` });
      stopped = true;
      return;
    }
    let data: Uint8Array;
    try {
      data = info.size === 0 ? new Uint8Array(0) : await readPrefix(abs, Math.min(budget, info.size));
    } catch (error) {
      if (rel === "SKILL.md") throw readError(abs, error);
      notes.push({ path: rel, message: `could not read the file (${errno(error)})` });
      return;
    }
    bytes += data.length;
    if (data.length < info.size) {
      const which = budget === limits.maxFileBytes ? "maxFileBytes" : "maxBytes";
      notes.push({
        path: rel,
        message: `read only the first ${data.length} of ${info.size} bytes (${which})`,
      });
    }
    files.push({ path: rel, bytes: data, size: info.size, execBit: (info.mode & 0o111) !== 0 });
  };

  await take(await skillFilePath(root), "SKILL.md");

  const walk = async (dir: string, prefix: string, depth: number): Promise<void> => {
    if (stopped) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      notes.push({
        path: prefix === "" ? "." : prefix.slice(0, -1),
        message: `could not read the folder (${errno(error)})`,
      });
      return;
    }
    for (const entry of entries.sort(byName)) {
      if (stopped) return;
      if (++entriesSeen > maxEntries) {
        notes.push({
          path: `${prefix}${entry.name}`,
          message: `stopped after ${maxEntries} folder entries (10 × maxFiles)`,
        });
        stopped = true;
        return;
      }
      const abs = join(dir, entry.name);
      const rel = `${prefix}${entry.name}`;
      if (entry.isSymbolicLink()) {
        const target = await readlink(abs).catch(() => "");
        const real = await realpath(abs).catch(() => resolve(dir, target));
        if (!inside(root, real)) escapes.push({ path: rel, target });
      } else if (entry.isDirectory()) {
        if (entry.name === ".git") continue;
        if (depth >= MAX_DEPTH)
          notes.push({ path: rel, message: `not entered: deeper than ${MAX_DEPTH} folders` });
        else await walk(abs, `${rel}/`, depth + 1);
      } else if (entry.isFile() && rel !== "SKILL.md") {
        await take(abs, rel);
      }
    }
  };
  await walk(root, "", 0);
  return { files, escapes, limits: notes, bytes };
}
