import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { catalogSkills, requests } from "./__fixtures__/skills.js";
import { type Doc, miniSearchOptions, SkillMiniSearch } from "./mini.js";

const docs: Doc[] = catalogSkills()
  .slice(0, 400)
  .map((s) => ({
    id: s.name,
    name: s.name,
    description: s.description,
    keywords: typeof s.frontmatter.when_to_use === "string" ? s.frontmatter.when_to_use : "",
  }));
const queries = requests().map((r) => r.query);
const options = { fuzzy: 0.2, prefix: true, boost: { name: 3 } };

/** Results in a comparable order: the order of equal scores follows MiniSearch's term tree. */
function results(mini: MiniSearch<Doc>, query: string) {
  return mini
    .search(query, options)
    .map((r) => ({ id: String(r.id), score: r.score, terms: [...r.queryTerms].sort() }))
    .sort((a, b) => Math.round((b.score - a.score) * 1e6) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function expectSame(mini: MiniSearch<Doc>, oracle: MiniSearch<Doc>, query: string): void {
  const ours = results(mini, query);
  const theirs = results(oracle, query);
  expect(
    ours.map((r) => r.id),
    query,
  ).toEqual(theirs.map((r) => r.id));
  ours.forEach((r, i) => {
    expect(r.score).toBeCloseTo(theirs[i]?.score ?? Number.NaN, 9);
    expect(r.terms).toEqual(theirs[i]?.terms);
  });
}

describe("SkillMiniSearch", () => {
  // MiniSearch's own `add` is the oracle: the one-pass fill must give the same index.
  const oracle = new MiniSearch<Doc>(miniSearchOptions);
  oracle.addAll(docs);

  it("fills the index MiniSearch#add builds", () => {
    const { mini, vocabulary } = SkillMiniSearch.of(docs);
    expect(mini.documentCount).toBe(oracle.documentCount);
    expect(vocabulary.has("pdf")).toBe(true);
    for (const query of queries) expectSame(mini, oracle, query);
  });

  it("loads its snapshot back, leaving out the documents it is told to", () => {
    const { mini } = SkillMiniSearch.of(docs);
    const snapshot = JSON.parse(JSON.stringify(mini.snapshot()));
    const all = SkillMiniSearch.load(snapshot, () => true).mini;
    for (const query of queries.slice(0, 60)) expectSame(all, oracle, query);

    const half = SkillMiniSearch.load(snapshot, (position) => position % 2 === 0).mini;
    const evens = new MiniSearch<Doc>(miniSearchOptions);
    evens.addAll(docs.filter((_, i) => i % 2 === 0));
    expect(half.documentCount).toBe(200);
    for (const query of queries.slice(0, 60)) expectSame(half, evens, query);
  });
});
