import { statSync } from "node:fs";
import type { TreeLayout } from "../tree.js";
import { crawlSkillFiles } from "./floor.js";
import type { LocalOutput } from "./types.js";

/** For reference: the floor's crawl alone, reading no file. */
export async function run(layout: TreeLayout): Promise<LocalOutput> {
  let found = 0;
  for (const root of layout.roots) {
    if (statSync(root, { throwIfNoEntry: false })?.isDirectory()) found += crawlSkillFiles(root).length;
  }
  return { found };
}
