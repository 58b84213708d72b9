import { SkillError, type SkillMetadata } from "@skill/core";
import { describe, expect, it } from "vitest";
import { catalogSkills, skill } from "./__fixtures__/skills.js";
import { createSkillIndex, DEFAULT_SEARCH_LIMIT, loadSkillIndex, MAX_SEARCH_LIMIT } from "./skill-index.js";

const SKILLS: SkillMetadata[] = [
  skill("pdf", "Read, create and edit PDF files: extract text and tables, merge documents, fill in forms."),
  skill("docx", "Create and edit Word documents with tracked changes and comments."),
  skill("xlsx", "Work with spreadsheets: formulas, charts and data analysis in Excel files."),
  skill("skill-creator", "Guide for writing new agent skills and improving existing ones."),
  skill("code_explorer", "Locates the source files and tests related to a bug report."),
  skill("insuranceClaimFiler", "Automates paperwork for insurance claims."),
  skill("python-code-style", "Linting and formatting conventions for Python projects."),
  skill("kubernetes-manifests", "Deployments, services and config maps for a cluster."),
  skill("release-notes", "Drafts a changelog.", { when_to_use: "When shipping a version to customers" }),
  skill("brand-kit", "Applies company colours.", {
    metadata: { keywords: ["typography", "logo"], tags: "palette" },
  }),
];

const names = (hits: readonly { name: string }[]) => hits.map((h) => h.name);

describe("createSkillIndex + search", () => {
  const index = createSkillIndex(SKILLS);

  it("ranks the skill for a plain-words request first", () => {
    expect(index.size).toBe(SKILLS.length);
    const [first] = index.search("fill in a PDF form");
    expect(first?.name).toBe("pdf");
    expect(first?.terms).toEqual(["fill", "pdf", "form"]);
    expect(first?.score).toBeGreaterThan(0);
  });

  it("forgives a typo", () => {
    expect(names(index.search("pdff form"))[0]).toBe("pdf");
    expect(names(index.search("spredsheet formulas"))[0]).toBe("xlsx");
  });

  it("matches word forms both ways", () => {
    expect(names(index.search("format my python"))[0]).toBe("python-code-style");
    expect(names(index.search("formatted"))).toContain("python-code-style");
    expect(names(index.search("merging documents"))[0]).toBe("pdf");
  });

  it("reports the words the user typed, not the stems", () => {
    const [hit] = index.search("Formatting conventions");
    expect(hit).toMatchObject({ name: "python-code-style", terms: ["formatting", "conventions"] });
  });

  it("splits names on hyphens, underscores, spaces and camelCase", () => {
    expect(names(index.search("creator"))[0]).toBe("skill-creator");
    expect(names(index.search("explorer"))[0]).toBe("code_explorer");
    expect(names(index.search("filer"))[0]).toBe("insuranceClaimFiler");
    expect(names(index.search("insuranceclaimfiler"))[0]).toBe("insuranceClaimFiler");
    const spaced = createSkillIndex([skill("QuickBooks Automation", "Bookkeeping."), skill("other", "x")]);
    expect(names(spaced.search("quickbooks"))).toEqual(["QuickBooks Automation"]);
    expect(names(spaced.search("books"))).toEqual(["QuickBooks Automation"]);
  });

  it("matches the start of a longer word", () => {
    expect(names(index.search("kube"))).toEqual(["kubernetes-manifests"]);
    expect(createSkillIndex(SKILLS, { prefix: false }).search("kube")).toEqual([]);
  });

  it("searches when_to_use and metadata keywords and tags, never a body", () => {
    expect(names(index.search("shipping to customers"))[0]).toBe("release-notes");
    expect(names(index.search("logo"))).toEqual(["brand-kit"]);
    expect(names(index.search("palette"))).toEqual(["brand-kit"]);
    const withBody = { ...skill("secret", "Nothing to see."), content: "zebra crossing" } as SkillMetadata;
    expect(createSkillIndex([withBody]).search("zebra")).toEqual([]);
  });

  it("searches the body's summary when the skill carries one, below the description", () => {
    const summarized = {
      ...skill("slides", "Builds decks."),
      summary: "Slides: turn an outline into a talk track.",
    };
    const described = skill("talk-notes", "Speaker notes for a talk.");
    const both = createSkillIndex([summarized, described, skill("plain", "Builds decks.")]);
    expect(names(both.search("outline"))).toEqual(["slides"]);
    expect(names(both.search("talk"))).toEqual(["talk-notes", "slides"]);
    expect(createSkillIndex([skill("slides", "Builds decks.")]).search("outline")).toEqual([]);
  });

  it("leaves out words that say nothing on their own, unless they are all there is", () => {
    const skills = [
      skill("stuff", "Sort household stuff into boxes."),
      skill("report", "Write a PDF report from data."),
      skill("thingiverse", "Browse 3D models."),
    ];
    const made = createSkillIndex(skills);
    const [first, ...rest] = made.search("please write something like a report, thanks");
    expect(first).toMatchObject({ name: "report", terms: ["write", "report"] });
    expect(rest).toEqual([]);
    expect(names(made.search("stuff for a report"))).toEqual(["report"]);
    expect(names(made.search("stuff"))).toEqual(["stuff"]);
  });

  it("searches the words of the domain a request's word stands for, below the word itself", () => {
    const skills = [
      skill("decks", "Build slide decks from an outline."),
      skill("powerpoint-files", "Edit PowerPoint files."),
      skill("specs", "Write a product spec."),
      skill("suites", "Run the test suite."),
    ];
    const made = createSkillIndex(skills);
    expect(names(made.search("powerpoint"))).toEqual(["powerpoint-files", "decks"]);
    expect(made.search("powerpoint")[1]?.terms).toEqual(["powerpoint"]);
    expect(names(made.search("cv"))).toEqual([]);
    // A spec may be a test, but a test is not a specification.
    expect(names(made.search("unit spec"))).toContain("suites");
    expect(names(made.search("test"))).toEqual(["suites"]);
  });

  it("turns fuzzy matching off with fuzzy: 0", () => {
    expect(createSkillIndex(SKILLS, { fuzzy: 0 }).search("pdff")).toEqual([]);
  });

  it("gives [] for empty, stop-word-only and unmatched queries", () => {
    for (const query of ["", "   ", "\n\t", "!!! ??? ...", "the and of to", "zzqxj", "qwxzv plmkq"]) {
      expect(index.search(query), query).toEqual([]);
    }
  });

  it("never throws on odd input", () => {
    const odd: unknown[] = [undefined, null, 42, {}, [], Symbol("q"), () => "pdf"];
    for (const query of odd) expect(index.search(query as string)).toEqual([]);
    for (const query of [
      "(*+?[{\\^$|",
      ".*",
      "pdf)|(",
      "__proto__ constructor",
      "😀 pdf 👩‍👩‍👧",
      "שלום pdf",
    ]) {
      expect(Array.isArray(index.search(query)), query).toBe(true);
    }
    expect(names(index.search("(pdf)*"))[0]).toBe("pdf");
    const huge = `${"word ".repeat(400_000)} pdf`;
    const started = performance.now();
    expect(Array.isArray(index.search(huge))).toBe(true);
    expect(Array.isArray(index.search("x".repeat(1_000_000)))).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(index.search("pdf", { limit: "3" as unknown as number })).toHaveLength(1);
    expect(index.search("pdf", null as unknown as undefined)).toHaveLength(1);
  });

  it("applies the limit: default 8, at most 100, 0 or less gives []", () => {
    const many = createSkillIndex(
      Array.from({ length: 150 }, (_, i) => skill(`tool-${i}`, "A widget helper.")),
    );
    expect(many.search("widget")).toHaveLength(DEFAULT_SEARCH_LIMIT);
    expect(many.search("widget", { limit: 3 })).toHaveLength(3);
    expect(many.search("widget", { limit: 2.9 })).toHaveLength(2);
    expect(many.search("widget", { limit: 1_000 })).toHaveLength(MAX_SEARCH_LIMIT);
    expect(many.search("widget", { limit: Number.POSITIVE_INFINITY })).toHaveLength(MAX_SEARCH_LIMIT);
    expect(many.search("widget", { limit: Number.NaN })).toHaveLength(DEFAULT_SEARCH_LIMIT);
    expect(many.search("widget", { limit: 0 })).toEqual([]);
    expect(many.search("widget", { limit: -5 })).toEqual([]);
  });

  it("orders equal scores by name (code units), whatever the input order", () => {
    const twins = ["b-tool", "a-tool", "B-tool", "c-tool", "a-tool2"].map((n) =>
      skill(n, "Converts audio files."),
    );
    const forward = createSkillIndex(twins).search("audio");
    const backward = createSkillIndex([...twins].reverse()).search("audio");
    expect(names(forward)).toEqual(["B-tool", "a-tool", "a-tool2", "b-tool", "c-tool"]);
    expect(backward).toEqual(forward);
    expect(new Set(forward.map((h) => h.score)).size).toBe(1);
  });

  it("keeps the first of a repeated name and skips entries without one", () => {
    const odd = [
      skill("dup", "first apple"),
      skill("dup", "second banana"),
      { description: "no name" },
      null,
    ] as unknown as SkillMetadata[];
    const dup = createSkillIndex(odd);
    expect(dup.size).toBe(1);
    expect(names(dup.search("apple"))).toEqual(["dup"]);
    expect(dup.search("banana")).toEqual([]);
  });

  it("refuses a non-list and out-of-range options with a SkillError", () => {
    const refused = (f: () => unknown, field?: string) => {
      try {
        f();
      } catch (error) {
        expect(SkillError.isInstance(error)).toBe(true);
        expect((error as SkillError).code).toBe("INVALID_FIELD");
        if (field) expect((error as SkillError).field).toBe(field);
        return (error as Error).message;
      }
      throw new Error("expected a SkillError");
    };
    expect(refused(() => createSkillIndex("pdf" as unknown as SkillMetadata[]))).toBe(
      'Expected a list of skills to index, found "pdf"',
    );
    expect(refused(() => createSkillIndex([], { fuzzy: 2 }), "fuzzy")).toContain("found 2");
    expect(refused(() => createSkillIndex([], { boost: { name: -1 } }), "boost.name")).toContain("found -1");
    expect(refused(() => createSkillIndex([], { prefix: "yes" as unknown as boolean }), "prefix")).toContain(
      '"yes"',
    );
    expect(refused(() => index.replace({} as unknown as SkillMetadata[]))).toContain("list of skills");
  });
});

describe("replace", () => {
  it("counts what it added, changed and removed, and searches the new set", () => {
    const index = createSkillIndex(SKILLS);
    expect(index.replace(SKILLS)).toEqual({ added: 0, changed: 0, removed: 0 });
    expect(index.replace(SKILLS.map((s) => ({ ...s })))).toEqual({ added: 0, changed: 0, removed: 0 });

    const next = [
      ...SKILLS.filter((s) => s.name !== "docx" && s.name !== "xlsx"),
      skill("audio-tools", "Trim and convert audio recordings."),
    ].map((s) => (s.name === "pdf" ? skill("pdf", "Split scanned documents into pages.") : s));
    expect(index.replace(next)).toEqual({ added: 1, changed: 1, removed: 2 });
    expect(index.size).toBe(next.length);
    expect(index.search("spreadsheet")).toEqual([]);
    expect(names(index.search("audio"))).toEqual(["audio-tools"]);
    expect(index.search("fill form").some((h) => h.name === "pdf")).toBe(false);
    expect(names(index.search("scanned pages"))[0]).toBe("pdf");

    const fresh = createSkillIndex(next);
    for (const query of ["audio", "scanned pages", "creator", "formatting python", "pdff", "kube"]) {
      expect(index.search(query), query).toEqual(fresh.search(query));
    }
  });

  it("counts a change of location, frontmatter or summary alone as a change", () => {
    const index = createSkillIndex([skill("a", "Alpha."), skill("b", "Beta.")]);
    expect(index.replace([skill("a", "Alpha.", {}, "/elsewhere/a/SKILL.md"), skill("b", "Beta.")])).toEqual({
      added: 0,
      changed: 1,
      removed: 0,
    });
    expect(
      index.replace([
        skill("a", "Alpha.", {}, "/elsewhere/a/SKILL.md"),
        skill("b", "Beta.", { license: "MIT" }),
      ]),
    ).toEqual({ added: 0, changed: 1, removed: 0 });
    const summarized = { ...skill("b", "Beta.", { license: "MIT" }), summary: "Beta: gamma rays." };
    expect(index.replace([skill("a", "Alpha.", {}, "/elsewhere/a/SKILL.md"), summarized])).toEqual({
      added: 0,
      changed: 1,
      removed: 0,
    });
    expect(names(index.search("gamma"))).toEqual(["b"]);
    expect(index.replace([])).toEqual({ added: 0, changed: 0, removed: 2 });
    expect(index.size).toBe(0);
    expect(index.search("alpha")).toEqual([]);
  });

  it("adds one by one exactly what a build indexes in one pass", () => {
    const skills = catalogSkills().slice(0, 60);
    const added = createSkillIndex([]);
    added.replace(skills); // few enough to be added one by one
    const built = createSkillIndex(skills);
    for (const query of ["pdf", "review code", "test", "design system", "automation", "securty audit"]) {
      expect(added.search(query, { limit: 30 }), query).toEqual(built.search(query, { limit: 30 }));
    }
  });

  it("agrees with a fresh build after many rounds of small changes", () => {
    let current = Array.from({ length: 80 }, (_, i) =>
      skill(`s${i}`, `Topic ${i % 7} handles item${i} records.`),
    );
    const index = createSkillIndex(current);
    for (let round = 0; round < 40; round++) {
      current = current
        .filter((_, i) => i !== round % current.length)
        .map((s, i) => (i === (round * 3) % 50 ? skill(s.name, `${s.description} revised ${round}`) : s));
      current.push(skill(`new${round}`, `Topic ${round % 7} revised ${round} records.`));
      index.replace(current);
    }
    const fresh = createSkillIndex(current);
    for (const query of ["topic records", "revised", "item3", "topic 4", "new1"]) {
      expect(index.search(query, { limit: 20 }), query).toEqual(fresh.search(query, { limit: 20 }));
    }
  });
});

describe("replace of the list given last, some skills replaced in place", () => {
  const QUERIES = ["topic records", "revised", "item3", "topic 4", "moved", "licence"];
  const expectFresh = (index: ReturnType<typeof createSkillIndex>, skills: readonly SkillMetadata[]) => {
    const fresh = createSkillIndex(skills);
    expect(index.size).toBe(fresh.size);
    for (const query of QUERIES) {
      expect(index.search(query, { limit: 20 }), query).toEqual(fresh.search(query, { limit: 20 }));
    }
  };
  const start = () =>
    Array.from({ length: 80 }, (_, i) => skill(`s${i}`, `Topic ${i % 7} handles item${i} records.`));

  it("counts each kind of change and agrees with a fresh build, round after round", () => {
    let current = start();
    const index = createSkillIndex(current);
    for (let round = 0; round < 30; round++) {
      const next = [...current];
      const i = (round * 7) % 80;
      const old = next[i] as SkillMetadata;
      next[i] = skill(old.name, `${old.description} Revised ${round}.`);
      // The same skill as a new object, and one moved to another folder: only the move counts.
      next[(i + 1) % 80] = { ...(next[(i + 1) % 80] as SkillMetadata) };
      const moved = next[(i + 2) % 80] as SkillMetadata;
      next[(i + 2) % 80] = { ...moved, location: `/moved${round}/SKILL.md` };
      expect(index.replace(next)).toEqual({ added: 0, changed: 2, removed: 0 });
      current = next;
    }
    expectFresh(index, current);
    // Frontmatter alone.
    const next = [...current];
    next[5] = skill("s5", (current[5] as SkillMetadata).description, { license: "MIT licence" });
    expect(index.replace(next)).toEqual({ added: 0, changed: 1, removed: 0 });
    expectFresh(index, next);
    // By name again (one fewer), and through a snapshot: both see only what was replaced.
    expect(index.replace(next.slice(1))).toEqual({ added: 0, changed: 0, removed: 1 });
    expectFresh(index, next.slice(1));
    expectFresh(loadSkillIndex(JSON.parse(JSON.stringify(index)), next.slice(1)), next.slice(1));
  });

  it("reads the caller's list afresh each time, even when the same array is changed and given again", () => {
    const list = start();
    const index = createSkillIndex(list);
    list[3] = skill("s3", "Moved elsewhere entirely.");
    expect(index.replace(list)).toEqual({ added: 0, changed: 1, removed: 0 });
    list[3] = skill("s3", "Topic 3 handles item3 records.");
    expect(index.replace(list)).toEqual({ added: 0, changed: 1, removed: 0 });
    expectFresh(index, list);
  });

  it("still goes by name when a position holds another name, a repeated name or no skill", () => {
    const list = start();
    const index = createSkillIndex(list);
    // Another name at the same position: one removed, one added.
    const renamed = [...list];
    renamed[10] = skill("moved-skill", "A skill moved here.");
    expect(index.replace(renamed)).toEqual({ added: 1, changed: 0, removed: 1 });
    expectFresh(index, renamed);
    // A repeated name: the first one counts, whatever happens to the second.
    const repeated = [...renamed];
    repeated[20] = skill("s0", "A second s0, shadowed.");
    expect(index.replace(repeated)).toEqual({ added: 0, changed: 0, removed: 1 });
    const shadowedChange = [...repeated];
    shadowedChange[20] = skill("s0", "The shadowed s0 changed again.");
    expect(index.replace(shadowedChange)).toEqual({ added: 0, changed: 0, removed: 0 });
    expect(index.search("shadowed")).toEqual([]);
    const firstChange = [...shadowedChange];
    firstChange[0] = skill("s0", "The first s0, revised.");
    expect(index.replace(firstChange)).toEqual({ added: 0, changed: 1, removed: 0 });
    expectFresh(index, firstChange);
    // An entry that is not a skill is left out.
    const holed = [...firstChange] as (SkillMetadata | null)[];
    holed[30] = null;
    expect(index.replace(holed as SkillMetadata[])).toEqual({ added: 0, changed: 0, removed: 1 });
    expectFresh(index, holed as SkillMetadata[]);
  });
});

describe("toJSON + loadSkillIndex", () => {
  const QUERIES = ["fill in a PDF form", "pdff", "creator", "format python", "kube", "logo", "shipping"];
  const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

  it("gives the results of a fresh build", () => {
    const json = roundTrip(createSkillIndex(SKILLS));
    const loaded = loadSkillIndex(json, SKILLS);
    const fresh = createSkillIndex(SKILLS);
    expect(loaded.size).toBe(SKILLS.length);
    for (const query of QUERIES) expect(loaded.search(query), query).toEqual(fresh.search(query));
    const again = loadSkillIndex(roundTrip(loaded), SKILLS);
    for (const query of QUERIES) expect(again.search(query), query).toEqual(fresh.search(query));
  });

  it("reindexes only what changed since it was saved", () => {
    const json = roundTrip(createSkillIndex(SKILLS));
    const next = [
      ...SKILLS.slice(1),
      skill("pdf", "Sign contracts electronically."),
      skill("new", "Fresh item."),
    ];
    const loaded = loadSkillIndex(json, next);
    const fresh = createSkillIndex(next);
    for (const query of [...QUERIES, "sign contracts", "fresh"]) {
      expect(loaded.search(query), query).toEqual(fresh.search(query));
    }
    expect(loaded.replace(next)).toEqual({ added: 0, changed: 0, removed: 0 });
  });

  it("reindexes a skill whose summary changed since it was saved", () => {
    const json = roundTrip(createSkillIndex([{ ...skill("a", "Alpha."), summary: "Alpha: old words." }]));
    const loaded = loadSkillIndex(json, [{ ...skill("a", "Alpha."), summary: "Alpha: new words." }]);
    expect(names(loaded.search("new"))).toEqual(["a"]);
    expect(loaded.search("old")).toEqual([]);
  });

  it("serves saved terms for unchanged skills instead of reindexing them", () => {
    const saved = roundTrip(createSkillIndex([skill("a", "Alpha."), skill("b", "Beta.")])) as {
      index: { terms: [string, ...unknown[]][] };
    };
    // Rename a saved term: only an index that reuses the saved form can find the new one.
    for (const entry of saved.index.terms) if (entry[0] === "alpha") entry[0] = "omega";
    const loaded = loadSkillIndex(saved, [skill("a", "Alpha."), skill("b", "Beta, revised.")]);
    expect(names(loaded.search("omega"))).toEqual(["a"]);
    expect(names(loaded.search("revised"))).toEqual(["b"]);
    expect(loaded.search("beta").length).toBe(1);
  });

  it("builds afresh from anything it cannot use, without throwing", () => {
    const good = roundTrip(createSkillIndex(SKILLS)) as {
      index: { docs: unknown[][]; terms: unknown[][] };
      fingerprints: unknown[];
    };
    const { docs, terms } = good.index;
    const withIndex = (index: Record<string, unknown>) => ({ ...good, index: { ...good.index, ...index } });
    const garbage: unknown[] = [
      undefined,
      null,
      42,
      "index",
      [],
      {},
      { ...good, version: 1 },
      { ...good, analyzer: "other" },
      { ...good, format: "lunr" },
      { ...good, index: { garbage: true } },
      withIndex({ docs: "broken" }),
      withIndex({ terms: [["pdf", 7, [0], [1]]] }),
      withIndex({ terms: [["pdf", 1, [999], [1]]] }),
      withIndex({ terms: [["pdf", 1, [0, 1], [1]]] }),
      withIndex({ terms: [["pdf", 1, [0], [-1]]] }),
      withIndex({ terms: [...terms, terms[0]] }),
      withIndex({ terms: [42] }),
      withIndex({ docs: [...docs.slice(1), docs[1]] }),
      withIndex({ docs: docs.map(([name]) => [name, 1]) }),
      { ...good, fingerprints: good.fingerprints.slice(1) },
      { ...good, fingerprints: [...good.fingerprints.slice(1), 42] },
    ];
    const fresh = createSkillIndex(SKILLS);
    for (const json of garbage) {
      const loaded = loadSkillIndex(json, SKILLS);
      expect(loaded.size).toBe(SKILLS.length);
      for (const query of QUERIES) expect(loaded.search(query), query).toEqual(fresh.search(query));
    }
  });
});
