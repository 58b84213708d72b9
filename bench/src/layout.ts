// Where a generated tree's skills are, and the floor's crawl of its roots.
import { statSync } from "node:fs";
import { join, sep } from "node:path";
import { fdir } from "fdir";

/** Where a harness looks for skills in a generated tree: an empty home, the project, a configured path. */
export interface TreeLayout {
  readonly home: string;
  readonly cwd: string;
  readonly paths: readonly string[];
  /** Every root the default discovery preset scans for this layout, lowest precedence first. */
  readonly roots: readonly string[];
}

export function layoutOf(tree: string): TreeLayout {
  const [home, cwd, team] = [join(tree, "home"), join(tree, "project"), join(tree, "team-skills")];
  const roots = [join(home, ".claude"), join(home, ".agents"), join(cwd, ".claude"), join(cwd, ".agents")];
  return { home, cwd, paths: [team], roots: [...roots.map((r) => join(r, "skills")), team] };
}

export const isDirectory = (path: string) =>
  statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

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

/** The SKILL.md files of a tree's roots (the decoys in `node_modules` left out). */
export const treeSkillFiles = (layout: TreeLayout) =>
  layout.roots.flatMap((root) => (isDirectory(root) ? crawlSkillFiles(root) : []));
