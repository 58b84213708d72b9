import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import { loadSkillFile, parseSkill } from "./parse-skill.js";

const LOC = "/skills/test-skill/SKILL.md";

function skillText(frontmatter: string, body = "# Body\n"): string {
  return `---\n${frontmatter}\n---\n${body}`;
}

function thrown(fn: () => unknown): SkillError {
  try {
    fn();
  } catch (error) {
    expect(SkillError.isInstance(error)).toBe(true);
    return error as SkillError;
  }
  throw new Error("expected a SkillError");
}

async function rejected(promise: Promise<unknown>): Promise<SkillError> {
  try {
    await promise;
  } catch (error) {
    expect(SkillError.isInstance(error)).toBe(true);
    return error as SkillError;
  }
  throw new Error("expected a SkillError");
}

/**
 * Runs `body` against the built package in a new `node --expose-gc` and returns how much
 * `process.memoryUsage()[field]` grew from a collected heap to just after it: other tests'
 * garbage and GC timing cannot move the number.
 */
function measureInFreshNode(
  field: "heapUsed" | "arrayBuffers",
  body: string,
): { grew: number; code?: string } {
  const dist = new URL("../../dist/index.js", import.meta.url);
  expect(existsSync(dist), "run `pnpm --filter @skill/core build` first").toBe(true);
  const script = `
    const core = await import(${JSON.stringify(dist.href)});
    const result = {};
    globalThis.gc();
    const before = process.memoryUsage()[${JSON.stringify(field)}];
    ${body}
    result.grew = process.memoryUsage()[${JSON.stringify(field)}] - before;
    console.log(JSON.stringify(result));`;
  const child = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
    timeout: 60_000,
  });
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout) as { grew: number; code?: string };
}

describe("parseSkill", () => {
  it("extracts name, description, body and every field", () => {
    const { skill, diagnostics } = parseSkill(
      skillText(
        "name: test-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: me",
        "Body\n",
      ),
      LOC,
    );
    expect(skill).toEqual({
      name: "test-skill",
      description: "A test skill",
      location: LOC,
      content: "Body\n",
      frontmatter: {
        name: "test-skill",
        description: "A test skill",
        license: "MIT",
        metadata: { author: "me" },
      },
      origin: "manual",
      modelInvocable: true,
      userInvocable: true,
      summary: "Body",
    });
    expect(diagnostics).toEqual([]);
  });

  it("reads a BOM, CRLF and lone CR file like an LF file", () => {
    const lf = parseSkill(skillText("name: test-skill\ndescription: d", "a\nb\n"), LOC).skill;
    expect(parseSkill(`\uFEFF${skillText("name: test-skill\ndescription: d", "a\nb\n")}`, LOC).skill).toEqual(
      lf,
    );
    expect(
      parseSkill(skillText("name: test-skill\ndescription: d", "a\nb\n").replace(/\n/g, "\r\n"), LOC).skill,
    ).toEqual(lf);
    expect(
      parseSkill(skillText("name: test-skill\ndescription: d", "a\nb\n").replace(/\n/g, "\r"), LOC).skill,
    ).toEqual(lf);
  });

  it("keeps a --- inside a quoted value and inside the body", () => {
    const { skill } = parseSkill(
      skillText('name: test-skill\ndescription: "before --- after"', "x\n---\ny\n"),
      LOC,
    );
    expect(skill.description).toBe("before --- after");
    expect(skill.content).toBe("x\n---\ny\n");
  });

  it("closes the frontmatter at '...'", () => {
    const { skill } = parseSkill("---\nname: test-skill\ndescription: d\n...\nbody", LOC);
    expect(skill.content).toBe("body");
  });

  it("reads block scalars, trimming name and description", () => {
    const literal = parseSkill(
      skillText("name: test-skill\ndescription: |\n  line one\n  line two\n"),
      LOC,
    ).skill;
    expect(literal.description).toBe("line one\nline two");
    expect(literal.frontmatter.description).toBe("line one\nline two\n");
    const folded = parseSkill(skillText("name: test-skill\ndescription: >-\n  folded\n  text\n"), LOC).skill;
    expect(folded.description).toBe("folded text");
    const padded = parseSkill(skillText("name: '  test-skill  '\ndescription: '  spaced  '"), LOC).skill;
    expect([padded.name, padded.description]).toEqual(["test-skill", "spaced"]);
  });

  it("repairs an unquoted ': ' in lenient mode, with a yaml-repaired warning", () => {
    const text = skillText("name: test-skill\ndescription: Use when: the user asks\nlicense: MIT");
    const { skill, diagnostics } = parseSkill(text, LOC);
    expect(skill.description).toBe("Use when: the user asks");
    expect(skill.frontmatter.license).toBe("MIT");
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: "yaml-repaired",
        severity: "warning",
        field: "description",
        line: 3,
        path: LOC,
      }),
    ]);
  });

  it("folds continuation lines into a repaired value", () => {
    const text = skillText("name: test-skill\ndescription: Use when: x\n  and also y\nlicense: MIT");
    expect(parseSkill(text, LOC).skill.description).toBe("Use when: x and also y");
  });

  it("does not repair in strict mode: PARSE_ERROR naming the line and the fix", () => {
    const text = skillText("name: test-skill\ndescription: Use when: x");
    const error = thrown(() => parseSkill(text, LOC, { lenient: false }));
    expect(error.code).toBe("PARSE_ERROR");
    expect(error.path).toBe(LOC);
    expect(error.message).toMatch(
      /^Failed to parse frontmatter: .* at line 3 in \/skills\/test-skill\/SKILL\.md/,
    );
    expect(error.message).toContain("Use when: x");
    expect(error.message).toContain("put the value of 'description' in quotes");
  });

  it("names the line where a quote that never closes was opened, not only where the stream ended", () => {
    const double = thrown(() => parseSkill(skillText('name: test-skill\ndescription: "unclosed quote'), LOC));
    expect(double.message).toMatch(
      /within a double quoted scalar at line \d+ .*; the quote opened on line 3 is never closed$/,
    );
    const single = thrown(() =>
      parseSkill(skillText("name: test-skill\ndescription: 'it''s open\nlicense: MIT"), LOC),
    );
    expect(single.message).toMatch(/the quote opened on line 3 is never closed$/);
    // A closed quote, or an escaped one inside, is not blamed.
    const other = thrown(() =>
      parseSkill(skillText('name: test-skill\ndescription: "a \\" b"\nx: [unclosed'), LOC),
    );
    expect(other.message).not.toContain("never closed");
  });

  it("reports YAML that no repair fixes", () => {
    const error = thrown(() => parseSkill(skillText("name: [unclosed\ndescription: d"), LOC));
    expect(error.code).toBe("PARSE_ERROR");
    expect(error.message).toMatch(/^Failed to parse frontmatter: /);
    expect(error.message).toContain(LOC);
  });

  it.each([
    ["a list", "- name: x\n- description: y", /found a list/],
    ["a scalar", "just some text", /found a string "just some text"/],
    ["false", "false", /found a boolean/],
    ["a number", "42", /found a number/],
  ])("rejects frontmatter that is %s with PARSE_ERROR", (_kind, fm, pattern) => {
    const error = thrown(() => parseSkill(skillText(fm), LOC));
    expect(error.code).toBe("PARSE_ERROR");
    expect(error.message).toMatch(/^Failed to parse frontmatter: expected a mapping/);
    expect(error.message).toMatch(pattern);
  });

  it("rejects empty frontmatter with MISSING_FIELD", () => {
    for (const text of ["---\n---\nbody content", "---\n# only a comment\n---\nbody", "---\n\n\n---\n"]) {
      const error = thrown(() => parseSkill(text, LOC));
      expect(error.code).toBe("MISSING_FIELD");
      expect(error.message).toBe(`Missing frontmatter field 'name' in ${LOC} (no fields found)`);
    }
  });

  it("rejects a missing name or description with MISSING_FIELD naming the file and the fields found", () => {
    const noDescription = thrown(() => parseSkill(skillText("name: test-skill\nlicense: MIT"), LOC));
    expect(noDescription.code).toBe("MISSING_FIELD");
    expect(noDescription.field).toBe("description");
    expect(noDescription.message).toBe(
      `Missing frontmatter field 'description' in ${LOC} (found fields: name, license)`,
    );
    const noName = thrown(() => parseSkill(skillText("description: d"), LOC));
    expect(noName.message).toBe(`Missing frontmatter field 'name' in ${LOC} (found fields: description)`);
    const blank = thrown(() => parseSkill(skillText("name: '   '\ndescription: d"), LOC));
    expect(blank.code).toBe("MISSING_FIELD");
    expect(blank.message).toContain("the value is empty");
    const nulled = thrown(() => parseSkill(skillText("name: test-skill\ndescription:"), LOC));
    expect(nulled.code).toBe("MISSING_FIELD");
  });

  it("rejects a name or description that is not a string with INVALID_FIELD", () => {
    const number = thrown(() => parseSkill(skillText("name: 123\ndescription: d"), LOC));
    expect(number.code).toBe("INVALID_FIELD");
    expect(number.field).toBe("name");
    expect(number.message).toBe(
      `Invalid frontmatter field 'name' in ${LOC}: expected a string, found a number 123`,
    );
    const list = thrown(() => parseSkill(skillText("name: test-skill\ndescription: [a, b]"), LOC));
    expect(list.code).toBe("INVALID_FIELD");
    expect(list.message).toContain('found a list ["a","b"]');
  });

  it("refuses text over maxBytes with LIMIT_EXCEEDED", () => {
    const text = skillText("name: test-skill\ndescription: d", "x".repeat(2000));
    const error = thrown(() => parseSkill(text, LOC, { maxBytes: 1000 }));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain(LOC);
    expect(parseSkill(text, LOC, { maxBytes: 4000 }).skill.name).toBe("test-skill");
    // Bytes, not characters: 400 three-byte characters are 1200 bytes.
    expect(
      thrown(() => parseSkill(skillText("name: a\ndescription: d", "€".repeat(400)), LOC, { maxBytes: 1000 }))
        .code,
    ).toBe("LIMIT_EXCEEDED");
  });

  it("survives a YAML alias bomb quickly and refuses it", { tags: ["slow"] }, () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    const letters = "abcdefghi";
    for (let i = 1; i < letters.length; i++) {
      const prev = letters[i - 1];
      lines.push(`${letters[i]}: &${letters[i]} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    const text = skillText(
      `name: test-skill\ndescription: d\n${lines.map((l) => `x${l}`).join("\n")}\nmetadata:\n  bomb: *i`,
    );
    const error = thrown(() => parseSkill(text, LOC));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain("YAML aliases");
    // Memory is measured in a fresh process after a full GC, not among other tests' garbage.
    const { grew, code } = measureInFreshNode(
      "heapUsed",
      `try { core.parseSkill(${JSON.stringify(text)}, "/s/x/SKILL.md"); } catch (e) { result.code = e.code; }`,
    );
    expect(code).toBe("LIMIT_EXCEEDED");
    expect(grew).toBeLessThan(64 * 1024 * 1024);
  });

  it("never lets a __proto__ key pollute prototypes", () => {
    const { skill } = parseSkill(
      skillText("name: test-skill\ndescription: d\n__proto__:\n  polluted: yes"),
      LOC,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(skill.frontmatter)).toContain("__proto__");
  });

  it("adds line numbers to spec findings", () => {
    const { diagnostics } = parseSkill(skillText("name: Other_Name\ndescription: d\nversion: 1.0"), LOC);
    expect(diagnostics.map((d) => [d.code, d.line, d.severity])).toEqual([
      ["name-invalid-chars", 2, "warning"],
      ["name-mismatch", 2, "warning"],
      ["unknown-field:version", 4, "warning"],
    ]);
    // Strict loading refuses the skill, naming every rule it breaks.
    const error = thrown(() =>
      parseSkill(skillText("name: Other_Name\ndescription: d"), LOC, { lenient: false }),
    );
    expect(error.code).toBe("INVALID_FIELD");
    expect(error.message).toBe(
      `Skill ${LOC} breaks the Agent Skills rules: name-invalid-chars: Field 'name' may hold only lowercase letters a-z, digits and hyphens, found "Other_Name" in ${LOC} (and 1 more: name-mismatch)`,
    );
    expect(
      parseSkill(skillText("name: test-skill\ndescription: d"), LOC, { lenient: false }).diagnostics,
    ).toEqual([]);
  });
});

describe("loadSkillFile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "skill-core-load-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function write(name: string, content: string | Buffer): Promise<string> {
    const folder = join(dir, name);
    await mkdir(folder, { recursive: true });
    const path = join(folder, "SKILL.md");
    await writeFile(path, content);
    return path;
  }

  it("loads a file and extracts its fields", async () => {
    const path = await write(
      "test-skill",
      skillText("name: test-skill\ndescription: A test skill", "Instructions\n"),
    );
    const { skill, diagnostics } = await loadSkillFile(path);
    expect(skill.name).toBe("test-skill");
    expect(skill.description).toBe("A test skill");
    expect(skill.location).toBe(path);
    expect(skill.content).toBe("Instructions\n");
    expect(diagnostics).toEqual([]);
  });

  it("reports a missing path as NOT_FOUND", async () => {
    const path = join(dir, "nope", "SKILL.md");
    const error = await rejected(loadSkillFile(path));
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toBe(`Skill file not found: ${path}`);
    expect(error.path).toBe(path);
  });

  it("reports a directory as READ_ERROR", async () => {
    const path = join(dir, "is-a-dir", "SKILL.md");
    await mkdir(path, { recursive: true });
    const error = await rejected(loadSkillFile(path));
    expect(error.code).toBe("READ_ERROR");
    expect(error.message).toMatch(
      /^Failed to read skill file: .*SKILL\.md \(expected a file, found a folder\)$/,
    );
  });

  it("refuses a file over maxBytes without reading it whole", { tags: ["slow"] }, async () => {
    const path = await write("huge", Buffer.alloc(3 * 1024 * 1024, "a"));
    const error = await rejected(loadSkillFile(path));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain("3.0 MiB, the limit is 1.0 MiB");
    const { grew, code } = measureInFreshNode(
      "arrayBuffers",
      `try { await core.loadSkillFile(${JSON.stringify(path)}); } catch (e) { result.code = e.code; }`,
    );
    expect(code).toBe("LIMIT_EXCEEDED");
    expect(grew).toBeLessThan(1024 * 1024);
    await expect(loadSkillFile(path, { maxBytes: 4 * 1024 * 1024 })).rejects.toMatchObject({
      code: "PARSE_ERROR",
    });
  });

  it("reads invalid UTF-8 with replacement characters and a warning", async () => {
    const bytes = Buffer.concat([
      Buffer.from("---\nname: bad-bytes\ndescription: caf"),
      Buffer.from([0xe9, 0xff]),
      Buffer.from("\n---\nbody\n"),
    ]);
    const path = await write("bad-bytes", bytes);
    const { skill, diagnostics } = await loadSkillFile(path);
    expect(skill.description).toBe("caf\uFFFD\uFFFD");
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: "invalid-utf8", severity: "warning", path }),
    ]);
  });
});
