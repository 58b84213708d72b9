// The floors and references every load is measured against: fdir's crawl, `readFileSync`, no YAML.
import { readFileSync, statSync } from "node:fs";
import { crawlSkillFiles, type TreeLayout, treeSkillFiles } from "../layout.js";
import type { ChildOutput, SkillPair } from "../protocol.js";

const FIELD = /^(name|description):[ \t]*(.*)$/;

/** Name and description without YAML: exactly what the generator writes (plain, quoted, `>`/`|` blocks). */
export function readNameAndDescription(text: string): SkillPair | undefined {
  const close = text.startsWith("---") ? text.indexOf("\n---", 3) : -1;
  if (close === -1) return undefined;
  const lines = text.slice(text.indexOf("\n") + 1, close).split("\n");
  const fields: Record<string, string> = {};
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
    fields[match[1] as string] = value.trim();
  }
  const { name, description } = fields;
  return name === undefined || description === undefined ? undefined : { name, description };
}

/** The frontmatter blocks of the SKILL.md files under `roots`: the closing `---` by `indexOf`, no field read. */
export function frontmatterBlocks(roots: readonly string[]): string[] {
  const blocks: string[] = [];
  for (const path of roots.flatMap(crawlSkillFiles)) {
    const text = readFileSync(path, "utf8");
    const close = text.startsWith("---") ? text.indexOf("\n---", 3) : -1;
    if (close !== -1) blocks.push(text.slice(0, close + 4));
  }
  return blocks;
}

/** The synchronous floor: no field read inside the clock; the blocks are read for the checksum after it. */
export async function syncFloor(layout: TreeLayout): Promise<ChildOutput> {
  const blocks = frontmatterBlocks(layout.roots);
  return { found: blocks.length, pairs: () => blocks.flatMap((b) => readNameAndDescription(b) ?? []) };
}

/** The reference of the warm starts: the crawl and a `statSync` of each SKILL.md, nothing read. */
export async function crawlStat(layout: TreeLayout): Promise<ChildOutput> {
  return { found: treeSkillFiles(layout).filter((path) => statSync(path).isFile()).length };
}
