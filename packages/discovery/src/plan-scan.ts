import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, sep } from "node:path";
import type { Diagnostic } from "@skill/core";
import { SKILL_FILE, scanRoots } from "./scan.js";
import type { ScanPlan } from "./sources.js";

/** What one scan of the watched plans found. */
export interface PlanScan {
  /** Every folder the scanner entered, by real path: the paths it was reached at. */
  readonly reachedOf: Map<string, Set<string>>;
  /** The `SKILL.md` files found. */
  readonly files: Set<string>;
  /** Roots that do not exist (yet). */
  readonly missing: string[];
  readonly warnings: Diagnostic[];
}

/** Scans the plans as their sources would, noting every folder entered. */
export async function scanPlans(plans: readonly ScanPlan[]): Promise<PlanScan> {
  const reachedOf = new Map<string, Set<string>>();
  const files = new Set<string>();
  const missing: string[] = [];
  const warnings: Diagnostic[] = [];
  for (const p of plans) {
    const found = await scanRoots(p.dirs, {
      ...p.options,
      onWarning: (d) => warnings.push(d),
      onMissingRoot: (root) => missing.push(root),
      onDir: (path, real) => addReached(reachedOf, real, path),
    });
    for (const f of found) files.add(f);
    // A root that is a SKILL.md itself is watched through its folder.
    for (const root of p.dirs) {
      if (basename(root) !== SKILL_FILE || !files.has(root)) continue;
      const folder = dirname(root);
      const real = realFolder(folder);
      if (real !== undefined) addReached(reachedOf, real, folder);
    }
  }
  return { reachedOf, files, missing, warnings };
}

function addReached(reachedOf: Map<string, Set<string>>, real: string, path: string): void {
  const set = reachedOf.get(real);
  if (set) set.add(path);
  else reachedOf.set(real, new Set([path]));
}

/**
 * The folders to watch for missing roots: the nearest existing folder of each, with the names
 * (the next step toward a root) whose appearance there calls for a rescan.
 */
export function anchorsFor(missing: readonly string[]): Map<string, Set<string>> {
  const wanted = new Map<string, Set<string>>();
  for (const root of missing) {
    const anchor = nearestExisting(root);
    const next = root.slice(anchor.length + (anchor.endsWith(sep) ? 0 : 1)).split(sep)[0] ?? "";
    const set = wanted.get(anchor);
    if (set) set.add(next);
    else wanted.set(anchor, new Set([next]));
  }
  return wanted;
}

/**
 * The nearest folder at or above `dir`. Anything that is not a folder we can look at counts as
 * missing: a file where a folder should be (`ENOTDIR`), a loop, a folder we may not enter.
 */
function nearestExisting(dir: string): string {
  let current = dir;
  for (;;) {
    if (isFolder(current)) return current;
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}

function realFolder(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
