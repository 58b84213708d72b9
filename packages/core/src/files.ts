import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { SKILL_FILE } from "./constants.js";
import { SkillError } from "./errors.js";
import { compareCodeUnits } from "./text.js";

/** Folders below the skill folder that the walk enters, at most. */
const MAX_DEPTH = 8;
/** Directory entries the walk looks at, at most: a skill folder holding a whole tree stays cheap. */
const MAX_ENTRIES = 10_000;

function skipped(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * Files bundled with the skill whose SKILL.md is at `location`: relative to its folder,
 * `/`-separated, sorted by code unit, at most `limit`. Leaves out the SKILL.md itself,
 * dot-folders, dotfiles and `node_modules`; does not enter symlinked folders (a symlinked
 * file is listed when it points at a file). Bounded: at most 8 levels and 10,000 entries.
 */
export async function listSkillFiles(
  location: string,
  options: { readonly limit: number; readonly signal?: AbortSignal },
): Promise<string[]> {
  const root = dirname(location);
  const found: string[] = [];
  let seen = 0;
  const queue: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: "", depth: 0 }];
  for (let next = queue.shift(); next !== undefined && seen < MAX_ENTRIES; next = queue.shift()) {
    if (options.signal?.aborted) {
      throw new SkillError("ABORTED", `Listing the files of ${location} was aborted`, {
        cause: options.signal.reason,
      });
    }
    let entries: Dirent[];
    try {
      entries = await readdir(next.dir, { withFileTypes: true });
    } catch {
      continue; // an unreadable or vanished folder has nothing to list
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) break;
      if (skipped(entry.name)) continue;
      const rel = next.rel === "" ? entry.name : `${next.rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (next.depth < MAX_DEPTH)
          queue.push({ dir: join(next.dir, entry.name), rel, depth: next.depth + 1 });
      } else if (entry.isFile()) {
        if (rel !== SKILL_FILE) found.push(rel);
      } else if (entry.isSymbolicLink()) {
        const target = await stat(join(next.dir, entry.name)).catch(() => undefined);
        if (target?.isFile() && rel !== SKILL_FILE) found.push(rel);
      }
    }
  }
  return found.sort(compareCodeUnits).slice(0, options.limit);
}

/**
 * A source's own file list, held to the same rules as a walk: relative `/`-separated paths
 * only (absolute paths, `..` segments, backslashes and NUL are dropped), no SKILL.md, no
 * dot-folders or `node_modules`, de-duplicated, sorted, at most `limit`.
 */
export function normalizeFileList(files: unknown, limit: number): string[] {
  if (!Array.isArray(files)) return [];
  const kept = new Set<string>();
  for (const file of files) {
    if (typeof file !== "string" || file === "" || file.startsWith("/")) continue;
    if (file.includes("\\") || file.includes("\0")) continue;
    const parts = file.split("/");
    if (parts.some((p) => p === "" || p === "." || p === ".." || skipped(p))) continue;
    if (file === SKILL_FILE) continue;
    kept.add(file);
  }
  return [...kept].sort(compareCodeUnits).slice(0, limit);
}
