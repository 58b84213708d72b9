import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateSkillFile } from "./parse-skill.js";
import { validateFrontmatter, validateSkill } from "./validate.js";

const LOC = "/skills/pdf-tools/SKILL.md";
const codes = (fm: Record<string, unknown>, location = LOC) =>
  validateFrontmatter(fm, location).map((d) => d.code);

describe("validateFrontmatter", () => {
  it("accepts a spec-valid skill", () => {
    expect(
      codes({
        name: "pdf-tools",
        description: "Work with PDFs",
        license: "MIT",
        compatibility: "Needs poppler",
        metadata: { author: "x" },
        "allowed-tools": "Bash Read",
      }),
    ).toEqual([]);
  });

  it.each([
    [{ description: "d" }, ["name-missing"]],
    [{ name: null, description: "d" }, ["name-missing"]],
    [{ name: 7, description: "d" }, ["name-not-string"]],
    [{ name: "", description: "d" }, ["name-empty"]],
    [{ name: "a".repeat(65), description: "d" }, ["name-too-long", "name-mismatch"]],
    [{ name: "PDF_Tools", description: "d" }, ["name-invalid-chars", "name-mismatch"]],
    [{ name: "pdf-tööls", description: "d" }, ["name-invalid-chars", "name-mismatch"]],
    [{ name: "-pdf-tools", description: "d" }, ["name-leading-or-trailing-hyphen", "name-mismatch"]],
    [{ name: "pdf--tools", description: "d" }, ["name-consecutive-hyphens", "name-mismatch"]],
    [{ name: "other", description: "d" }, ["name-mismatch"]],
    [{ name: "pdf-tools" }, ["description-missing"]],
    [{ name: "pdf-tools", description: 3 }, ["description-not-string"]],
    [{ name: "pdf-tools", description: " \n " }, ["description-empty"]],
    [{ name: "pdf-tools", description: "d".repeat(1025) }, ["description-too-long"]],
    [{ name: "pdf-tools", description: "d", compatibility: "c".repeat(501) }, ["compatibility-too-long"]],
    [{ name: "pdf-tools", description: "d", compatibility: 1 }, ["compatibility-not-string"]],
    [{ name: "pdf-tools", description: "d", license: ["MIT"] }, ["license-not-string"]],
    [{ name: "pdf-tools", description: "d", metadata: "x" }, ["metadata-not-mapping"]],
    [{ name: "pdf-tools", description: "d", "allowed-tools": { a: 1 } }, ["allowed-tools-not-string"]],
    [
      { name: "pdf-tools", description: "d", "allowed-tools": ["Bash", "Read"] },
      ["allowed-tools-not-string"],
    ],
    [{ name: "pdf-tools", description: "d", compatibility: " " }, ["compatibility-empty"]],
    [{ name: "pdf-tools", description: "d", metadata: ["a"] }, ["metadata-not-mapping"]],
    [{ name: "pdf-tools", description: "d", metadata: new Date(0) }, ["metadata-not-mapping"]],
    [
      { name: "pdf-tools", description: "d", metadata: { version: 1, tags: ["x"] } },
      ["metadata-value-not-string"],
    ],
    [
      { name: "pdf-tools", description: "d", version: "1", model: "x" },
      ["unknown-field:version", "unknown-field:model"],
    ],
  ])("reports %j as %j", (fm, expected) => {
    expect(codes(fm)).toEqual(expected);
  });

  it("trims and counts code points, not UTF-16 units", () => {
    expect(codes({ name: "  pdf-tools  ", description: "  d  " })).toEqual([]);
    expect(codes({ name: "pdf-tools", description: "😀".repeat(1024) })).toEqual([]);
    expect(codes({ name: "pdf-tools", description: "😀".repeat(1025) })).toEqual(["description-too-long"]);
  });

  it("allows a list of strings for allowed-tools only under the claude-code target", () => {
    const fm = { name: "pdf-tools", description: "d", "allowed-tools": ["Bash", "Read"] };
    expect(validateFrontmatter(fm, LOC, { target: "claude-code" })).toEqual([]);
    const [spec] = validateFrontmatter(fm, LOC);
    expect(spec).toMatchObject({
      code: "allowed-tools-not-string",
      severity: "warning",
      field: "allowed-tools",
    });
    expect(spec?.message).toContain(`allowed-tools: "Bash Read"`);
    expect(validateFrontmatter(fm, LOC, { strict: true })[0]?.severity).toBe("error");
    expect(validateFrontmatter(fm, LOC, { target: "gh-publish" })).toContainEqual(
      expect.objectContaining({ code: "allowed-tools-not-string", severity: "error" }),
    );
  });

  it("names every metadata key whose value is not a string, in one finding", () => {
    const [d] = validateFrontmatter(
      { name: "pdf-tools", description: "d", metadata: { a: "x", v: 1.5, n: null } },
      LOC,
    );
    expect(d?.message).toContain("'v' (a number), 'n' (null)");
    expect(d?.message).not.toContain("'a'");
  });

  it("refuses an unknown target with INVALID_FIELD", () => {
    expect(() => validateFrontmatter({}, LOC, { target: "cursor" as never })).toThrow(
      /Unknown validation target "cursor"/,
    );
  });

  it("reports warnings by default and errors in strict mode, but always errors for what blocks loading", () => {
    const lenient = validateFrontmatter({ name: "Other", description: "" }, LOC);
    expect(lenient.map((d) => [d.code, d.severity])).toEqual([
      ["name-invalid-chars", "warning"],
      ["name-mismatch", "warning"],
      ["description-empty", "error"],
    ]);
    const strict = validateFrontmatter({ name: "Other", description: "d" }, LOC, { strict: true });
    expect(strict.every((d) => d.severity === "error")).toBe(true);
    expect(strict[0]).toMatchObject({ path: LOC, field: "name" });
    expect(strict[0]?.message).toContain(LOC);
  });

  it("validateSkill checks a loaded skill's frontmatter", () => {
    const skill = {
      name: "x",
      description: "d",
      location: LOC,
      frontmatter: { name: "x", description: "d" },
      origin: "manual",
      modelInvocable: true,
      userInvocable: true,
    };
    expect(validateSkill(skill).map((d) => d.code)).toEqual(["name-mismatch"]);
  });
});

describe("validateSkillFile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "skill-core-validate-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function write(folder: string, content: string): Promise<string> {
    await mkdir(join(dir, folder), { recursive: true });
    const path = join(dir, folder, "SKILL.md");
    await writeFile(path, content);
    return path;
  }

  it("never throws: a missing file is a file-not-found error", async () => {
    const findings = await validateSkillFile(join(dir, "missing", "SKILL.md"));
    expect(findings).toEqual([expect.objectContaining({ code: "file-not-found", severity: "error" })]);
  });

  it("reports files that do not parse", async () => {
    const noDelimiters = await write("no-delims", "# Just markdown\n");
    expect((await validateSkillFile(noDelimiters)).map((d) => [d.code, d.line])).toEqual([
      ["frontmatter-missing", 1],
    ]);
    const badYaml = await write("bad-yaml", "---\nname: bad-yaml\ndescription: [oops\n---\n");
    const [finding] = await validateSkillFile(badYaml);
    expect(finding).toMatchObject({ code: "yaml-invalid", severity: "error", path: badYaml });
    const list = await write("list", "---\n- a\n---\n");
    expect((await validateSkillFile(list)).map((d) => d.code)).toEqual(["frontmatter-not-mapping"]);
  });

  it("reports every finding of a file that parses but cannot load", async () => {
    const path = await write("half", "---\nname: Half_Done\nversion: 2\n---\nbody\n");
    expect((await validateSkillFile(path)).map((d) => [d.code, d.severity, d.line])).toEqual([
      ["name-invalid-chars", "warning", 2],
      ["name-mismatch", "warning", 2],
      ["description-missing", "error", 1],
      ["unknown-field:version", "warning", 3],
    ]);
  });

  it("repairs in lenient mode and refuses in strict mode", async () => {
    const path = await write("colon", "---\nname: colon\ndescription: Use when: asked\n---\n");
    expect((await validateSkillFile(path)).map((d) => [d.code, d.severity])).toEqual([
      ["yaml-repaired", "warning"],
    ]);
    expect(
      (await validateSkillFile(path, { strict: true })).map((d) => [d.code, d.severity, d.line]),
    ).toEqual([["yaml-invalid", "error", 3]]);
  });
});
