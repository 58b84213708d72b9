import { statSync } from "node:fs";
import type { TreeLayout } from "../tree.js";
import { crawlSkillFiles, isDirectory } from "./floor.js";
import type { LocalOutput } from "./types.js";

/**
 * The reference of every warm-start target: the floor's crawl plus one `statSync` of each
 * SKILL.md, reading nothing. What a warm start with a perfect head cache cannot go below.
 */
export async function run(layout: TreeLayout): Promise<LocalOutput> {
  let found = 0;
  for (const root of layout.roots) {
    if (!isDirectory(root)) continue;
    for (const path of crawlSkillFiles(root)) if (statSync(path).isFile()) found++;
  }
  return { found };
}
