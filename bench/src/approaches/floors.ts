// The floors and references every load is measured against: fdir's crawl, `readFileSync`, no
// YAML. The readers understand exactly what the generator writes and nothing more.
import { readFileSync, statSync } from "node:fs";
import type { SkillPair } from "../checksum.js";
import { crawlSkillFiles, isDirectory, type TreeLayout } from "../layout.js";
import type { ChildOutput } from "../protocol.js";

const FIELD = /^(name|description):[ \t]*(.*)$/;

/** The frontmatter block of a SKILL.md (opening line excluded), or `undefined` without a closing `---`. */
export function frontmatterOf(text: string): string | undefined {
  if (!text.startsWith("---")) return undefined;
  const close = text.indexOf("\n---", 3);
  return close === -1 ? undefined : text.slice(0, close + 4);
}

/**
 * Name and description of a SKILL.md without a YAML parser: finds the closing `---`, then reads
 * the two top-level fields line by line: plain, double-quoted with `\"`/`\\` escapes,
 * single-quoted, and `>`/`|` block scalars with one indentation level.
 */
export function readNameAndDescription(text: string): SkillPair | undefined {
  if (!text.startsWith("---")) return undefined;
  const open = text.indexOf("\n");
  let close = text.indexOf("\n---", open);
  while (close !== -1) {
    const next = text.charCodeAt(close + 4);
    if (Number.isNaN(next) || next === 10 || next === 13) break;
    close = text.indexOf("\n---", close + 4);
  }
  if (open === -1 || close === -1) return undefined;
  const lines = text.slice(open + 1, close).split("\n");
  let name: string | undefined;
  let description: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const match = FIELD.exec((lines[i] as string).trimEnd());
    if (!match) continue;
    let value = match[2] as string;
    const first = value.charAt(0);
    if (first === '"') value = JSON.parse(value) as string;
    else if (first === "'") value = value.slice(1, -1).replaceAll("''", "'");
    else if (first === ">" || first === "|") {
      const block: string[] = [];
      while (i + 1 < lines.length && (lines[i + 1] as string).startsWith(" "))
        block.push((lines[++i] as string).trim());
      value = block.join(first === ">" ? " " : "\n");
    }
    if (match[1] === "name") name = value.trim();
    else description = value.trim();
  }
  return name === undefined || description === undefined ? undefined : { name, description };
}

/**
 * The synchronous floor, the reference of every load target: one fdir `crawl().sync()` per root
 * (a missing root is an empty crawl), `readFileSync` of each SKILL.md, the closing `---` found
 * with `indexOf`. Name and description are read from the kept blocks after the clock stops.
 */
export async function syncFloor(layout: TreeLayout): Promise<ChildOutput> {
  const blocks: string[] = [];
  for (const root of layout.roots) {
    for (const path of crawlSkillFiles(root)) {
      const block = frontmatterOf(readFileSync(path, "utf8"));
      if (block !== undefined) blocks.push(block);
    }
  }
  return {
    found: blocks.length,
    pairs: () => blocks.map(readNameAndDescription).filter((p): p is SkillPair => p !== undefined),
  };
}

/** The line-reader floor of earlier runs: a `stat` of each root, the crawl, names read inside the clock. */
export async function lineFloor(layout: TreeLayout): Promise<ChildOutput> {
  const pairs: SkillPair[] = [];
  for (const root of layout.roots) {
    if (!isDirectory(root)) continue;
    for (const path of crawlSkillFiles(root)) {
      const pair = readNameAndDescription(readFileSync(path, "utf8"));
      if (pair) pairs.push(pair);
    }
  }
  return { found: pairs.length, pairs };
}

/** For reference: the floor's crawl alone, reading no file. */
export async function crawl(layout: TreeLayout): Promise<ChildOutput> {
  let found = 0;
  for (const root of layout.roots) if (isDirectory(root)) found += crawlSkillFiles(root).length;
  return { found };
}

/**
 * The reference of the warm-start targets: the crawl plus one `statSync` of each SKILL.md,
 * nothing read. What a warm start with a perfect head cache cannot go below.
 */
export async function crawlStat(layout: TreeLayout): Promise<ChildOutput> {
  let found = 0;
  for (const root of layout.roots) {
    if (!isDirectory(root)) continue;
    for (const path of crawlSkillFiles(root)) if (statSync(path).isFile()) found++;
  }
  return { found };
}

export interface CacheInput {
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
export async function crawlStatCache(input: CacheInput): Promise<ChildOutput> {
  const text = readFileSync(input.cache, "utf8");
  const end = text.indexOf("\n");
  const doc = JSON.parse(end === -1 ? text : text.slice(0, end)) as {
    paths: string[];
    keys: number[];
    frontmatter: { name?: unknown; description?: unknown }[];
  };
  const at = new Map<string, number>();
  for (let i = 0; i < doc.paths.length; i++) at.set(doc.paths[i] as string, i);
  const { keys } = doc;
  const pairs: SkillPair[] = [];
  for (const root of input.layout.roots) {
    if (!isDirectory(root)) continue;
    for (const path of crawlSkillFiles(root)) {
      const stats = statSync(path);
      const i = at.get(path);
      if (i === undefined) continue;
      const k = i * KEY_WIDTH;
      if (keys[k] !== stats.dev || keys[k + 1] !== stats.ino || keys[k + 2] !== stats.size) continue;
      if (keys[k + 3] !== stats.mtimeMs) continue;
      const { name, description } = doc.frontmatter[i] ?? {};
      if (typeof name === "string" && typeof description === "string") pairs.push({ name, description });
    }
  }
  return { found: pairs.length, pairs };
}
