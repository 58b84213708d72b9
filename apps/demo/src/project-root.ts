// Where a project's skills are installed and made, wherever in the project a command runs.
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { findWorktreeRoot, foldersBetween } from "@skill/discovery";

/**
 * The folder a project's installs (and `skill init`) work in, wherever in it a command runs:
 * the nearest folder from `cwd` up to its git worktree's root that holds a `skills-lock.json`
 * (a project managed from there), else the worktree's root (where every agent looks from
 * anywhere in the repository), else `cwd`. Only a worktree this user owns counts, as git's
 * `safe.directory` has it (a `.git` planted in a shared parent folder does not choose where
 * installs go), and a home folder that is itself a worktree (dotfiles) is none: its
 * `.agents/skills` holds the global skills. Paths are compared by real path.
 */
export function projectRoot(cwd: string, home: string): string {
  const here = realOr(cwd);
  const found = findWorktreeRoot(here);
  const top = found === undefined || found === realOr(home) || !ownWorktree(found) ? undefined : found;
  const folders = top === undefined ? [here] : (foldersBetween(top, here) ?? [here]);
  for (const dir of [...folders].reverse()) {
    if (lstatSync(join(dir, "skills-lock.json"), { throwIfNoEntry: false })?.isFile()) return dir;
  }
  return top ?? here;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether `dir`'s `.git` is a git folder or a `gitdir:` file this user owns. */
function ownWorktree(dir: string): boolean {
  const git = join(dir, ".git");
  const stats = lstatSync(git, { throwIfNoEntry: false });
  if (stats === undefined || (process.getuid !== undefined && stats.uid !== process.getuid())) return false;
  if (stats.isDirectory()) return true;
  if (!stats.isFile() || stats.size > 4096) return false;
  try {
    return readFileSync(git, "utf8").startsWith("gitdir:");
  } catch {
    return false;
  }
}
