import { statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isSkillFileName } from "@skill/core";

/** `~` and `~/x` → under `home`; relative → against `base`; always absolute and normalized. */
export function resolvePath(path: string, base: string, home: string): string {
  if (path === "~") return resolve(home);
  if (path.startsWith("~/") || (sep === "\\" && path.startsWith("~\\"))) return resolve(home, path.slice(2));
  return resolve(base, path);
}

/** True when `path` is `dir` itself or lies below it. Both absolute and normalized. */
export function isWithin(path: string, dir: string): boolean {
  if (path === dir) return true;
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return path.startsWith(prefix);
}

/** `path` relative to `dir` with `/` separators (picomatch speaks POSIX). */
export function posixRelative(dir: string, path: string): string {
  const rel = relative(dir, path);
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/** The nearest folder at or above `cwd` holding a `.git` folder or file (a worktree), if any. */
export function findWorktreeRoot(cwd: string): string | undefined {
  let dir = cwd;
  for (;;) {
    if (statSync(join(dir, ".git"), { throwIfNoEntry: false })) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The folders from `top` down to `cwd`, both included, top first. `undefined` when `top` is
 * not `cwd` or one of its ancestors.
 */
export function foldersBetween(top: string, cwd: string): string[] | undefined {
  if (!isWithin(cwd, top)) return undefined;
  const folders = [cwd];
  let dir = cwd;
  while (dir !== top) {
    dir = dirname(dir);
    folders.push(dir);
  }
  return folders.reverse();
}

/** Whether `path` names a skill's own file in its folder (core's `isSkillFileName`). */
export function isSkillFilePath(path: string): boolean {
  return isSkillFileName(basename(path));
}
