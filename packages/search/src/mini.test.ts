import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { catalogSkills, requests } from "./__fixtures__/skills.js";
import { type Doc, miniSearchOptions } from "./fields.js";
import { fill } from "./fill.js";
import { buildIndex, loadIndex, miniSearchOf } from "./mini.js";
import { Postings } from "./postings.js";
import { type Snapshot, snapshotOf } from "./snapshot.js";

const docs: Doc[] = catalogSkills()
  .slice(0, 400)
  .map((s) => ({
    id: s.name,
    name: s.name,
    description: s.description,
    keywords: "",
    whenToUse: typeof s.frontmatter.when_to_use === "string" ? s.frontmatter.when_to_use : "",
    summary: s.summary ?? "",
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

describe("the one-pass fill", () => {
  // MiniSearch's own `add` is the oracle: the one-pass fill must give the same index.
  const oracle = new MiniSearch<Doc>(miniSearchOptions);
  oracle.addAll(docs);

  it("fills the index MiniSearch#add builds", () => {
    const { mini, vocabulary } = buildIndex(docs);
    expect(mini.documentCount).toBe(oracle.documentCount);
    expect(vocabulary.has("pdf")).toBe(true);
    for (const query of queries) expectSame(mini, oracle, query);
  });

  it("holds exactly what MiniSearch#add holds, for texts of every kind", { tags: ["slow"] }, () => {
    // A seeded mix of what the words of a field are made of and cut at: ASCII words and digits,
    // capitals (names split camelCase), apostrophes of both kinds, controls, other scripts,
    // letters outside the BMP, and enough distinct words that the build's word table grows.
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const pieces = [
      " ",
      " ",
      " ",
      "-",
      "_",
      ".",
      ", ",
      "\t",
      "\n",
      "\r\n",
      "'",
      "\u2019",
      "\u0000",
      "\u007f",
      "pdf",
      "PDF",
      "form",
      "forms",
      "the",
      "and",
      "XMLParser",
      "pdfFormFiller",
      "v2",
      "2024",
      "don't",
      "café",
      "naïve",
      "日本語",
      "слово",
      "\u{1d400}\u{1d401}",
      "😀",
      "e\u0301",
      "''",
      "\u2019s",
      "—",
      "«",
      "Éé",
      "٣",
      "\u00a0",
      "\u2028",
    ];
    const text = (parts: number, plain: boolean) => {
      let out = "";
      for (let i = 0; i < parts; i++) {
        const k = random(plain ? 24 : pieces.length + 3);
        out +=
          k < pieces.length && !(plain && k >= 10 && k <= 13)
            ? (pieces[k] as string)
            : `w${random(30_000).toString(36)}${" -."[random(3)]}`;
      }
      return out;
    };
    const mixed: Doc[] = [];
    for (let i = 0; i < 3_000; i++) {
      const plain = i % 3 !== 0;
      mixed.push({
        id: `doc-${i}`,
        name: i % 5 === 0 ? text(3, false) : `skill-${text(2, true).replace(/[^a-z0-9]+/g, "-")}${i}`,
        description: text(1 + random(40), plain),
        keywords: i % 4 === 0 ? "" : text(random(8), plain),
        whenToUse: i % 6 === 0 ? text(random(12), plain) : "",
        summary: i % 2 === 0 ? text(random(60), plain) : "",
      });
    }
    const ours = snapshotOf(buildIndex(mixed).mini);
    const added = new MiniSearch<Doc>(miniSearchOptions);
    added.addAll(mixed);
    const theirs = snapshotOf(added);
    const byTerm = (terms: Snapshot["terms"]) =>
      [...terms].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    expect(ours.docs).toEqual(theirs.docs);
    expect(theirs.terms.length).toBeGreaterThan(10_000);
    expect(byTerm(ours.terms)).toEqual(byTerm(theirs.terms));
  });

  it("loads its snapshot back, leaving out the documents it is told to", () => {
    const { mini } = buildIndex(docs);
    const snapshot = JSON.parse(JSON.stringify(snapshotOf(mini)));
    const all = loadIndex(snapshot, () => true).mini;
    for (const query of queries.slice(0, 60)) expectSame(all, oracle, query);

    const half = loadIndex(snapshot, (position) => position % 2 === 0).mini;
    const evens = new MiniSearch<Doc>(miniSearchOptions);
    evens.addAll(docs.filter((_, i) => i % 2 === 0));
    expect(half.documentCount).toBe(200);
    for (const query of queries.slice(0, 60)) expectSame(half, evens, query);
  });

  it("gives the same index through MiniSearch's serialized form alone, with the term tree out of reach", () => {
    const viaLoadJS = miniSearchOf(fill(docs), false);
    for (const query of queries) expectSame(viaLoadJS, oracle, query);
    expect(snapshotOf(viaLoadJS)).toEqual(snapshotOf(buildIndex(docs).mini));
  });
});

describe("Postings", () => {
  const ids = Int32Array.from([9, 2, 5, 7, 11, 4]);
  const counts = Int32Array.from([0, 1, 3, 1, 2, 0]);
  // Positions 1..5 of the shared arrays: ids 2, 5, 7, 11.
  const make = () => new Postings(ids, counts, 1, 5);

  it("reads like the Map it stands for, in any order", () => {
    const p = make();
    expect(p.size).toBe(4);
    expect([...p.keys()]).toEqual([2, 5, 7, 11]);
    expect([...p]).toEqual([
      [2, 1],
      [5, 3],
      [7, 1],
      [11, 2],
    ]);
    expect([11, 2, 7, 5, 9, 4, 3].map((id) => p.get(id))).toEqual([
      2,
      1,
      1,
      3,
      undefined,
      undefined,
      undefined,
    ]);
    expect(p.has(7)).toBe(true);
    expect(p.has(9)).toBe(false);
  });

  it("turns into a Map on the first write and leaves the shared arrays alone", () => {
    const p = make();
    p.set(13, 4).set(5, 6);
    expect(p.delete(2)).toBe(true);
    expect(p.delete(2)).toBe(false);
    expect([...p]).toEqual([
      [5, 6],
      [7, 1],
      [11, 2],
      [13, 4],
    ]);
    expect(p.size).toBe(4);
    expect([...ids]).toEqual([9, 2, 5, 7, 11, 4]);
    expect([...counts]).toEqual([0, 1, 3, 1, 2, 0]);
  });
});

describe("MiniSearch after the one-pass fill", () => {
  it("adds and removes documents as MiniSearch#add and #remove do", () => {
    const { mini } = buildIndex(docs.slice(0, 300));
    const oracle = new MiniSearch<Doc>(miniSearchOptions);
    oracle.addAll(docs.slice(0, 300));
    for (const index of [mini, oracle]) {
      for (const doc of docs.slice(0, 300).filter((_, i) => i % 3 === 0)) index.remove(doc);
      index.addAll(docs.slice(300));
    }
    expect(mini.documentCount).toBe(oracle.documentCount);
    for (const query of queries.slice(0, 80)) expectSame(mini, oracle, query);
  });
});
