import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Runs against the built package (turbo builds before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
const TEXT = "---\nname: shape\ndescription: Loaded from dist\n---\nbody\n";

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entry", () => {
    const cjs = require(`${dist}index.cjs`) as typeof import("./index.js");
    expect(cjs.parseSkill(TEXT, "/x/shape/SKILL.md").skill.description).toBe("Loaded from dist");
    expect(cjs.SKILL_SPEC_VERSION).toBe(2);
    expect(typeof cjs.SkillService).toBe("function");
  });

  it("works through import() of the ESM entry", async () => {
    const esm = (await import(`${dist}index.js`)) as typeof import("./index.js");
    expect(esm.parseSkill(TEXT, "/x/shape/SKILL.md").skill.name).toBe("shape");
  });

  it("recognises a SkillError from another copy of the package", async () => {
    const cjs = require(`${dist}index.cjs`) as typeof import("./index.js");
    const esm = (await import(`${dist}index.js`)) as typeof import("./index.js");
    let error: unknown;
    try {
      cjs.parseSkill("no frontmatter", "/x/SKILL.md");
    } catch (e) {
      error = e;
    }
    expect(error instanceof esm.SkillError).toBe(false);
    expect(esm.SkillError.isInstance(error)).toBe(true);
    expect(cjs.SkillError.isInstance(new esm.SkillError("NOT_FOUND", "x"))).toBe(true);
    expect(esm.SkillError.isInstance(new Error("plain"))).toBe(false);
    expect(esm.SkillError.isInstance({ code: "NOT_FOUND" })).toBe(false);
  });

  it("exports exactly the public names", async () => {
    const esm = await import(`${dist}index.js`);
    expect(Object.keys(esm).sort()).toEqual(
      [
        "CLAUDE_CODE_FIELDS",
        "DEFAULT_MAX_BYTES",
        "DEFAULT_MAX_FILE_BYTES",
        "DEFAULT_SKILL_FILES_BYTES",
        "DEFAULT_SKILL_FILES_LIMIT",
        "MAX_SUMMARY_LENGTH",
        "ORIGIN_KINDS",
        "SKILL_FILE",
        "SKILL_SPEC_VERSION",
        "SPEC_FIELDS",
        "SPEC_LIMITS",
        "VALIDATION_TARGETS",
        "SkillError",
        "SkillService",
        "abortError",
        "bodySummary",
        "checkInside",
        "codexSidecarUserOnly",
        "compareCodeUnits",
        "describeKind",
        "didYouMean",
        "digestMemo",
        "errnoOf",
        "errorMessage",
        "fileHeadCache",
        "fileKey",
        "formatBytes",
        "isInside",
        "isSkillFileName",
        "isDigest",
        "isMapping",
        "isNonLocal",
        "linkInside",
        "listSkillFiles",
        "loadSkillFile",
        "memorySource",
        "noopLogger",
        "originKind",
        "originLabel",
        "originRank",
        "parseSkill",
        "printable",
        "quote",
        "readInside",
        "redactError",
        "redactingLogger",
        "redactText",
        "redactThrown",
        "redactUrl",
        "resolveInside",
        "sameFileKey",
        "sha256Digest",
        "sharedReads",
        "similarNames",
        "skillCacheHome",
        "skillFiles",
        "splitFrontmatter",
        "stageSkillFolder",
        "userOnlyNote",
        "userOnlySpellings",
        "userOnlyVerdict",
        "validateFrontmatter",
        "validateSkill",
        "validateSkillFile",
        "withoutCredentials",
        "writeInside",
      ].sort(),
    );
  });
});
