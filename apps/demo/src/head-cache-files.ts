// The CLI's head cache files: one per project and preset below the user's skill cache, and
// the removal of those no project has written for a month.
import { lstat, readdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { skillCacheHome } from "@skill/core";
import type { DiscoveryPreset } from "@skill/discovery";

/** A project's cache file not written for this long is removed when another one is written. */
export const STALE_CACHE_MS = 30 * 24 * 60 * 60 * 1000;
/** A temporary file a crashed write left beside the cache files is removed after this long. */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;

/** How the CLI names a project's cache file, and the temporary files core's writer makes beside one. */
const CACHE_NAME = /^[0-9a-f]{16}\.json$/;
const TEMP_NAME = /^\.[0-9a-f]{16}\.json\.write-/;

/**
 * `heads/<hash>.json` below the user's skill cache, named for the project a command runs in
 * and its preset: a run stats each unchanged SKILL.md instead of reading it, reads only its
 * own project's heads (one file for every folder of a repository: entries are keyed by path),
 * and two presets' load rules never evict each other's.
 */
export function headCacheFile(
  project: string,
  preset: DiscoveryPreset,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const key = `${project}\0${preset}`;
  return join(skillCacheHome(env), "heads", `${fnv1a(key, 0x811c9dc5)}${fnv1a(key, 0x01000193)}.json`);
}

/**
 * FNV-1a over UTF-16 code units, as 8 hex digits: names a cache file without loading
 * node:crypto at start-up. Two names that collide share a file, keyed by path inside: it
 * costs reads, never a wrong head.
 */
function fnv1a(text: string, seed: number): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, "0");
}

/**
 * After a run that wrote `file` (its mtime is `since` or later), removes the other cache files
 * of its folder that no run has written for {@link STALE_CACHE_MS}, and temporary files left by
 * writes that crashed a day ago or more. A project whose file went costs one run that reads
 * every SKILL.md. Only regular files named as this CLI names them are removed (a link is
 * never followed); anything that fails is passed over: a cache is never worth an error.
 * Returns the names removed.
 */
export async function pruneHeadCaches(
  file: string,
  since: number,
  now: number = Date.now(),
): Promise<string[]> {
  const removed: string[] = [];
  try {
    if ((await lstat(file)).mtimeMs < since) return removed; // nothing written this run
    const dir = dirname(file);
    // Only in a real folder: a `heads` that is a link leads to files that are not ours.
    if (!(await lstat(dir)).isDirectory()) return removed;
    for (const name of await readdir(dir)) {
      const stale = CACHE_NAME.test(name)
        ? name !== basename(file) && STALE_CACHE_MS
        : TEMP_NAME.test(name) && STALE_TEMP_MS;
      if (stale === false) continue;
      const path = join(dir, name);
      const stats = await lstat(path).catch(() => undefined);
      if (stats?.isFile() !== true || stats.mtimeMs > now - stale) continue;
      await unlink(path).then(
        () => removed.push(name),
        () => {},
      );
    }
  } catch {
    // No cache written, or its folder unreadable: nothing to tidy.
  }
  return removed;
}
