// The search evaluation set of @skill/search (real skills' metadata and hand-written requests with
// known answers, in packages/search/test/__fixtures__), and the baselines ours is compared with.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareCodeUnits, type SkillMetadata } from "@skill/core";
import MiniSearch from "minisearch";
import { Random, word } from "./random.js";

const SEARCH_FIXTURES = fileURLToPath(new URL("../../packages/search/test/__fixtures__", import.meta.url));

type CatalogEntry = Readonly<
  Record<"name" | "description" | "source", string> & { when_to_use?: string; summary?: string }
>;
export type SearchRequest = { readonly query: string; readonly expected: readonly string[] };

function metadata(
  entry: CatalogEntry,
  name = entry.name,
  description = entry.description,
  summaries = false,
): SkillMetadata {
  const frontmatter: Record<string, unknown> = { name, description };
  if (entry.when_to_use !== undefined) frontmatter.when_to_use = entry.when_to_use;
  const flags = { origin: "manual", modelInvocable: true, userInvocable: true } as const;
  const location = `/catalog/${entry.source}/${name}/SKILL.md`;
  const summary = summaries && entry.summary !== undefined ? { summary: entry.summary } : {};
  return { name, description, location, frontmatter, ...flags, ...summary };
}

const read = <T>(file: string, key: string) =>
  (JSON.parse(readFileSync(join(SEARCH_FIXTURES, file), "utf8")) as Record<string, T[]>)[key] ?? [];

export const catalogSkills = () => read<CatalogEntry>("catalog.json", "skills").map((e) => metadata(e));

export const searchRequests = () => read<SearchRequest>("requests.json", "requests");

/**
 * `count` skills: the real catalog, then again under new names (`pdf-2`) with seeded words added;
 * with `summaries`, each carries the body summary the catalog holds for its original (729 of
 * 1,636 have one), as a load that read SKILL.md would give it.
 */
export function scaledCatalog(count: number, seed: number, summaries = false): SkillMetadata[] {
  const [real, random] = [read<CatalogEntry>("catalog.json", "skills"), new Random(seed)];
  const out: SkillMetadata[] = [];
  for (let round = 1; out.length < count; round++) {
    for (const entry of real.slice(0, count - out.length)) {
      if (round === 1) out.push(metadata(entry, entry.name, entry.description, summaries));
      else {
        const extra = Array.from({ length: random.int(4, 10) }, () => word(random)).join(" ");
        const description = `${entry.description} Also ${extra}.`;
        out.push(metadata(entry, `${entry.name}-${round}`, description, summaries));
      }
    }
  }
  return out;
}

export type Ranker = (query: string, limit: number) => readonly string[];

/** A harness without search: query words of 3+ letters found in name or description, most first. */
export function substringRanker(skills: readonly SkillMetadata[]): Ranker {
  const texts = skills.map((s) => ({ name: s.name, text: `${s.name} ${s.description}`.toLowerCase() }));
  return (query, limit) => {
    const all = new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu));
    const words = [...all].filter((w) => w.length >= 3);
    return texts
      .map(({ name, text }) => ({ name, score: words.filter((w) => text.includes(w)).length }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score || compareCodeUnits(a.name, b.name))
      .slice(0, limit)
      .map((r) => r.name);
  };
}

/** MiniSearch as its README sets it up: name and description fields, every option at its default. */
type Doc = { name: string; description: string };
export function untunedMiniSearch(docs: readonly Doc[]) {
  const mini = new MiniSearch<Doc>({ idField: "name", fields: ["name", "description"] });
  mini.addAll(docs);
  return mini;
}

export function untunedMiniSearchRanker(skills: readonly SkillMetadata[]): Ranker {
  const mini = untunedMiniSearch(skills.map((s) => ({ name: s.name, description: s.description })));
  const ids = (query: string) => mini.search(query).map((r) => String(r.id));
  return (query, limit) => ids(query).slice(0, limit);
}

/** The share of requests with an expected skill among the first five. */
export function recallOf(rank: Ranker, requests: readonly SearchRequest[]): number {
  const hit = (r: SearchRequest) => rank(r.query, 5).some((name, i) => i < 5 && r.expected.includes(name));
  return requests.filter(hit).length / requests.length;
}
