import { readFileSync, statSync } from "node:fs";
import type { SkillPair } from "../checksum.js";
import type { TreeLayout } from "../tree.js";
import { crawlSkillFiles, isDirectory } from "./floor.js";
import type { LocalOutput } from "./types.js";

export interface CrawlStatCacheInput {
  readonly layout: TreeLayout;
  /** The `fileHeadCache` file the warm start reads (format version 3), written by an earlier load. */
  readonly cache: string;
}

/** Numbers per entry in the cache document's `keys`: dev, ino, size, mtimeMs, storedAt, shared. */
const KEY_WIDTH = 6;

/**
 * A warm-start reference: crawl + stat, plus the head cache file ours reads, read and parsed,
 * and each SKILL.md looked up in it by path and checked against its stat (no records after the
 * document, no validation, no registry). What any warm start over that file cannot go below.
 */
export async function run(input: CrawlStatCacheInput): Promise<LocalOutput> {
  const text = readFileSync(input.cache, "utf8");
  const end = text.indexOf("\n");
  const doc = JSON.parse(end === -1 ? text : text.slice(0, end)) as {
    paths: string[];
    keys: number[];
    frontmatter: { name?: unknown; description?: unknown }[];
  };
  const at = new Map<string, number>();
  for (let i = 0; i < doc.paths.length; i++) at.set(doc.paths[i] as string, i);
  const pairs: SkillPair[] = [];
  for (const root of input.layout.roots) {
    if (!isDirectory(root)) continue;
    for (const path of crawlSkillFiles(root)) {
      const stats = statSync(path);
      const i = at.get(path);
      if (i === undefined) continue;
      const k = i * KEY_WIDTH;
      if (
        doc.keys[k] !== stats.dev ||
        doc.keys[k + 1] !== stats.ino ||
        doc.keys[k + 2] !== stats.size ||
        doc.keys[k + 3] !== stats.mtimeMs
      )
        continue;
      const { name, description } = doc.frontmatter[i] ?? {};
      if (typeof name === "string" && typeof description === "string") pairs.push({ name, description });
    }
  }
  return { found: pairs.length, pairs };
}
