// @module-tag slow: builds and times a search index over the request set.
import type { SkillMetadata } from "@skill/core";
import { describe, expect, it } from "vitest";
import { run as indexFloor } from "./approaches/index-floor.js";
import { buildWithSummaries, run } from "./approaches/search.js";
import {
  catalogSkills,
  recallOf,
  scaledCatalog,
  searchRequests,
  substringRanker,
  untunedMiniSearchRanker,
} from "./search-set.js";

const skill = (name: string, description: string): SkillMetadata => ({
  name,
  description,
  location: `/s/${name}/SKILL.md`,
  frontmatter: { name, description },
  origin: "manual",
  modelInvocable: true,
  userInvocable: true,
});

describe("the search set", () => {
  it("reads the catalog and the requests, whose answers are all in it", () => {
    const names = new Set(catalogSkills().map((s) => s.name));
    const requests = searchRequests();
    expect(names.size).toBeGreaterThanOrEqual(1_000);
    expect(requests.length).toBeGreaterThanOrEqual(150);
    expect(requests.flatMap((r) => r.expected).filter((n) => !names.has(n))).toEqual([]);
  });

  it("scales the catalog under new names, deterministically", () => {
    const a = scaledCatalog(4_000, 7);
    expect(a).toHaveLength(4_000);
    expect(new Set(a.map((s) => s.name)).size).toBe(4_000);
    expect(scaledCatalog(4_000, 7)).toEqual(a);
    expect(a.at(-1)?.name).toMatch(/-3$/);
    expect(a.some((s) => s.summary !== undefined)).toBe(false);
    const summarized = scaledCatalog(4_000, 7, true);
    expect(summarized.map((s) => s.name)).toEqual(a.map((s) => s.name));
    expect(summarized.filter((s) => s.summary !== undefined).length).toBeGreaterThan(1_500);
  });
});

describe("the baselines", () => {
  const skills = [
    skill("pdf", "Fill in PDF forms and merge files."),
    skill("apdf", "PDF reports."),
    skill("docx", "Word documents and forms."),
  ];

  it("substring: most query words found first, ties by name, words under 3 letters ignored", () => {
    const rank = substringRanker(skills);
    expect(rank("fill a pdf form", 5)).toEqual(["pdf", "apdf", "docx"]);
    expect(rank("a an of", 5)).toEqual([]);
    expect(rank("pdf", 1)).toEqual(["apdf"]);
  });

  it("untuned MiniSearch: whole words only, no typos or stems", () => {
    const rank = untunedMiniSearchRanker(skills);
    expect(rank("merge", 5)).toEqual(["pdf"]);
    expect(rank("pdff", 5)).toEqual([]);
    expect(rank("merging", 5)).toEqual([]);
  });

  it("recall counts an expected skill in the first five", () => {
    const rank = (query: string) => (query === "a" ? ["x", "y"] : ["y", "z", "w", "v", "u", "t"]);
    expect(
      recallOf(rank, [
        { query: "a", expected: ["x"] },
        { query: "b", expected: ["u"] },
        { query: "c", expected: ["t"] },
        { query: "d", expected: ["q"] },
      ]),
    ).toBe(0.5);
  });
});

describe("the search child", () => {
  it("times a small index and measures recall of ours above both baselines", async () => {
    const { found, samples = {} } = await run({
      skills: 2_000,
      seed: 1,
      builds: 1,
      replaces: 3,
      queryRounds: 1,
    });
    expect(found).toBe(2_000);
    expect(samples.coldBuild).toBeGreaterThan(0);
    expect(samples.replace).toHaveLength(3);
    expect(samples.query).toHaveLength(Number(samples.requests));
    expect(samples["ours@5"]).toBeGreaterThanOrEqual(0.85);
    expect(samples["ours@5"]).toBeGreaterThan(
      Math.max(Number(samples["substring@5"]), Number(samples["minisearch@5"])),
    );
  }, 30_000);

  it("times a build of skills that carry body summaries", async () => {
    const built = await buildWithSummaries({ skills: 500, seed: 1 });
    expect(built.found).toBe(500);
    expect(built.wallMs).toBeGreaterThan(0);
    expect(built.samples?.summaries).toBeGreaterThan(100);
  });

  it("times the references' builds of the same skills: a bare word map and untuned MiniSearch", async () => {
    const map = await indexFloor({ skills: 500, seed: 1, kind: "word-map" });
    const mini = await indexFloor({ skills: 500, seed: 1, kind: "minisearch" });
    for (const built of [map, mini]) {
      expect(built.found).toBe(500);
      expect(built.wallMs).toBeGreaterThan(0);
    }
    // The same words either way: MiniSearch keeps each word of both fields, lower-cased.
    expect(map.samples?.terms).toBeGreaterThan(500);
    expect(mini.samples?.terms).toBeGreaterThanOrEqual(Number(map.samples?.terms) * 0.9);
  });
});
