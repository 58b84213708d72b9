import { readFileSync, statSync } from "node:fs";
import { sep } from "node:path";
import { fdir } from "fdir";
import type { SkillPair } from "../checksum.js";
import type { TreeLayout } from "../tree.js";
import type { LocalOutput } from "./types.js";

const SKILL_FILE = `${sep}SKILL.md`;
const FIELD = /^(name|description):[ \t]*(.*)$/;

/** Whether `path` is a folder (a missing path is not). */
export function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** SKILL.md paths under `root`, never entering `node_modules` or `.git`. */
export function crawlSkillFiles(root: string): string[] {
  return new fdir()
    .withFullPaths()
    .exclude((name) => name === "node_modules" || name === ".git")
    .filter((path) => path.endsWith(SKILL_FILE))
    .crawl(root)
    .sync();
}

/**
 * Name and description of a SKILL.md without a YAML parser: finds the closing `---`, then reads
 * the two top-level fields line by line. It understands exactly what the generator writes
 * (plain, double-quoted with `\"`/`\\` escapes, single-quoted, and `>`/`|` block scalars with
 * one indentation level) and nothing more.
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
    if (first === '"') {
      value = JSON.parse(value) as string;
    } else if (first === "'") {
      value = value.slice(1, -1).replaceAll("''", "'");
    } else if (first === ">" || first === "|") {
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

/** The floor: a bare fdir crawl, synchronous reads, no YAML. */
export async function run(layout: TreeLayout): Promise<LocalOutput> {
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
