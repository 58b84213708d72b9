import { describe, expect, it } from "vitest";
import { memorySource } from "../registry/memory-source.js";
import { SkillService } from "../registry/service.js";
import { SkillError } from "../spec/errors.js";
import type { LoadRules } from "../spec/types.js";
import { parseSkill } from "./parse-skill.js";
import { validateFrontmatter } from "./validate.js";

const LOC = "/skills/folder-name/SKILL.md";

function text(fields: string): string {
  return `---\n${fields}\n---\nbody\n`;
}

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (error) {
    return SkillError.isInstance(error) ? error.code : "not a SkillError";
  }
  return undefined;
}

describe("modelInvocable and userInvocable", () => {
  it.each([
    ["disable-model-invocation: true", false, true],
    ["disable-model-invocation: yes", false, true],
    ['disable-model-invocation: "TRUE"', false, true],
    ["disable-model-invocation: false", true, true],
    ["disable-model-invocation: 1", true, true],
    ["user-invocable: false", true, false],
    ['user-invocable: "No"', true, false],
    ["user-invocable: true", true, true],
    ["user-invocable: 0", true, true],
    ["", true, true],
    // opencode v2's spelling: `metadata.opencode/autoinvoke` false or "false".
    ["metadata:\n  opencode/autoinvoke: false", false, true],
    ['metadata:\n  "opencode/autoinvoke": "false"', false, true],
    ['metadata:\n  opencode/autoinvoke: "true"', true, true],
    ["metadata:\n  autoinvoke: false", true, true],
    ['metadata: "opencode/autoinvoke: false"', true, true],
  ])("%s → model %s, user %s", (field, model, user) => {
    const { skill } = parseSkill(text(`name: folder-name\ndescription: d\n${field}`), LOC);
    expect([skill.modelInvocable, skill.userInvocable]).toEqual([model, user]);
  });
});

describe("nameFallback", () => {
  it("none (default): a missing name fails with MISSING_FIELD", () => {
    expect(codeOf(() => parseSkill(text("description: d"), LOC))).toBe("MISSING_FIELD");
  });

  it("folder: a missing or empty name is the folder's name, with a name-missing warning", () => {
    for (const fields of ["description: d", 'name: ""\ndescription: d', "name:\ndescription: d"]) {
      const { skill, diagnostics } = parseSkill(text(fields), LOC, { nameFallback: "folder" });
      expect(skill.name).toBe("folder-name");
      expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([["name-missing", "warning"]]);
    }
  });

  it("folder: a name that is set wins, and a non-string name still fails", () => {
    expect(parseSkill(text("name: own\ndescription: d"), LOC, { nameFallback: "folder" }).skill.name).toBe(
      "own",
    );
    expect(codeOf(() => parseSkill(text("name: 12\ndescription: d"), LOC, { nameFallback: "folder" }))).toBe(
      "INVALID_FIELD",
    );
  });

  it("folder: works for URI locations too", () => {
    const { skill } = parseSkill(text("description: d"), "skill://server/pdf/SKILL.md", {
      nameFallback: "folder",
    });
    expect(skill.name).toBe("pdf");
  });
});

describe("rejectLongFields", () => {
  const longName = "a".repeat(65);
  const longDescription = "d".repeat(1025);

  it("off (default): long fields load with warnings", () => {
    const { skill, diagnostics } = parseSkill(
      text(`name: ${longName}\ndescription: ${longDescription}`),
      LOC,
    );
    expect(skill.name).toBe(longName);
    expect(diagnostics.map((d) => d.code)).toContain("description-too-long");
  });

  it("on: a name over 64 or a description over 1,024 characters fails with INVALID_FIELD", () => {
    expect(
      codeOf(() => parseSkill(text(`name: ${longName}\ndescription: d`), LOC, { rejectLongFields: true })),
    ).toBe("INVALID_FIELD");
    expect(
      codeOf(() =>
        parseSkill(text(`name: ok\ndescription: ${longDescription}`), LOC, { rejectLongFields: true }),
      ),
    ).toBe("INVALID_FIELD");
    const exact = parseSkill(text(`name: ${"a".repeat(64)}\ndescription: ${"d".repeat(1024)}`), LOC, {
      rejectLongFields: true,
    });
    expect(exact.skill.description).toHaveLength(1024);
  });

  it("counts code points, not UTF-16 units", () => {
    const emoji = "😀".repeat(1024);
    expect(
      parseSkill(text(`name: ok\ndescription: ${emoji}`), LOC, { rejectLongFields: true }).skill.name,
    ).toBe("ok");
  });

  it("counts a run of whitespace as one character, as Codex and the codex validation target do", () => {
    // 1,333 characters as written, 1,000 once each run of spaces is one space.
    const spaced = `${"ab  ".repeat(333)}a`;
    expect(spaced).toHaveLength(1333);
    // 1,997 as written, 999 counted.
    const wide = `${"a   ".repeat(499)}a`;
    expect(wide).toHaveLength(1997);
    const loads = (description: string) =>
      codeOf(() =>
        parseSkill(text(`name: ok\ndescription: ${description}`), LOC, { rejectLongFields: true }),
      );
    const codexFindings = (description: string) =>
      validateFrontmatter({ name: "folder-name", description }, LOC, { target: "codex" }).map((d) => d.code);
    for (const description of [spaced, wide]) {
      expect(loads(description)).toBeUndefined();
      expect(codexFindings(description)).not.toContain("description-too-long");
    }
    const over = `${"ab ".repeat(342)}a`; // 1,027 characters, single spaces
    expect(loads(over)).toBe("INVALID_FIELD");
    expect(codexFindings(over)).toContain("description-too-long");
    const name = (value: string) =>
      codeOf(() => parseSkill(text(`name: "${value}"\ndescription: d`), LOC, { rejectLongFields: true }));
    expect(name(`${"ab  ".repeat(21)}a`)).toBeUndefined(); // 85 as written, 64 counted
    expect(name(`${"ab  ".repeat(21)}ab`)).toBe("INVALID_FIELD"); // 65 counted
  });

  it("is shorthand for rejectLongName and rejectLongDescription, each of which holds alone", () => {
    const long = (rules: LoadRules) => ({
      name: codeOf(() => parseSkill(text(`name: ${longName}\ndescription: d`), LOC, rules)),
      description: codeOf(() => parseSkill(text(`name: ok\ndescription: ${longDescription}`), LOC, rules)),
    });
    expect(long({ rejectLongName: true })).toEqual({ name: "INVALID_FIELD", description: undefined });
    expect(long({ rejectLongDescription: true })).toEqual({ name: undefined, description: "INVALID_FIELD" });
    expect(long({ rejectLongFields: true, rejectLongDescription: false })).toEqual({
      name: "INVALID_FIELD",
      description: undefined,
    });
    // Codex 0.171.0 (scripts/agents-real, a 70-character name): "invalid name: exceeds maximum
    // length of 64 characters"; the rule names itself in the error.
    expect(() =>
      parseSkill(text(`name: ${longName}\ndescription: d`), LOC, { rejectLongName: true }),
    ).toThrow(/Field 'name' is 65 characters, over the limit of 64, .*\(rejectLongName\)/);
  });

  it("is applied by SkillService as a load rule", async () => {
    const service = new SkillService({
      sources: [
        memorySource("m", [
          { location: "m://x/long/SKILL.md", text: text(`name: long\ndescription: ${longDescription}`) },
          { location: "m://x/nameless/SKILL.md", text: text("description: d") },
        ]),
      ],
      rejectLongFields: true,
      nameFallback: "folder",
    });
    const report = await service.discoverAndLoad();
    expect(service.all().map((s) => s.name)).toEqual(["nameless"]);
    expect(report.failed.map((f) => [f.path, f.error.code])).toEqual([
      ["m://x/long/SKILL.md", "INVALID_FIELD"],
    ]);
  });
});

describe("numeric options", () => {
  it("refuses a maxBytes that would disable the limit", () => {
    for (const bad of [Number.NaN, -1, "10" as unknown as number]) {
      expect(codeOf(() => parseSkill(text("name: a\ndescription: d"), LOC, { maxBytes: bad }))).toBe(
        "INVALID_FIELD",
      );
      expect(codeOf(() => new SkillService({ maxBytes: bad }))).toBe("INVALID_FIELD");
    }
  });
});

describe("brokenYaml: lines (Gemini CLI 0.61.0)", () => {
  // scripts/agents-real: `description: "tag-… an unclosed quoted scalar (agents)` (no closing
  // quote) is listed by `gemini skills list --all` with the description as written, quote and
  // all, where the YAML parser refuses it.
  const unclosed = 'name: folder-name\ndescription: "an unclosed quoted scalar\n  and a second line';

  it("reads name and description line by line, with a yaml-invalid warning", () => {
    const { skill, diagnostics } = parseSkill(text(unclosed), LOC, { brokenYaml: "lines" });
    expect([skill.name, skill.description]).toEqual([
      "folder-name",
      '"an unclosed quoted scalar and a second line',
    ]);
    expect(diagnostics.map((d) => [d.code, d.severity])).toContainEqual(["yaml-invalid", "warning"]);
  });

  it("refuses what has no name or description line, and leaves YAML that parses alone", () => {
    expect(codeOf(() => parseSkill(text('description: "no name'), LOC, { brokenYaml: "lines" }))).toBe(
      "PARSE_ERROR",
    );
    expect(codeOf(() => parseSkill(text(unclosed), LOC, { brokenYaml: "refuse" }))).toBe("PARSE_ERROR");
    const fine = parseSkill(text("name: folder-name\ndescription: >-\n  folded\n  text"), LOC, {
      brokenYaml: "lines",
    });
    expect(fine.skill.description).toBe("folded text");
    expect(fine.diagnostics).toEqual([]);
  });
});

describe("brokenYaml: quote (Codex 0.171.0)", () => {
  // scripts/agents-real: `codex app-server` skills/list lists `description: tag-… Use when: a
  // colon follows a word` and not `description: tag-… broken: yaml: here` followed by the
  // indented line `  - [unclosed` ("invalid YAML"): it quotes the line alone and parses again.
  it("quotes a plain value holding ': ' on its own line, with a yaml-repaired warning", () => {
    const { skill, diagnostics } = parseSkill(
      text("name: folder-name\ndescription: Use when: a colon follows\nlicense: MIT"),
      LOC,
      { brokenYaml: "quote" },
    );
    expect(skill.description).toBe("Use when: a colon follows");
    expect(skill.frontmatter.license).toBe("MIT");
    expect(diagnostics.map((d) => d.code)).toContain("yaml-repaired");
  });

  it("refuses what quoting the line alone does not mend, which repair folds and loads", () => {
    const broken = text("name: folder-name\ndescription: broken: yaml: here\n  - [unclosed");
    expect(codeOf(() => parseSkill(broken, LOC, { brokenYaml: "quote" }))).toBe("PARSE_ERROR");
    expect(parseSkill(broken, LOC, { brokenYaml: "repair" }).skill.description).toBe(
      "broken: yaml: here - [unclosed",
    );
  });
});

describe("brokenYaml: repair", () => {
  it("reads a plain description holding ': ' as the text it says, with a yaml-repaired warning", () => {
    const { skill, diagnostics } = parseSkill(
      text("name: folder-name\ndescription: Use when: a colon follows"),
      LOC,
      {
        brokenYaml: "repair",
      },
    );
    expect(skill.description).toBe("Use when: a colon follows");
    expect(diagnostics.map((d) => d.code)).toEqual(["yaml-repaired"]);
  });
});

describe('rejectInvalidName: "loose" (Copilot CLI 1.0.102)', () => {
  const refusal = (name: string) =>
    codeOf(() => parseSkill(text(`name: "${name}"\ndescription: d`), LOC, { rejectInvalidName: "loose" }));

  it("refuses only a name that starts otherwise than with an ASCII letter or digit, or holds other characters", () => {
    for (const name of ["Upper_Name", "dot.name", "colon:x", "has space", "trail-", "double--hyphen", "12"])
      expect(refusal(name), name).toBeUndefined();
    for (const name of ["-lead", "Bad!", "a@b", "ünïcode", "_under"])
      expect(refusal(name), name).toBe("INVALID_FIELD");
    expect(
      codeOf(() => parseSkill(text('name: "Bad!"\ndescription: d'), LOC, { rejectInvalidName: true })),
    ).toBe("INVALID_FIELD");
    expect(
      codeOf(() => parseSkill(text("name: Upper_Name\ndescription: d"), LOC, { rejectInvalidName: true })),
    ).toBe("INVALID_FIELD");
  });
});
