// The load rules that reproduce how real agents read a SKILL.md (measured by
// scripts/agents-real/run.mjs): identity, requireDescription, descriptionFallback, rejectBom,
// requireFrontmatter, brokenYaml and rejectInvalidName.
import { join } from "node:path";
import { removeTempDirs, tempDir, writeTree } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { SkillService } from "../registry/service.js";
import { SkillError } from "../spec/errors.js";
import type { FileKey, HeadCache, SkillHead, SkillSource } from "../spec/skill-source.js";
import type { LoadRules } from "../spec/types.js";
import { loadSkillFile, parseSkill } from "./parse-skill.js";

afterEach(removeTempDirs);

const LOC = "/skills/the-folder/SKILL.md";

function failure(work: () => unknown): { code: string; message: string; field?: string } | undefined {
  try {
    work();
  } catch (error) {
    if (!SkillError.isInstance(error)) throw error;
    return {
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
    };
  }
  return undefined;
}

/** A source returning the SKILL.md files under `dir` at the given relative paths, in order. */
function filesSource(id: string, dir: string, paths: readonly string[]): SkillSource {
  return {
    id,
    scan: async () => ({ entries: paths.map((p) => ({ location: join(dir, p) })), dirs: [dir] }),
  };
}

/** (key, displayName, path relative to dir) of every skill a service with `rules` loads. */
async function loaded(dir: string, paths: readonly string[], rules: LoadRules, headCache?: HeadCache) {
  const service = new SkillService({
    sources: [filesSource("test", dir, paths)],
    ...rules,
    ...(headCache ? { headCache } : {}),
  });
  const report = await service.discoverAndLoad();
  return {
    skills: service.all().map((s) => [s.name, s.displayName, s.location.slice(dir.length + 1)]),
    failed: report.failed.map((f) => [f.path.slice(dir.length + 1), f.error.code]),
    service,
  };
}

describe("identity: folder (Claude Code 2.1.332)", () => {
  it("keys a skill by its folder and shows a differing name as displayName; two folders with one name both load", async () => {
    const dir = await tempDir("skill-core-rules-");
    await writeTree(dir, {
      "claude-dup/SKILL.md": "---\nname: dup-skill\ndescription: one\n---\n",
      "dup/SKILL.md": "---\nname: dup-skill\ndescription: two\n---\n",
      "same/SKILL.md": "---\nname: same\ndescription: three\n---\n",
      "no-name/SKILL.md": "---\ndescription: four\n---\n",
    });
    const paths = ["claude-dup/SKILL.md", "dup/SKILL.md", "same/SKILL.md", "no-name/SKILL.md"];
    const { skills, failed, service } = await loaded(dir, paths, { identity: "folder" });
    expect(failed).toEqual([]);
    expect(skills).toEqual([
      ["claude-dup", "dup-skill", "claude-dup/SKILL.md"],
      ["dup", "dup-skill", "dup/SKILL.md"],
      ["no-name", undefined, "no-name/SKILL.md"],
      ["same", undefined, "same/SKILL.md"],
    ]);
    // read() re-parses under the same rules: the key still holds.
    expect((await service.read("claude-dup")).displayName).toBe("dup-skill");
    // By name (the default), the two collide and one is shadowed.
    expect((await loaded(dir, paths, {})).skills.map((s) => s[0])).toEqual(["dup-skill", "same"]);
  });
});

describe("requireDescription and descriptionFallback", () => {
  const none = "---\nname: the-folder\n---\nFirst line of the body.\n\nMore.\n";
  const empty = '---\nname: the-folder\ndescription: ""\n---\n\n  Body line.\n';

  it("true (default) refuses a missing or empty description", () => {
    expect(failure(() => parseSkill(none, LOC))).toMatchObject({
      code: "MISSING_FIELD",
      field: "description",
    });
    expect(failure(() => parseSkill(empty, LOC))).toMatchObject({
      code: "MISSING_FIELD",
      field: "description",
    });
  });

  it("false (opencode, Copilot) loads both with an empty description and a warning", () => {
    for (const text of [none, empty]) {
      const { skill, diagnostics } = parseSkill(text, LOC, { requireDescription: false });
      expect(skill.description).toBe("");
      expect(diagnostics.map((d) => [d.code, d.severity])).toContainEqual([
        text === none ? "description-missing" : "description-empty",
        "warning",
      ]);
    }
  });

  it('"field" (Gemini CLI 0.61.0) loads an empty description and refuses a missing one', () => {
    expect(parseSkill(empty, LOC, { requireDescription: "field" }).skill.description).toBe("");
    expect(failure(() => parseSkill(none, LOC, { requireDescription: "field" }))).toMatchObject({
      code: "MISSING_FIELD",
    });
  });

  it('descriptionFallback "body" (Claude Code) takes the first non-blank body line', () => {
    expect(parseSkill(none, LOC, { descriptionFallback: "body" }).skill.description).toBe(
      "First line of the body.",
    );
    expect(parseSkill(empty, LOC, { descriptionFallback: "body" }).skill.description).toBe("Body line.");
    // A description that is set wins.
    const set = "---\nname: the-folder\ndescription: Set.\n---\nBody.\n";
    expect(parseSkill(set, LOC, { descriptionFallback: "body" }).skill.description).toBe("Set.");
    // A description that is not a string is still refused.
    const list = "---\nname: the-folder\ndescription: [a]\n---\nBody.\n";
    expect(
      failure(() => parseSkill(list, LOC, { descriptionFallback: "body", requireDescription: false })),
    ).toMatchObject({
      code: "INVALID_FIELD",
      field: "description",
    });
  });

  it("a warm load through a head cache gives the body's description too (the cached head has no body)", async () => {
    const dir = await tempDir("skill-core-rules-");
    await writeTree(dir, { "the-folder/SKILL.md": none });
    const heads = new Map<string, { key: FileKey; head: SkillHead }>();
    let hits = 0;
    const cache: HeadCache = {
      get(key) {
        const hit = heads.get(key.path);
        if (hit && hit.key.ino === key.ino && hit.key.size === key.size && hit.key.mtimeMs === key.mtimeMs) {
          hits++;
          return hit.head;
        }
        return undefined;
      },
      set(key, head) {
        heads.set(key.path, { key, head });
      },
      flush: async () => {},
    };
    const rules: LoadRules = { descriptionFallback: "body", identity: "folder" };
    const cold = await loaded(dir, ["the-folder/SKILL.md"], rules, cache);
    const warm = await loaded(dir, ["the-folder/SKILL.md"], rules, cache);
    expect(cold.service.all()[0]?.description).toBe("First line of the body.");
    expect(warm.service.all()[0]?.description).toBe("First line of the body.");
    expect(hits).toBe(1); // the hit was looked at, and the file read again for its body
  });
});

describe("rejectBom (Codex 0.171.0, Gemini CLI 0.61.0, pi 0.73.1)", () => {
  const text = "\uFEFF---\nname: the-folder\ndescription: d\n---\n";

  it("drops the mark by default and refuses the file with rejectBom", async () => {
    expect(parseSkill(text, LOC).skill.name).toBe("the-folder");
    const refused = failure(() => parseSkill(text, LOC, { rejectBom: true }));
    expect(refused?.code).toBe("PARSE_ERROR");
    expect(refused?.message).toContain("byte order mark");
    const dir = await tempDir("skill-core-rules-");
    await writeTree(dir, { "the-folder/SKILL.md": text });
    await expect(loadSkillFile(join(dir, "the-folder/SKILL.md"), { rejectBom: true })).rejects.toMatchObject({
      code: "PARSE_ERROR",
    });
    const { failed } = await loaded(dir, ["the-folder/SKILL.md"], { rejectBom: true });
    expect(failed).toEqual([["the-folder/SKILL.md", "PARSE_ERROR"]]);
  });
});

describe("requireFrontmatter: false (Claude Code)", () => {
  it("reads a file without delimiters as a skill with no fields; with identity folder and the body fallback it loads", () => {
    const text = "Just instructions.\nMore.\n";
    expect(failure(() => parseSkill(text, LOC))?.code).toBe("PARSE_ERROR");
    expect(failure(() => parseSkill(text, LOC, { requireFrontmatter: false }))?.code).toBe("MISSING_FIELD");
    const { skill, diagnostics } = parseSkill(text, LOC, {
      requireFrontmatter: false,
      identity: "folder",
      descriptionFallback: "body",
    });
    expect([skill.name, skill.displayName, skill.description, skill.content]).toEqual([
      "the-folder",
      undefined,
      "Just instructions.",
      text,
    ]);
    expect(diagnostics.map((d) => [d.code, d.severity])[0]).toEqual(["frontmatter-missing", "warning"]);
  });
});

describe("brokenYaml", () => {
  const broken =
    "---\nname: the-folder\ndescription: tag broken: yaml: here\n  - [unclosed\n---\nBody of it.\n";
  const repairable = "---\nname: the-folder\ndescription: Use when: x\n---\nBody.\n";

  it('"repair" (default, lenient) quotes a plain scalar holding ": "', () => {
    expect(parseSkill(repairable, LOC).skill.description).toBe("Use when: x");
  });

  it('"refuse" (Codex, Copilot, pi, Amp) refuses what does not parse as written', () => {
    const refused = failure(() => parseSkill(repairable, LOC, { brokenYaml: "refuse" }));
    expect(refused?.code).toBe("PARSE_ERROR");
    expect(refused?.message).toContain("put the value of 'description' in quotes");
    expect(failure(() => parseSkill(broken, LOC, { brokenYaml: "refuse" }))?.code).toBe("PARSE_ERROR");
  });

  it('"ignore" (Claude Code) reads broken YAML as no fields, with a warning', () => {
    const { skill, diagnostics } = parseSkill(broken, LOC, {
      brokenYaml: "ignore",
      identity: "folder",
      descriptionFallback: "body",
    });
    expect([skill.name, skill.description, skill.frontmatter]).toEqual(["the-folder", "Body of it.", {}]);
    expect(diagnostics.map((d) => [d.code, d.severity])).toContainEqual(["yaml-invalid", "warning"]);
  });
});

describe("rejectInvalidName (Copilot 1.0.102, Amp 0.0.1790142911)", () => {
  // Each breaks one rule: name-invalid-chars, name-leading-or-trailing-hyphen, name-consecutive-hyphens.
  it.each([["Bad_Name!"], ["-lead"], ["two--hyphens"]])("refuses %s; keyed by folder it loads", (name) => {
    const text = `---\nname: ${name}\ndescription: d\n---\n`;
    expect(parseSkill(text, LOC).skill.name).toBe(name);
    const refused = failure(() => parseSkill(text, LOC, { rejectInvalidName: true }));
    expect(refused).toMatchObject({ code: "INVALID_FIELD", field: "name" });
    expect(refused?.message).toContain(name);
    expect(parseSkill(text, LOC, { rejectInvalidName: true, identity: "folder" }).skill.name).toBe(
      "the-folder",
    );
  });

  it("loads a valid name that differs from the folder", () => {
    const text = "---\nname: other-name\ndescription: d\n---\n";
    expect(parseSkill(text, LOC, { rejectInvalidName: true }).skill.name).toBe("other-name");
  });
});
