import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { corpora, sharedCorpusMissing } from "../../../../fixtures/corpus.mjs";
import { loadSkillFile, validateSkillFile } from "./parse-skill.js";
import { validateSkill } from "./validate.js";

// The rules of the corpus README's table; other ids (compatibility-too-long…) are out of its scope.
const TABLE_RULE =
  /^(name-(missing|not-string|empty|too-long|invalid-chars|leading-or-trailing-hyphen|consecutive-hyphens|mismatch)|description-(missing|not-string|empty|too-long)|unknown-field:.+)$/;

describe.each(corpora)("real skills from $label", ({ dir, expected }) => {
  it("lists every SKILL.md the corpus summary counts", () => {
    expect(expected.skills).toHaveLength(expected.summary.skills);
  });

  it.each(expected.skills.map((e) => [e.path, e] as const))("%s parses as expected", async (path, e) => {
    const { skill } = await loadSkillFile(join(dir, path));
    expect(skill.name).toBe(String(e.name).trim());
    expect(skill.description).toBe(String(e.description).trim());
    expect(Object.keys(skill.frontmatter)).toEqual(e.keys);
    expect(createHash("sha256").update(skill.content).digest("hex")).toBe(e.bodySha256);
    const ids = validateSkill(skill)
      .map((d) => d.code)
      .filter((code) => TABLE_RULE.test(code));
    expect(new Set(ids)).toEqual(new Set(e.specFailures));
    expect(ids).toHaveLength(e.specFailures.length);
  });

  it("validateSkillFile agrees with validateSkill on every file", async () => {
    for (const e of expected.skills) {
      const findings = (await validateSkillFile(join(dir, e.path)))
        .map((d) => d.code)
        .filter((c) => TABLE_RULE.test(c));
      expect(new Set(findings), e.path).toEqual(new Set(e.specFailures));
    }
  });
});

if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});
