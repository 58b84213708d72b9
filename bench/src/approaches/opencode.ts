import { readFile, stat } from "node:fs/promises";
import { glob } from "glob";
import matter from "gray-matter";
import type { SkillPair } from "../checksum.js";
import type { TreeLayout } from "../layout.js";
import type { ChildOutput } from "../protocol.js";

async function parse(file: string): Promise<SkillPair> {
  const { data } = matter(await readFile(file, "utf8"));
  return { name: String(data.name), description: String(data.description) };
}

/**
 * What opencode does: root by root, glob `**\/SKILL.md` (following symlinks, dot folders
 * included), then gray-matter on every match at once. Pruned like every other approach: without
 * the ignore glob would return the decoys in `node_modules` (opencode itself does not prune).
 */
export async function run(layout: TreeLayout): Promise<ChildOutput> {
  const pairs: SkillPair[] = [];
  for (const root of layout.roots) {
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) continue;
    const files = await glob("**/SKILL.md", {
      cwd: root,
      absolute: true,
      follow: true,
      dot: true,
      ignore: ["**/node_modules/**", "**/.git/**"],
    });
    pairs.push(...(await Promise.all(files.map(parse))));
  }
  return { found: pairs.length, pairs };
}
