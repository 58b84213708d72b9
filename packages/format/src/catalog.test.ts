import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { loadSkillFile, SkillError, type SkillInfo } from "@skill/core";
import { describe, expect, it } from "vitest";
import { corpora, sharedCorpusMissing } from "../../../fixtures/corpus.mjs";
import {
  afterXml,
  namesOnlySize,
  noteFor,
  oneLine,
  random,
  readCatalog,
  readNote,
  skill,
} from "./__fixtures__/skills.js";
import { type CatalogResult, formatCatalog } from "./catalog.js";
import { MIN_DESCRIPTION_LENGTH } from "./catalog-budget.js";
import type { CatalogOptions } from "./catalog-options.js";

const STYLES = ["xml", "markdown", "json"] as const;
type Style = (typeof STYLES)[number];

const pdf = skill(
  "pdf",
  "Extract text and tables from PDF files, fill forms and merge documents. Use when working with PDFs.",
  "/home/me/.agents/skills/pdf/SKILL.md",
);
const notes = skill(
  "release-notes",
  'Write release notes from the git log & changesets. Use when asked "what changed".',
  "/work/app/.claude/skills/release-notes/SKILL.md",
);

function codePoints(text: string): number {
  return Array.from(text).length;
}

/**
 * Checks every promise of formatCatalog's budget rule on one result, reading the text back
 * the way an agent would.
 */
function checkCatalog(all: readonly SkillInfo[], style: Style, budget: number, result: CatalogResult): void {
  // A skill without a description is listed nowhere, only named in `hidden`.
  const skills = all.filter((s) => s.description !== "");
  expect(result.hidden).toEqual(all.filter((s) => s.description === "").map((s) => s.name));
  const names = skills.map((s) => s.name);
  expect(result.text.length).toBeLessThanOrEqual(budget);
  expect([...result.included, ...result.omitted]).toEqual(names);
  if (result.included.length === 0) expect(result.text).toBe("");

  const listed = readCatalog(result.text, style);
  expect(listed.map((l) => l.name)).toEqual(result.included);
  const truncated: string[] = [];
  let described = true;
  listed.forEach((shown, i) => {
    const raw = (skills[i] as SkillInfo).description;
    const original = style === "markdown" ? oneLine(raw) : style === "xml" ? afterXml(raw) : raw;
    if (style !== "markdown") expect(shown.location).toBe((skills[i] as SkillInfo).location);
    if (shown.description === undefined) {
      described = false;
      if (raw !== "") truncated.push(shown.name);
      return;
    }
    // Descriptions are dropped from the end of the list only.
    expect(described).toBe(true);
    if (shown.description === original) return;
    truncated.push(shown.name);
    expect(shown.description.endsWith("…")).toBe(true);
    expect(codePoints(shown.description)).toBeGreaterThanOrEqual(Math.min(MIN_DESCRIPTION_LENGTH, 2));
    const kept = shown.description.slice(0, -1);
    expect(original.startsWith(kept)).toBe(true);
    expect(kept).toBe(kept.trimEnd());
  });
  expect(result.truncated).toEqual(truncated);

  // The last line tells the model how many skills it does not see, and only then.
  expect(readNote(result.text, style)).toBe(
    result.omitted.length > 0 && result.included.length > 0 ? noteFor(result.omitted.length) : undefined,
  );
  if (result.omitted.length > 0) {
    // Skills are dropped only when not even every name fits: no descriptions are left...
    expect(listed.every((l) => l.description === undefined)).toBe(true);
    // ...and one more skill would not have fitted: the smallest budget listing more needs more.
    const k = result.included.length;
    let lo = budget + 1;
    let hi = formatCatalog(skills, { style }).text.length;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (formatCatalog(skills, { style, budget: mid }).included.length > k) hi = mid;
      else lo = mid + 1;
    }
    const more = formatCatalog(skills, { style, budget: lo });
    expect(more.included.length).toBeGreaterThan(k);
    expect(more.text.length).toBeGreaterThan(budget);
  }
}

describe("formatCatalog styles", () => {
  it("xml follows the Agent Skills guide layout", () => {
    expect(formatCatalog([pdf, notes]).text).toBe(
      [
        "<available_skills>",
        "  <skill>",
        "    <name>pdf</name>",
        `    <description>${pdf.description}</description>`,
        "    <location>/home/me/.agents/skills/pdf/SKILL.md</location>",
        "  </skill>",
        "  <skill>",
        "    <name>release-notes</name>",
        "    <description>Write release notes from the git log &amp; changesets. Use when asked &quot;what changed&quot;.</description>",
        "    <location>/work/app/.claude/skills/release-notes/SKILL.md</location>",
        "  </skill>",
        "</available_skills>",
      ].join("\n"),
    );
  });

  it("markdown is a heading and one compact bullet per skill", () => {
    expect(formatCatalog([pdf, notes], { style: "markdown" }).text).toBe(
      `## Available Skills\n- **pdf**: ${pdf.description}\n- **release-notes**: ${notes.description}`,
    );
    const multi = skill("m", "line one\n\n  line two");
    expect(formatCatalog([multi], { style: "markdown" }).text).toBe(
      "## Available Skills\n- **m**: line one line two",
    );
  });

  it("json is an array with one object per line", () => {
    const text = formatCatalog([pdf, notes], { style: "json" }).text;
    expect(text.split("\n")).toHaveLength(4);
    expect(JSON.parse(text)).toEqual([
      { name: "pdf", description: pdf.description, location: pdf.location },
      { name: "release-notes", description: notes.description, location: notes.location },
    ]);
  });

  it("reports everything included and nothing cut without a budget", () => {
    for (const style of STYLES) {
      expect(formatCatalog([pdf, notes], { style })).toMatchObject({
        included: ["pdf", "release-notes"],
        omitted: [],
        truncated: [],
      });
    }
  });

  it("keeps the order given", () => {
    expect(formatCatalog([notes, pdf]).included).toEqual(["release-notes", "pdf"]);
  });

  it("gives an empty text for an empty list, in every style", () => {
    for (const style of STYLES) {
      expect(formatCatalog([], { style })).toEqual({
        text: "",
        included: [],
        omitted: [],
        truncated: [],
        nameOnly: [],
        hidden: [],
      });
      expect(formatCatalog([], { style, budget: 0 }).text).toBe("");
    }
  });

  it("writes absolute locations as file URLs on request, percent-encoded", () => {
    const odd = skill("odd", "x", "/tmp/a b/#x%y/é/SKILL.md");
    const rel = skill("rel", "x", "skills/rel/SKILL.md");
    const xml = formatCatalog([odd, rel], { locationStyle: "file-url" }).text;
    expect(xml).toContain("<location>file:///tmp/a%20b/%23x%25y/%C3%A9/SKILL.md</location>");
    expect(xml).toContain("<location>skills/rel/SKILL.md</location>");
    const json = JSON.parse(formatCatalog([odd], { style: "json", locationStyle: "file-url" }).text);
    expect(json[0].location).toBe("file:///tmp/a%20b/%23x%25y/%C3%A9/SKILL.md");
  });

  it("refuses unknown options with INVALID_FIELD", () => {
    const bad: [CatalogOptions, string][] = [
      [{ style: "yaml" as never }, "style"],
      [{ locationStyle: "url" as never }, "locationStyle"],
      [{ budget: -1 }, "budget"],
      [{ budget: Number.NaN }, "budget"],
      [{ budget: "100" as never }, "budget"],
    ];
    for (const [options, field] of bad) {
      let error: unknown;
      try {
        formatCatalog([pdf], options);
      } catch (e) {
        error = e;
      }
      expect(SkillError.isInstance(error) && error.code === "INVALID_FIELD" && error.field).toBe(field);
    }
  });
});

describe("formatCatalog budget", () => {
  const full = formatCatalog([pdf, notes]).text.length;

  it("changes nothing when the text fits exactly", () => {
    expect(formatCatalog([pdf, notes], { budget: full })).toMatchObject({ omitted: [], truncated: [] });
    expect(formatCatalog([pdf, notes], { budget: Number.POSITIVE_INFINITY }).truncated).toEqual([]);
  });

  it("shortens only the longest description first, at a word boundary, with an ellipsis", () => {
    const result = formatCatalog([pdf, notes], { budget: full - 10 });
    expect(result.truncated).toEqual(["pdf"]);
    const [shown] = readCatalog(result.text, "xml");
    expect(shown?.description).toBe(
      "Extract text and tables from PDF files, fill forms and merge documents. Use when working…",
    );
    checkCatalog([pdf, notes], "xml", full - 10, result);
  });

  it("shortens every description over the cap alike, leaving shorter ones whole", () => {
    const short = skill("short", "Tiny.");
    const skills = [pdf, short, notes];
    const budget = formatCatalog(skills).text.length - 100;
    const result = formatCatalog(skills, { budget });
    expect(result.truncated).toEqual(["pdf", "release-notes"]);
    const [a, b, c] = readCatalog(result.text, "xml");
    expect(b?.description).toBe("Tiny.");
    expect(Math.abs(codePoints(a?.description ?? "") - codePoints(c?.description ?? ""))).toBeLessThan(32);
    checkCatalog(skills, "xml", budget, result);
  });

  it("cuts mid-word only when no space is near (CJK text, long identifiers)", () => {
    const cjk = skill("cjk", "技能描述".repeat(40));
    const budget = formatCatalog([cjk]).text.length - 60;
    const result = formatCatalog([cjk], { budget });
    const [shown] = readCatalog(result.text, "xml");
    expect(shown?.description).toMatch(/^(技能描述)+[技能描述]*…$/);
    expect(result.text.length).toBeGreaterThan(budget - 4);
  });

  it("never splits an emoji", () => {
    const emoji = skill("emoji", "😀".repeat(100));
    for (let budget = 80; budget < 300; budget++) {
      const result = formatCatalog([emoji], { budget, style: "json" });
      expect(result.text).not.toMatch(/[\uD800-\uDFFF]/u); // no lone surrogate
      checkCatalog([emoji], "json", budget, result);
    }
  });

  it("drops descriptions from the end of the list, keeping every name, before dropping skills", () => {
    const skills = Array.from({ length: 10 }, (_, i) =>
      skill(`skill-${i}`, `Description number ${i} `.repeat(8).trim()),
    );
    const namesOnly = namesOnlySize(skills, "markdown");
    const result = formatCatalog(skills, { style: "markdown", budget: namesOnly + 200 });
    expect(result.omitted).toEqual([]);
    const listed = readCatalog(result.text, "markdown");
    const withDescription = listed.filter((l) => l.description !== undefined).length;
    expect(withDescription).toBeGreaterThan(0);
    expect(withDescription).toBeLessThan(10);
    expect(result.truncated).toEqual(skills.map((s) => s.name));
    checkCatalog(skills, "markdown", namesOnly + 200, result);
  });

  it("drops whole skills from the end when not every name fits", () => {
    const skills = Array.from({ length: 10 }, (_, i) => skill(`skill-${i}`));
    const result = formatCatalog(skills, { budget: 400 });
    expect(result.included.length).toBeGreaterThan(0);
    expect(result.omitted).toEqual(skills.slice(result.included.length).map((s) => s.name));
    expect(result.truncated).toEqual(result.included);
    checkCatalog(skills, "xml", 400, result);
  });

  it("gives an empty text when not even one name fits", () => {
    for (const style of STYLES) {
      expect(formatCatalog([pdf, notes], { style, budget: 20 })).toEqual({
        text: "",
        included: [],
        omitted: ["pdf", "release-notes"],
        truncated: [],
        nameOnly: [],
        hidden: [],
      });
    }
  });

  it("holds every promise on random skills, styles and budgets", () => {
    const next = random(7);
    const words = [
      "use",
      "when",
      "PDF",
      "&",
      "<tag>",
      "quotes\"'",
      "é",
      "😀",
      "supercalifragilistic",
      "技能描述技能描述",
    ];
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
    for (let round = 0; round < 150; round++) {
      const skills = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, i) => {
        const description = Array.from({ length: Math.floor(next() * 60) }, () => pick(words)).join(" ");
        return skill(
          `s${i}-${"x".repeat(Math.floor(next() * 20))}`,
          description,
          `/r/${i}/${pick(words)}/SKILL.md`,
        );
      });
      for (const style of STYLES) {
        const budget = Math.floor(next() * (formatCatalog(skills, { style }).text.length + 40));
        const result = formatCatalog(skills, { style, budget });
        checkCatalog(skills, style, budget, result);
        expect(formatCatalog(skills, { style, budget })).toEqual(result);
      }
    }
  });

  it("never lists fewer skills or descriptions for a larger budget", () => {
    const skills = Array.from({ length: 8 }, (_, i) =>
      skill(`skill-${i}`, `Use when ${"task ".repeat(10 * i)}`),
    );
    const described = (r: CatalogResult) => readCatalog(r.text, "xml").filter((l) => l.description).length;
    let previous = formatCatalog(skills, { budget: 0 });
    for (let budget = 1; budget < 2000; budget += 7) {
      const result = formatCatalog(skills, { budget });
      expect(result.included.length).toBeGreaterThanOrEqual(previous.included.length);
      expect(described(result)).toBeGreaterThanOrEqual(described(previous));
      previous = result;
    }
  });
});

describe("formatCatalog on the real-skill corpus", () => {
  it.each(corpora)(
    "keeps every promise for all skills of $label, in every style, at many budgets",
    async ({ dir, expected }) => {
      const files = (await readdir(join(dir, "real"), { recursive: true }))
        .filter((f) => f.endsWith("SKILL.md"))
        .map((f) => join(dir, "real", f))
        .sort();
      expect(files).toHaveLength(expected.summary.skills);
      const skills = (await Promise.all(files.map((f) => loadSkillFile(f).then((p) => p.skill)))).sort(
        (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
      );
      for (const style of STYLES) {
        const whole = formatCatalog(skills, { style });
        checkCatalog(skills, style, Number.POSITIVE_INFINITY, whole);
        for (const budget of [whole.text.length, 16000, 8000, 4000, 2000, 500, 100, 0]) {
          checkCatalog(skills, style, budget, formatCatalog(skills, { style, budget }));
        }
      }
    },
  );

  if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});
});

describe("formatCatalog: what the model sees", () => {
  /** The length of a markdown catalog of names only, written out by hand. */
  const markdownNames = (names: readonly string[]) =>
    `## Available Skills${names.map((n) => `\n- **${n}**`).join("")}`.length;
  const userOnly = (s: SkillInfo): SkillInfo => ({ ...s, modelInvocable: false });
  const many = (count: number, description = (i: number) => `Use for task number ${i}. `.repeat(6).trim()) =>
    Array.from({ length: count }, (_, i) => skill(`s-${String(i).padStart(2, "0")}`, description(i)));

  it("leaves out skills the model may not invoke and reports them as hidden", () => {
    const deploy = userOnly(skill("deploy", "Deploy to production. Only when the user types /deploy."));
    for (const style of STYLES) {
      const result = formatCatalog([pdf, deploy, notes], { style });
      expect(result.included).toEqual(["pdf", "release-notes"]);
      expect(result.hidden).toEqual(["deploy"]);
      expect(result.omitted).toEqual([]);
      expect(result.text).not.toContain("deploy");
      expect(readNote(result.text, style)).toBeUndefined();
    }
    const kept = formatCatalog([pdf, deploy, notes], { includeUserOnly: true });
    expect(kept.included).toEqual(["pdf", "deploy", "release-notes"]);
    expect(kept.hidden).toEqual([]);
  });

  it("lists a skill loaded without a description nowhere, even with includeUserOnly, and names it in hidden", () => {
    const bare = skill("bare", "");
    for (const style of STYLES) {
      const result = formatCatalog([pdf, bare, notes], { style, includeUserOnly: true });
      expect(result.included).toEqual(["pdf", "release-notes"]);
      expect(result.hidden).toEqual(["bare"]);
      expect(readCatalog(result.text, style).map((l) => l.name)).toEqual(["pdf", "release-notes"]);
      expect(readNote(result.text, style)).toBeUndefined();
    }
  });

  it("names a skill keyed by its folder `key (displayName)`, as Claude Code lists it", () => {
    const keyed = { ...skill("pdf-tools", "Fill PDF forms."), displayName: "PDF Tools" };
    const same = { ...skill("notes", "Write notes."), displayName: "notes" };
    const xml = formatCatalog([keyed, same]);
    expect(readCatalog(xml.text, "xml").map((l) => l.name)).toEqual(["pdf-tools (PDF Tools)", "notes"]);
    expect(xml.included).toEqual(["pdf-tools", "notes"]);
    const markdown = formatCatalog([keyed], { style: "markdown" }).text;
    expect(markdown).toContain("- **pdf-tools (PDF Tools)**: Fill PDF forms.");
    const json = JSON.parse(formatCatalog([keyed, same], { style: "json" }).text);
    expect(json[0]).toMatchObject({ name: "pdf-tools", displayName: "PDF Tools" });
    expect(json[1]).not.toHaveProperty("displayName");
  });

  it("never counts hidden skills in the note", () => {
    const skills = [...many(10), ...many(5).map((s) => userOnly({ ...s, name: `${s.name}-manual` }))];
    const result = formatCatalog(skills, { budget: 500 });
    expect(result.hidden).toHaveLength(5);
    expect(result.omitted.length).toBeGreaterThan(0);
    expect(result.included.length + result.omitted.length).toBe(10);
    expect(readNote(result.text, "xml")).toBe(noteFor(result.omitted.length));
  });

  it("with usage counts as rank, the most used skills keep their descriptions", () => {
    const skills = many(12);
    const uses: Record<string, number> = { "s-09": 40, "s-03": 25, "s-11": 7 };
    const rank = (s: { name: string }) => uses[s.name] ?? 0;
    // Room for five descriptions of 24 characters (": " + 24 each), not six.
    const budget = markdownNames(skills.map((s) => s.name)) + 150;
    const result = formatCatalog(skills, { style: "markdown", budget, rank });
    const described = readCatalog(result.text, "markdown")
      .filter((l) => l.description !== undefined)
      .map((l) => l.name);
    // The three used skills, then unused ones by input order; listed in input order.
    expect(described).toEqual(["s-00", "s-01", "s-03", "s-09", "s-11"]);
    expect(result.included).toEqual(skills.map((s) => s.name));
    expect(result.omitted).toEqual([]);
    expect(readNote(result.text, "markdown")).toBeUndefined(); // shortened descriptions add no line
  });

  it("without a rank, input order decides who keeps a description, never the alphabet", () => {
    const names = ["zeta", "-21risk-automation", "API Fuzzing", "mid", "alpha", "beta"];
    const skills = names.map((n) => skill(n, `What ${n} does, and when to use it. `.repeat(5).trim()));
    const budget = markdownNames(names) + 90; // room for three descriptions of 24 characters
    const result = formatCatalog(skills, { style: "markdown", budget });
    const described = readCatalog(result.text, "markdown")
      .filter((l) => l.description !== undefined)
      .map((l) => l.name);
    expect(described).toEqual(["zeta", "-21risk-automation", "API Fuzzing"]);
    expect(result.included).toEqual(names);
  });

  it("when not every name fits, drops the lowest ranked and says how many in words", () => {
    const skills = many(20);
    const uses: Record<string, number> = { "s-19": 9, "s-07": 8, "s-13": 8 };
    const rank = (s: { name: string }) => uses[s.name] ?? 0;
    for (const style of STYLES) {
      const budget = Math.floor(namesOnlySize(skills, style) * 0.6);
      const result = formatCatalog(skills, { style, budget, rank });
      const k = result.included.length;
      expect(k).toBeGreaterThanOrEqual(3);
      expect(k).toBeLessThan(20);
      // The used skills first, then the rest by input order; listed in input order.
      const rest = skills.map((s) => s.name).filter((n) => !(n in uses));
      expect(result.included).toEqual(
        skills.map((s) => s.name).filter((n) => n in uses || rest.slice(0, k - 3).includes(n)),
      );
      expect(result.omitted).toEqual(rest.slice(k - 3));
      expect(readNote(result.text, style)).toBe(noteFor(20 - k));
      expect(result.text.length).toBeLessThanOrEqual(budget);
      expect(readCatalog(result.text, style).map((l) => l.name)).toEqual(result.included);
    }
  });

  it("the note says one skill in the singular and stays well-formed in every style", () => {
    // Names longer than the note, so dropping one makes room for it.
    const skills = many(3, () => "A.").map((s) => ({ ...s, name: `${s.name}-${"x".repeat(90)}` }));
    for (const style of STYLES) {
      let budget = formatCatalog(skills, { style }).text.length;
      let result = formatCatalog(skills, { style, budget });
      while (result.omitted.length === 0) result = formatCatalog(skills, { style, budget: --budget });
      expect(result.omitted).toEqual([`s-02-${"x".repeat(90)}`]);
      expect(readNote(result.text, style)).toBe(
        "1 more skill is not listed here; load one by name if the task needs it.",
      );
      expect(result.text.split("\n").at(style === "markdown" ? -1 : -2)).toContain(
        "1 more skill is not listed",
      );
    }
  });

  it("measure lets the budget count tokens instead of characters", () => {
    const skills = many(30);
    const tokens = (text: string) => Math.ceil(text.length / 4);
    const result = formatCatalog(skills, { budget: 1500, measure: tokens });
    expect(tokens(result.text)).toBeLessThanOrEqual(1500);
    expect(result.text.length).toBeGreaterThan(1500 * 3);
    // A count that is not proportional to characters: words.
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
    const byWords = formatCatalog(skills, { budget: 400, measure: words, style: "markdown" });
    expect(words(byWords.text)).toBeLessThanOrEqual(400);
    expect(words(formatCatalog(skills, { style: "markdown" }).text)).toBeGreaterThan(400);
    expect(byWords.truncated.length).toBeGreaterThan(0);
    expect(byWords.omitted).toEqual([]);
  });

  it("refuses a rank or measure that is not a function, or a measure that gives no number", () => {
    for (const [options, field] of [
      [{ rank: 3 as never }, "rank"],
      [{ measure: "tokens" as never }, "measure"],
      [{ measure: () => Number.NaN, budget: 10 }, "measure"],
    ] as [CatalogOptions, string][]) {
      let error: unknown;
      try {
        formatCatalog([pdf], options);
      } catch (e) {
        error = e;
      }
      expect(SkillError.isInstance(error) && error.code === "INVALID_FIELD" && error.field).toBe(field);
    }
  });
});
