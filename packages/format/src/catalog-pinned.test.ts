import { SkillError, type SkillMetadata } from "@skill/core";
import { describe, expect, it } from "vitest";
import { namesOnlySize, parseXml, random, readCatalog, skill } from "./__fixtures__/skills.js";
import { type CatalogResult, formatCatalog } from "./catalog.js";
import type { CatalogOptions } from "./catalog-options.js";
import { nameOnlyNote, omittedNote } from "./catalog-render.js";

const STYLES = ["xml", "markdown", "json"] as const;
type Style = (typeof STYLES)[number];

const long = (i: number) => `Use for task number ${i}, with all the details a model needs. `.repeat(4).trim();
const many = (count: number, description: (i: number) => string = long) =>
  Array.from({ length: count }, (_, i) => skill(`s-${String(i).padStart(3, "0")}`, description(i)));

/** The listed skills of a catalog, as an agent reads them back. */
function shown(result: CatalogResult, style: Style = "xml") {
  return readCatalog(withoutNote(result.text, style), style);
}

/** The catalog without its last line, when that line is a note. */
function withoutNote(text: string, style: Style): string {
  const note = lastNote(text, style);
  if (note === undefined) return text;
  const lines = text.split("\n");
  const at = style === "markdown" ? lines.length - 1 : lines.length - 2;
  const rest = lines.filter((_, i) => i !== at);
  if (style === "json" && at - 1 >= 1) rest[at - 1] = (rest[at - 1] as string).replace(/,$/, "");
  return rest.join("\n");
}

/** The note line, if the catalog ends with one (any wording: it is a line that is no skill). */
function lastNote(text: string, style: Style): string | undefined {
  if (text === "") return undefined;
  const lines = text.split("\n");
  const raw = lines[style === "markdown" ? lines.length - 1 : lines.length - 2] as string;
  if (style === "xml") {
    parseXml(text);
    return raw.startsWith("  ") && !raw.startsWith("  <") ? raw.slice(2) : undefined;
  }
  if (style === "json") {
    JSON.parse(text);
    return raw.trim().startsWith('"') ? (JSON.parse(raw.trim()) as string) : undefined;
  }
  return raw.startsWith("- **") || raw.startsWith("## ") ? undefined : raw;
}

function described(result: CatalogResult, style: Style = "xml"): string[] {
  return shown(result, style)
    .filter((l) => l.description !== undefined)
    .map((l) => l.name);
}

describe("formatCatalog pinned", () => {
  const skills = many(12);
  const full = formatCatalog(skills).text.length;

  it("keeps a pinned description whole while the others are shortened", () => {
    const result = formatCatalog(skills, { budget: full - 400, pinned: ["s-007"] });
    const listed = shown(result);
    expect(listed.map((l) => l.name)).toEqual(skills.map((s) => s.name));
    expect(listed[7]?.description).toBe(long(7));
    for (const l of listed.filter((l) => l.name !== "s-007")) expect(l.description).toMatch(/…$/);
    expect(result.truncated).toEqual(skills.map((s) => s.name).filter((n) => n !== "s-007"));
    expect(result.nameOnly).toEqual([]);
  });

  it("gives pinned skills their descriptions before any other, ahead of rank and input order", () => {
    const names = namesOnlySize(skills);
    const rank = (s: SkillMetadata) => (s.name === "s-002" ? 10 : 0);
    const result = formatCatalog(skills, { budget: names + 700, rank, pinned: ["s-011", "s-009"] });
    const listed = shown(result);
    const got = described(result);
    // Pinned first (whole), then by rank, then by input order: a prefix of that order.
    const order = [
      "s-011",
      "s-009",
      "s-002",
      ...skills.map((s) => s.name).filter((n) => !/^s-0(11|09|02)$/.test(n)),
    ];
    expect(got.length).toBeGreaterThanOrEqual(3);
    expect(got.length).toBeLessThan(12);
    expect(new Set(got)).toEqual(new Set(order.slice(0, got.length)));
    expect(listed.find((l) => l.name === "s-011")?.description).toBe(long(11));
    expect(listed.find((l) => l.name === "s-009")?.description).toBe(long(9));
    expect(result.included).toHaveLength(12);
    expect(result.nameOnly).toEqual(skills.map((s) => s.name).filter((n) => !got.includes(n)));
    expect(result.truncated).not.toContain("s-009");
    expect(result.truncated).not.toContain("s-011");
  });

  it("keeps pinned skills listed, with their descriptions, when not every name fits", () => {
    const big = many(200, (i) => `Task ${i}.`);
    for (const style of STYLES) {
      const names = namesOnlySize(big, style);
      const budget = Math.floor(names / 2);
      const result = formatCatalog(big, { style, budget, pinned: ["s-199", "s-150"] });
      expect(result.text.length).toBeLessThanOrEqual(budget);
      expect(result.omitted.length).toBeGreaterThan(0);
      expect(result.included).toContain("s-199");
      expect(result.included).toContain("s-150");
      expect(described(result, style)).toEqual(["s-150", "s-199"]);
      // Then names by input order: everything before the cut, in input order.
      const rest = result.included.filter((n) => n !== "s-150" && n !== "s-199");
      expect(rest).toEqual(big.slice(0, rest.length).map((s) => s.name));
      expect(lastNote(result.text, style)).toBe(omittedNote(result.omitted.length));
    }
  });

  it("ignores pinned names that are not in the list or are hidden, and repeats", () => {
    const user = { ...skill("manual", long(99)), modelInvocable: false };
    const list = [...skills, user];
    const budget = full - 400;
    const plain = formatCatalog(list, { budget });
    expect(formatCatalog(list, { budget, pinned: ["nope", "manual"] })).toEqual(plain);
    expect(formatCatalog(list, { budget, pinned: ["s-003", "s-003", "nope"] })).toEqual(
      formatCatalog(list, { budget, pinned: ["s-003"] }),
    );
  });

  it("fills pinned descriptions whole in the order pinned, then shortens the rest", () => {
    const pinned = ["s-010", "s-004", "s-001"];
    const names = namesOnlySize(skills, "markdown");
    const one = `: ${long(10)}`.length;
    const budget = names + one + 80; // one pinned description whole, and a short one
    const result = formatCatalog(skills, { style: "markdown", budget, pinned });
    expect(result.text.length).toBeLessThanOrEqual(budget);
    const listed = shown(result, "markdown");
    expect(listed.find((l) => l.name === "s-010")?.description).toBe(long(10));
    // The next pinned skill keeps a shortened description before any unpinned one keeps any.
    expect(listed.find((l) => l.name === "s-004")?.description).toMatch(/…$/);
    expect(new Set(described(result, "markdown"))).toEqual(
      new Set(
        ["s-010", "s-004", "s-001", "s-000", "s-002", "s-003"].slice(0, described(result, "markdown").length),
      ),
    );
    expect(result.truncated).toContain("s-004");
    expect(result.truncated).not.toContain("s-010");
  });
});

describe("formatCatalog location: false", () => {
  const skills = many(3);

  it("leaves out <location> in XML and the field in JSON; markdown never had it", () => {
    const xml = formatCatalog(skills, { location: false }).text;
    expect(xml).not.toContain("<location>");
    expect(shown(formatCatalog(skills, { location: false }))).toEqual(
      skills.map((s) => ({ name: s.name, description: s.description, location: "" })),
    );
    const json = JSON.parse(formatCatalog(skills, { style: "json", location: false }).text);
    expect(json).toEqual(skills.map((s) => ({ name: s.name, description: s.description })));
    expect(formatCatalog(skills, { style: "markdown", location: false }).text).toBe(
      formatCatalog(skills, { style: "markdown" }).text,
    );
  });

  it("leaves room in the budget for more descriptions", () => {
    const budget = formatCatalog(skills, { location: false }).text.length;
    expect(formatCatalog(skills, { budget }).truncated.length).toBeGreaterThan(0);
    expect(formatCatalog(skills, { budget, location: false }).truncated).toEqual([]);
  });
});

describe("formatCatalog searchHint", () => {
  const skills = many(30);
  const names = namesOnlySize(skills);

  const namesIn = (style: Style) => namesOnlySize(skills, style);

  it("points at the search tool when skills were left out", () => {
    for (const style of STYLES) {
      const budget = Math.floor(namesIn(style) / 2);
      const result = formatCatalog(skills, { style, budget, searchHint: "skill_search" });
      const k = result.omitted.length;
      expect(k).toBeGreaterThan(0);
      expect(lastNote(result.text, style)).toBe(
        `${k} more skills are not listed here; use skill_search to find one.`,
      );
      expect(result.text.length).toBeLessThanOrEqual(budget);
    }
    expect(omittedNote(1, "skill_search")).toBe(
      "1 more skill is not listed here; use skill_search to find one.",
    );
  });

  it("counts the skills listed by name only when every name is listed", () => {
    for (const style of STYLES) {
      const budget = namesIn(style) + 500;
      const result = formatCatalog(skills, { style, budget, searchHint: "skill_search" });
      expect(result.omitted).toEqual([]);
      const bare = result.nameOnly.length;
      expect(bare).toBeGreaterThan(0);
      expect(bare).toBe(shown(result, style).filter((l) => l.description === undefined).length);
      expect(lastNote(result.text, style)).toBe(
        `${bare} skills are listed without their descriptions; use skill_search to find one.`,
      );
      expect(result.text.length).toBeLessThanOrEqual(budget);
    }
    expect(nameOnlyNote(1, "find")).toBe("1 skill is listed without its description; use find to find one.");
  });

  it("adds no line when everything fits or descriptions were only shortened", () => {
    const whole = formatCatalog(skills, { searchHint: "skill_search" });
    expect(whole.text).toBe(formatCatalog(skills).text);
    const budget = whole.text.length - 200;
    const shortened = formatCatalog(skills, { budget, searchHint: "skill_search" });
    expect(shortened.truncated.length).toBeGreaterThan(0);
    expect(shortened.nameOnly).toEqual([]);
    expect(shortened.text).toBe(formatCatalog(skills, { budget }).text);
  });

  it("without a hint, descriptions left out add no line and the note keeps its words", () => {
    const result = formatCatalog(skills, { budget: names + 500 });
    expect(result.nameOnly.length).toBeGreaterThan(0);
    expect(lastNote(result.text, "xml")).toBeUndefined();
    expect(lastNote(formatCatalog(skills, { budget: namesIn("xml") / 2 }).text, "xml")).toMatch(
      /more skills are not listed here; load one by name if the task needs it\.$/,
    );
  });
});

describe("formatCatalog descriptionShare", () => {
  const skills = many(400, (i) => `Handles job ${i}: ${"detail ".repeat(i % 7)}`.trim());
  const rank = (s: SkillMetadata) => (Number(s.name.slice(2)) * 7919) % 400; // a fixed shuffle

  it("gives the top-ranked skills descriptions within their share, then names fill the budget", () => {
    const budget = 8000;
    const result = formatCatalog(skills, { budget, rank, descriptionShare: 0.5, location: false });
    expect(result.text.length).toBeLessThanOrEqual(budget);
    expect(result.omitted.length).toBeGreaterThan(0);
    const order = [...skills].sort((a, b) => rank(b) - rank(a)).map((s) => s.name);
    const got = described(result);
    expect(got.length).toBeGreaterThan(10);
    expect(new Set(got)).toEqual(new Set(order.slice(0, got.length)));
    expect(new Set(result.included)).toEqual(new Set(order.slice(0, result.included.length)));
    // The described part alone fits in half the budget; one more would not.
    // The described part (the catalog without its name-only elements) fits in half the budget.
    const bare = result.nameOnly.map((n) => `\n  <skill>\n    <name>${n}</name>\n  </skill>`);
    const part = bare.reduce((size, element) => size - element.length, result.text.length);
    expect(part).toBeLessThanOrEqual(budget / 2 + 2); // the note's count may differ by a digit
    expect(part).toBeGreaterThan(budget / 2 - 300);
    // Names fill the rest: one more skill would not fit.
    const fuller = formatCatalog(skills, {
      budget: budget + 60,
      rank,
      descriptionShare: 0.5,
      location: false,
    });
    expect(fuller.included.length).toBeGreaterThanOrEqual(result.included.length);
  });

  it("with the default share of 0, keeps names only (as before)", () => {
    const result = formatCatalog(skills, { budget: 3000, rank });
    expect(described(result)).toEqual([]);
  });

  it("holds its promises on random lists, pins, shares, hints and budgets", () => {
    const next = random(11);
    for (let round = 0; round < 120; round++) {
      const count = 1 + Math.floor(next() * 40);
      const list = many(count, (i) => "word ".repeat(Math.floor(next() * 40)).trim() || `d${i}`);
      const pinned = list.filter(() => next() < 0.15).map((s) => s.name);
      const scores = list.map(() => Math.floor(next() * 4));
      const rankOf = (s: SkillMetadata) => scores[Number(s.name.slice(2))] as number;
      for (const style of STYLES) {
        const options: CatalogOptions = {
          style,
          rank: rankOf,
          pinned,
          descriptionShare: Math.floor(next() * 3) / 2,
          location: next() < 0.5,
          ...(next() < 0.5 ? { searchHint: "skill_search" } : {}),
          budget: Math.floor(next() * (formatCatalog(list, { style }).text.length + 40)),
        };
        const result = formatCatalog(list, options);
        expect(result.text.length).toBeLessThanOrEqual(options.budget as number);
        expect([...result.included, ...result.omitted].sort()).toEqual(list.map((s) => s.name));
        const listed = shown(result, style);
        expect(listed.map((l) => l.name)).toEqual(result.included);
        // Who is listed, and who is described, is a prefix of the priority order.
        const priority = [...list]
          .map((s, i) => ({ s, i }))
          .sort((a, b) => {
            const pa = pinned.indexOf(a.s.name);
            const pb = pinned.indexOf(b.s.name);
            const qa = pa < 0 ? Number.POSITIVE_INFINITY : pa;
            const qb = pb < 0 ? Number.POSITIVE_INFINITY : pb;
            if (qa !== qb) return qa - qb;
            return rankOf(b.s) - rankOf(a.s) || a.i - b.i;
          })
          .map((x) => x.s.name);
        expect(new Set(result.included)).toEqual(new Set(priority.slice(0, result.included.length)));
        const withText = listed.filter((l) => l.description !== undefined).map((l) => l.name);
        expect(new Set(withText)).toEqual(new Set(priority.slice(0, withText.length)));
        // The first pinned skill, when it has a description, has it whole if that fits at all.
        const first = listed.find((l) => l.name === pinned[0]);
        const original = list.find((s) => s.name === pinned[0])?.description;
        if (first?.description !== undefined && first.description !== original) {
          const alone = formatCatalog(list, {
            ...options,
            pinned: [pinned[0] as string],
            descriptionShare: 0,
          });
          expect(shown(alone, style).find((l) => l.name === pinned[0])?.description).not.toBe(original);
        }
        expect(result.nameOnly).toEqual(listed.filter((l) => l.description === undefined).map((l) => l.name));
        expect(formatCatalog(list, options)).toEqual(result);
      }
    }
  });
});

describe("formatCatalog new options are checked", () => {
  it("refuses bad values with INVALID_FIELD naming the option", () => {
    const bad: [CatalogOptions, string][] = [
      [{ pinned: "pdf" as never }, "pinned"],
      [{ pinned: [1] as never }, "pinned"],
      [{ searchHint: "" }, "searchHint"],
      [{ searchHint: 3 as never }, "searchHint"],
      [{ location: "no" as never }, "location"],
      [{ descriptionShare: 2 }, "descriptionShare"],
      [{ descriptionShare: Number.NaN }, "descriptionShare"],
    ];
    for (const [options, field] of bad) {
      let error: unknown;
      try {
        formatCatalog([skill("pdf")], options);
      } catch (e) {
        error = e;
      }
      expect(SkillError.isInstance(error) && error.code === "INVALID_FIELD" && error.field).toBe(field);
    }
  });
});
