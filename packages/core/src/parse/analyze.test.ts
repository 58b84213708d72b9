import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySource } from "../registry/memory-source.js";
import { SkillService } from "../registry/service.js";
import { SkillError } from "../spec/errors.js";
import { dataOf } from "./analyze.js";
import { deepFreeze, toJsonValue } from "./json-value.js";
import { loadSkillFile, parseSkill } from "./parse-skill.js";

const LOC = "/skills/data-skill/SKILL.md";

function thrown(fn: () => unknown): SkillError {
  try {
    fn();
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SkillError");
}

describe("frontmatter as JSON data", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "skill-core-analyze-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const TEXT = [
    "---",
    "name: data-skill",
    "description: Holds YAML types that JSON lacks",
    "released: 2024-01-01",
    "stamp: 2001-12-14t21:59:43.10-05:00",
    "icon: !!binary aGVsbG8gd29ybGQ=",
    "metadata:",
    "  created: 2023-05-06",
    "---",
    "body",
    "",
  ].join("\n");

  it("keeps !!binary as base64 and dates as ISO strings, frozen", () => {
    const { skill } = parseSkill(TEXT, LOC);
    expect(skill.frontmatter).toEqual({
      name: "data-skill",
      description: "Holds YAML types that JSON lacks",
      released: "2024-01-01T00:00:00.000Z",
      stamp: "2001-12-15T02:59:43.100Z",
      icon: "aGVsbG8gd29ybGQ=",
      metadata: { created: "2023-05-06T00:00:00.000Z" },
    });
    expect(Object.isFrozen(skill.frontmatter)).toBe(true);
    expect(Object.isFrozen(skill.frontmatter.metadata)).toBe(true);
  });

  it("survives structuredClone and a JSON round trip unchanged", () => {
    const { skill } = parseSkill(TEXT, LOC);
    expect(structuredClone(skill.frontmatter)).toEqual(skill.frontmatter);
    expect(JSON.parse(JSON.stringify(skill.frontmatter))).toEqual(skill.frontmatter);
    expect(JSON.parse(JSON.stringify(skill))).toEqual({ ...skill });
  });

  it("still checks the YAML as parsed: a date is reported as a date", () => {
    const error = thrown(() => parseSkill("---\nname: data-skill\ndescription: 2024-01-01\n---\n", LOC));
    expect(error.code).toBe("INVALID_FIELD");
    expect(error.message).toBe(
      `Invalid frontmatter field 'description' in ${LOC}: expected a string, found a date "2024-01-01T00:00:00.000Z"`,
    );
    const { diagnostics } = parseSkill(TEXT, LOC);
    expect(diagnostics.find((d) => d.code === "metadata-value-not-string")?.message).toContain(
      "'created' (a date)",
    );
  });

  it("reads a SKILL.md holding !!binary from disk", async () => {
    const path = join(dir, "SKILL.md");
    await writeFile(path, TEXT.replace("data-skill", "bin"));
    const { skill } = await loadSkillFile(path);
    expect(skill.frontmatter.icon).toBe(Buffer.from("hello world").toString("base64"));
  });

  it("loads a skill holding !!binary into a SkillService", async () => {
    const service = new SkillService({
      sources: [memorySource("mem", [{ location: "builtin:data-skill", text: TEXT }])],
    });
    const report = await service.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(service.require("data-skill").frontmatter.icon).toBe("aGVsbG8gd29ybGQ=");
    expect((await service.read("data-skill")).frontmatter.released).toBe("2024-01-01T00:00:00.000Z");
  });
});

describe("dataOf", () => {
  const full = (value: object) => deepFreeze(toJsonValue(value) as Record<string, unknown>);

  it("makes a mapping of strings the same frozen data as the full copy, as a new object", () => {
    const cases: object[] = [
      {},
      { name: "pdf", description: "Reads PDFs" },
      JSON.parse('{"name":"x","__proto__":"own field","description":"d"}'),
      Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v${i}`])),
    ];
    for (const value of cases) {
      const made = dataOf(value, 10_000);
      expect(made.tooLarge).toBe(false);
      expect(made.data).toEqual(full(value));
      expect(Object.keys(made.data ?? {})).toEqual(Object.keys(value));
      expect(Object.isFrozen(made.data)).toBe(true);
      expect(made.data).not.toBe(value);
      expect(Object.getPrototypeOf(made.data)).toBe(Object.prototype);
    }
    expect(Object.hasOwn(dataOf(cases[2] as object, 10_000).data ?? {}, "__proto__")).toBe(true);
  });

  it("makes lists and mappings of plain values one level down the same frozen data as the full copy", () => {
    const cases: object[] = [
      { name: "pdf", metadata: { author: "a", version: "1.0" }, "allowed-tools": ["Read", "Bash(git:*)"] },
      { name: "n", count: 3, flag: false, none: null, ratio: 0.5, tags: [], meta: {} },
      { name: "n", list: [1, "two", true, null] },
      JSON.parse('{"name":"x","metadata":{"a":"1"},"__proto__":"own field"}'),
      // Anything else takes the full copy, and still comes out equal.
      { name: "n", zero: -0 },
      // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
      { name: "n", list: [1, , 3] },
      { name: "n", metadata: { deeper: { x: "1" } } },
      { name: "n", list: [["a"]] },
      { name: "n", big: Number.POSITIVE_INFINITY },
      JSON.parse('{"name":"x","metadata":{"__proto__":"own field"}}'),
      JSON.parse('{"name":"x","__proto__":{"a":"1"}}'),
      { name: "n", when: new Date(Date.UTC(2026, 0, 2)), metadata: { when: new Date(0) } },
      { name: "n", metadata: Object.assign(Object.create({ inherited: "x" }), { own: "y" }) },
    ];
    for (const value of cases) {
      const made = dataOf(value, 10_000);
      expect(made.tooLarge).toBe(false);
      expect(made.data).toEqual(full(value));
      expect(JSON.stringify(made.data)).toBe(JSON.stringify(full(value)));
      expect(Object.keys(made.data ?? {})).toEqual(Object.keys(full(value)));
      expect(Object.isFrozen(made.data)).toBe(true);
      for (const field of Object.values(made.data ?? {})) {
        if (typeof field === "object" && field !== null) expect(Object.isFrozen(field)).toBe(true);
      }
    }
    // The copies are new objects: the parser's values are never frozen or shared.
    const given = { name: "n", metadata: { a: "1" }, list: ["x"] };
    const made = dataOf(given, 10_000).data as Record<string, object>;
    expect(made.metadata).not.toBe(given.metadata);
    expect(made.list).not.toBe(given.list);
    expect(Object.isFrozen(given.metadata)).toBe(false);
    // Values one level down count against the limit as exceedsNodeLimit counts them.
    const nested = { name: "n", metadata: { a: "1", b: "2" } };
    expect(dataOf(nested, 4).tooLarge).toBe(true);
    expect(dataOf(nested, 5).tooLarge).toBe(false);
  });

  it("copies anything else in full, and counts a flat mapping's fields against the limit", () => {
    const date = new Date(Date.UTC(2026, 0, 2));
    const nested = { name: "x", metadata: { version: "1" }, when: date, count: 3, list: ["a"] };
    expect(dataOf(nested, 10_000).data).toEqual({
      name: "x",
      metadata: { version: "1" },
      when: "2026-01-02T00:00:00.000Z",
      count: 3,
      list: ["a"],
    });
    expect(Object.isFrozen(dataOf(nested, 10_000).data?.metadata)).toBe(true);
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "v"]));
    expect(dataOf(wide, 20).tooLarge).toBe(true);
    expect(dataOf(wide, 21).tooLarge).toBe(false);
    expect(dataOf(Object.create({ inherited: "x" }), 10_000).data).toEqual({});
  });
});
