// Where a generated tree's skills are, and the floor's crawl of its roots: shared by the
// generator, the approaches and the minimal list process.
import { statSync } from "node:fs";
import { join, sep } from "node:path";
import { fdir } from "fdir";

/** Where a harness looks for skills in a generated tree. */
export interface TreeLayout {
  /** The home directory to pass to discovery (holds no skills, so the machine's own are not read). */
  readonly home: string;
  /** The project directory (a git worktree root). */
  readonly cwd: string;
  /** Configured skill paths (`skills.paths`): a cloned skills repository with `.git` and `node_modules`. */
  readonly paths: readonly string[];
  /** Every root the default discovery preset scans for this layout, lowest precedence first. */
  readonly roots: readonly string[];
}

/** The directories of a tree (from its folder, or from its manifest); they do not depend on the seed. */
export function layoutOf(tree: string | TreeLayout): TreeLayout {
  if (typeof tree !== "string")
    return { home: tree.home, cwd: tree.cwd, paths: tree.paths, roots: tree.roots };
  const home = join(tree, "home");
  const cwd = join(tree, "project");
  const team = join(tree, "team-skills");
  const roots = [join(home, ".claude"), join(home, ".agents"), join(cwd, ".claude"), join(cwd, ".agents")];
  return { home, cwd, paths: [team], roots: [...roots.map((r) => join(r, "skills")), team] };
}

/** Whether `path` is a folder (a missing path is not). */
export function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

const SKILL_FILE = `${sep}SKILL.md`;

/** SKILL.md paths under `root` (none when it is missing), never entering `node_modules` or `.git`. */
export function crawlSkillFiles(root: string): string[] {
  return new fdir()
    .withFullPaths()
    .exclude((name) => name === "node_modules" || name === ".git")
    .filter((path) => path.endsWith(SKILL_FILE))
    .crawl(root)
    .sync();
}

/** The SKILL.md files of a tree's roots (decoys in `node_modules` left out). */
export function treeSkillFiles(layout: TreeLayout): string[] {
  return layout.roots.flatMap((root) => (isDirectory(root) ? crawlSkillFiles(root) : []));
}
