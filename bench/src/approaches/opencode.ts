import { readFile, stat } from "node:fs/promises";
import { glob } from "glob";
import matter from "gray-matter";
import type { TreeLayout } from "../layout.js";
import type { ChildOutput, SkillPair } from "../protocol.js";

// What opencode does: root by root, glob `**/SKILL.md` (following symlinks, dot folders included),
// then gray-matter on every match at once. Pruned like the others (opencode would find the decoys).
export async function run(layout: TreeLayout): Promise<ChildOutput> {
  const pairs: SkillPair[] = [];
  const parse = async (file: string): Promise<SkillPair> => {
    const { data } = matter(await readFile(file, "utf8"));
    return { name: String(data.name), description: String(data.description) };
  };
  for (const root of layout.roots) {
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) continue;
    const ignore = ["**/node_modules/**", "**/.git/**"];
    const options = { cwd: root, absolute: true, follow: true, dot: true, ignore };
    pairs.push(...(await Promise.all((await glob("**/SKILL.md", options)).map(parse))));
  }
  return { found: pairs.length, pairs };
}
