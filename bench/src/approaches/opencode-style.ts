import { readFile, stat } from "node:fs/promises";
import { glob } from "glob";
import matter from "gray-matter";
import type { SkillPair } from "../checksum.js";
import type { TreeLayout } from "../tree.js";
import type { LocalOutput } from "./types.js";

/**
 * Pruned like every other approach: without it glob would return the decoy SKILL.md files in
 * `node_modules` (opencode itself does not prune, so it does more work than this).
 */
const IGNORE = ["**/node_modules/**", "**/.git/**"];

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function parse(file: string): Promise<SkillPair> {
  const { data } = matter(await readFile(file, "utf8"));
  return { name: String(data.name), description: String(data.description) };
}

/**
 * What opencode does: root by root, glob `**\/SKILL.md` (following symlinks, dot folders
 * included), then gray-matter on every match at once.
 */
export async function run(layout: TreeLayout): Promise<LocalOutput> {
  const pairs: SkillPair[] = [];
  for (const root of layout.roots) {
    if (!(await isDirectory(root))) continue;
    const files = await glob("**/SKILL.md", {
      cwd: root,
      absolute: true,
      follow: true,
      dot: true,
      ignore: IGNORE,
    });
    pairs.push(...(await Promise.all(files.map(parse))));
  }
  return { found: pairs.length, pairs };
}
