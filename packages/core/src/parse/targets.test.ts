import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ValidateOptions } from "../spec/types.js";
import { validateSkillFile } from "./parse-skill.js";

/** One SKILL.md on disk: its folder, frontmatter lines, body and file name. */
interface File {
  readonly folder: string;
  readonly fm: string;
  readonly body?: string;
  readonly fileName?: string;
}

interface Case {
  readonly rule: string;
  readonly options: ValidateOptions;
  readonly severity: "error" | "warning";
  readonly pass: File;
  readonly fail: File;
}

const d = "description: Work with PDFs. Use when asked.";
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

const CASES: Case[] = [
  // New rules of the spec, in the default target.
  {
    rule: "allowed-tools-not-string",
    options: {},
    severity: "warning",
    pass: { folder: "at", fm: `name: at\n${d}\nallowed-tools: Bash Read` },
    fail: { folder: "at", fm: `name: at\n${d}\nallowed-tools:\n  - Bash\n  - Read` },
  },
  {
    rule: "allowed-tools-not-string",
    options: { strict: true },
    severity: "error",
    pass: { folder: "at", fm: `name: at\n${d}\nallowed-tools: Bash Read` },
    fail: { folder: "at", fm: `name: at\n${d}\nallowed-tools: [Bash, Read]` },
  },
  {
    rule: "compatibility-not-string",
    options: {},
    severity: "warning",
    pass: { folder: "co", fm: `name: co\n${d}\ncompatibility: Needs git 2.40` },
    fail: { folder: "co", fm: `name: co\n${d}\ncompatibility: 2.40` },
  },
  {
    rule: "compatibility-empty",
    options: {},
    severity: "warning",
    pass: { folder: "co", fm: `name: co\n${d}\ncompatibility: Needs git` },
    fail: { folder: "co", fm: `name: co\n${d}\ncompatibility: ""` },
  },
  {
    rule: "compatibility-too-long",
    options: {},
    severity: "warning",
    pass: { folder: "co", fm: `name: co\n${d}\ncompatibility: ${"c".repeat(500)}` },
    fail: { folder: "co", fm: `name: co\n${d}\ncompatibility: ${"c".repeat(501)}` },
  },
  {
    rule: "metadata-not-mapping",
    options: {},
    severity: "warning",
    pass: { folder: "me", fm: `name: me\n${d}\nmetadata:\n  author: me` },
    fail: { folder: "me", fm: `name: me\n${d}\nmetadata: [author, me]` },
  },
  {
    rule: "metadata-value-not-string",
    options: {},
    severity: "warning",
    pass: { folder: "me", fm: `name: me\n${d}\nmetadata:\n  version: "1.0"` },
    fail: { folder: "me", fm: `name: me\n${d}\nmetadata:\n  version: 1.0` },
  },
  // skills-ref: Unicode names after NFKC, unknown fields always errors, skill.md accepted.
  {
    rule: "name-invalid-chars",
    options: { target: "skills-ref" },
    severity: "warning",
    pass: { folder: "données-2", fm: `name: données-2\n${d}` },
    fail: { folder: "Données", fm: `name: Données\n${d}` },
  },
  {
    rule: "name-mismatch",
    options: { target: "skills-ref" },
    severity: "warning",
    // Full-width letters fold to ASCII under NFKC, in the folder name as in the field.
    pass: { folder: "ｐｄｆ", fm: `name: pdf\n${d}` },
    fail: { folder: "pdf-tools", fm: `name: pdf\n${d}` },
  },
  {
    rule: "unknown-field:version",
    options: { target: "skills-ref" },
    severity: "error",
    pass: { folder: "pdf", fm: `name: pdf\n${d}\nlicense: MIT` },
    fail: { folder: "pdf", fm: `name: pdf\n${d}\nversion: 1` },
  },
  {
    rule: "file-name-case",
    options: {},
    severity: "warning",
    pass: { folder: "pdf", fm: `name: pdf\n${d}` },
    fail: { folder: "pdf", fm: `name: pdf\n${d}`, fileName: "skill.md" },
  },
  {
    rule: "file-name-case",
    options: { target: "skills-ref" },
    severity: "warning",
    pass: { folder: "pdf", fm: `name: pdf\n${d}`, fileName: "skill.md" },
    fail: { folder: "pdf", fm: `name: pdf\n${d}`, fileName: "Skill.MD" },
  },
  // claude-code: its own fields are known, a missing name is the folder's, long listings are cut.
  {
    rule: "unknown-field:labels",
    options: { target: "claude-code" },
    severity: "warning",
    pass: {
      folder: "cc",
      fm: `name: cc\n${d}\nwhen_to_use: On PDFs\nargument-hint: "[file]"\nallowed-tools: [Read, Bash]\ndisable-model-invocation: true\ncontext: fork\nagent: Explore\npaths: ["*.pdf"]`,
    },
    fail: { folder: "cc", fm: `name: cc\n${d}\nwhen_to_use: On PDFs\nlabels: [pdf]` },
  },
  {
    rule: "name-missing",
    options: { target: "claude-code", strict: true },
    severity: "warning",
    pass: { folder: "cc", fm: `name: cc\n${d}` },
    fail: { folder: "cc", fm: d },
  },
  {
    rule: "listing-truncated",
    options: { target: "claude-code" },
    severity: "warning",
    pass: { folder: "cc", fm: `name: cc\ndescription: ${"d".repeat(1000)}\nwhen_to_use: ${"w".repeat(536)}` },
    fail: { folder: "cc", fm: `name: cc\ndescription: ${"d".repeat(1000)}\nwhen_to_use: ${"w".repeat(537)}` },
  },
  // codex: Codex 0.171 loads an over-long description (a 5,000-character one was measured): a
  // warning; it skips a name over 64 ("invalid name: exceeds maximum length of 64 characters"):
  // an error, lenient or not. Whitespace runs count as one space.
  {
    rule: "description-too-long",
    options: { target: "codex" },
    severity: "warning",
    pass: { folder: "cx", fm: `name: cx\ndescription: "${"ab   ".repeat(340)}"` },
    fail: { folder: "cx", fm: `name: cx\ndescription: ${"d".repeat(1025)}` },
  },
  {
    rule: "name-too-long",
    options: { target: "codex" },
    severity: "error",
    pass: { folder: "cx", fm: `name: ${"N".repeat(64)}\n${d}` },
    fail: { folder: "cx", fm: `name: ${"n".repeat(65)}\n${d}` },
  },
  {
    rule: "name-missing",
    options: { target: "codex" },
    severity: "warning",
    pass: { folder: "cx", fm: `name: Any_Name\n${d}` },
    fail: { folder: "cx", fm: d },
  },
  // gh-publish: what `gh skill publish` refuses is an error, what it recommends a warning.
  {
    rule: "name-invalid-chars",
    options: { target: "gh-publish" },
    severity: "error",
    pass: { folder: "pdf-2", fm: `name: pdf-2\n${d}\nlicense: MIT` },
    fail: { folder: "PDF", fm: `name: PDF\n${d}\nlicense: MIT` },
  },
  {
    rule: "name-mismatch",
    options: { target: "gh-publish" },
    severity: "error",
    pass: { folder: "pdf", fm: `name: pdf\n${d}\nlicense: MIT` },
    fail: { folder: "pdf-tools", fm: `name: pdf\n${d}\nlicense: MIT` },
  },
  {
    rule: "allowed-tools-not-string",
    options: { target: "gh-publish" },
    severity: "error",
    pass: { folder: "gh", fm: `name: gh\n${d}\nlicense: MIT\nallowed-tools: Bash Read` },
    fail: { folder: "gh", fm: `name: gh\n${d}\nlicense: MIT\nallowed-tools: [Bash, Read]` },
  },
  {
    rule: "install-metadata",
    options: { target: "gh-publish" },
    severity: "error",
    pass: { folder: "gh", fm: `name: gh\n${d}\nlicense: MIT\nmetadata:\n  author: me` },
    fail: {
      folder: "gh",
      fm: `name: gh\n${d}\nlicense: MIT\nmetadata:\n  github-repo: https://github.com/o/r\n  github-ref: v1`,
    },
  },
  {
    rule: "description-too-long",
    options: { target: "gh-publish" },
    severity: "warning",
    // 512 code points, 1,024 bytes of UTF-8 / 513 code points, 1,026 bytes.
    pass: { folder: "gh", fm: `name: gh\ndescription: ${"é".repeat(512)}\nlicense: MIT` },
    fail: { folder: "gh", fm: `name: gh\ndescription: ${"é".repeat(513)}\nlicense: MIT` },
  },
  {
    rule: "body-too-long",
    options: { target: "gh-publish" },
    severity: "warning",
    pass: { folder: "gh", fm: `name: gh\n${d}\nlicense: MIT`, body: `\n\n${lines(500)}` },
    fail: { folder: "gh", fm: `name: gh\n${d}\nlicense: MIT`, body: lines(501) },
  },
  {
    rule: "license-missing",
    options: { target: "gh-publish" },
    severity: "warning",
    pass: { folder: "gh", fm: `name: gh\n${d}\nlicense: Apache-2.0` },
    fail: { folder: "gh", fm: `name: gh\n${d}` },
  },
];

describe("validation rules and targets, one passing and one failing file each", () => {
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "skill-core-targets-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function write(file: File): Promise<string> {
    const folder = join(dir, String(n++), file.folder);
    await mkdir(folder, { recursive: true });
    const path = join(folder, file.fileName ?? "SKILL.md");
    await writeFile(path, `---\n${file.fm}\n---\n${file.body ?? "# Body\n"}`);
    return path;
  }

  it.each(CASES.map((c) => [c.rule, JSON.stringify(c.options), c] as const))("%s %s", async (_, __, c) => {
    const passed = await validateSkillFile(await write(c.pass), c.options);
    expect(passed.map((x) => x.code)).not.toContain(c.rule);
    expect(passed.filter((x) => x.severity === "error")).toEqual([]);
    const failed = await validateSkillFile(await write(c.fail), c.options);
    expect(failed).toContainEqual(expect.objectContaining({ code: c.rule, severity: c.severity }));
  });

  it("spec judges the Unicode name skills-ref accepts, and skills-ref the folder spec rejects", async () => {
    const unicode = await write({ folder: "données", fm: `name: données\n${d}` });
    expect((await validateSkillFile(unicode)).map((x) => x.code)).toEqual(["name-invalid-chars"]);
    expect(await validateSkillFile(unicode, { target: "skills-ref" })).toEqual([]);
    const wide = await write({ folder: "ｐｄｆ", fm: `name: pdf\n${d}` });
    expect((await validateSkillFile(wide)).map((x) => x.code)).toEqual(["name-mismatch"]);
  });

  it("claude-code knows its own fields, where spec reports each one", async () => {
    const path = await write({
      folder: "cc",
      fm: `name: cc\n${d}\nwhen_to_use: x\nmodel: opus\neffort: high`,
    });
    expect(await validateSkillFile(path, { target: "claude-code" })).toEqual([]);
    expect((await validateSkillFile(path)).map((x) => x.code)).toEqual([
      "unknown-field:when_to_use",
      "unknown-field:model",
      "unknown-field:effort",
    ]);
  });

  it("codex ignores the charset and folder rules, and a long description is a warning as elsewhere", async () => {
    const odd = await write({ folder: "somewhere", fm: `name: My Skill\n${d}` });
    expect(await validateSkillFile(odd, { target: "codex" })).toEqual([]);
    const long = await write({ folder: "cx", fm: `name: cx\ndescription: ${"d".repeat(1025)}` });
    expect((await validateSkillFile(long)).map((x) => [x.code, x.severity])).toEqual([
      ["description-too-long", "warning"],
    ]);
  });

  it("a missing name under claude-code names the folder and keeps the other findings", async () => {
    const path = await write({ folder: "from-folder", fm: `${d}\nversion: 2` });
    const found = await validateSkillFile(path, { target: "claude-code" });
    expect(found.map((x) => [x.code, x.severity])).toEqual([
      ["name-missing", "warning"],
      ["unknown-field:version", "warning"],
    ]);
    expect(found[0]?.message).toContain(`"from-folder"`);
    expect((await validateSkillFile(path)).map((x) => [x.code, x.severity])[0]).toEqual([
      "name-missing",
      "error",
    ]);
  });

  it("gh-publish reports every refusal of one file, with lines", async () => {
    const path = await write({
      folder: "pdf",
      fm: `name: Pdf\n${d}\nallowed-tools:\n  - Bash\nmetadata:\n  github-tree-sha: abc`,
    });
    const found = await validateSkillFile(path, { target: "gh-publish" });
    expect(found.map((x) => [x.code, x.severity, x.line])).toEqual([
      ["name-invalid-chars", "error", 2],
      ["name-mismatch", "error", 2],
      ["license-missing", "warning", undefined],
      ["install-metadata", "error", 6],
      ["allowed-tools-not-string", "error", 4],
    ]);
  });
});
