import { readFileSync } from "node:fs";
import { sep } from "node:path";
import { fdir } from "fdir";
import type { SkillPair } from "../checksum.js";
import type { TreeLayout } from "../tree.js";
import { readNameAndDescription } from "./floor.js";
import type { LocalOutput } from "./types.js";

const SKILL_FILE = `${sep}SKILL.md`;

/** The frontmatter block of a SKILL.md (opening line excluded), or `undefined` without a closing `---`. */
export function frontmatterOf(text: string): string | undefined {
  if (!text.startsWith("---")) return undefined;
  const close = text.indexOf("\n---", 3);
  return close === -1 ? undefined : text.slice(0, close + 4);
}

/**
 * The synchronous floor: one fdir `crawl().sync()` over every root (a missing root is an
 * empty crawl), `readFileSync` of each SKILL.md, the closing `---` found with `indexOf`. No
 * YAML, no field reading inside the clock: the name and description are read from the kept
 * frontmatter blocks only when the checksum is computed, after the clock stops.
 */
export async function run(layout: TreeLayout): Promise<LocalOutput> {
  const blocks: string[] = [];
  for (const root of layout.roots) {
    const paths = new fdir()
      .withFullPaths()
      .exclude((name) => name === "node_modules" || name === ".git")
      .filter((path) => path.endsWith(SKILL_FILE))
      .crawl(root)
      .sync();
    for (const path of paths) {
      const block = frontmatterOf(readFileSync(path, "utf8"));
      if (block !== undefined) blocks.push(block);
    }
  }
  return {
    found: blocks.length,
    pairs: () => blocks.map(readNameAndDescription).filter((p): p is SkillPair => p !== undefined),
  };
}
