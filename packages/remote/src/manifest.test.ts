import { SkillError } from "@skill/core";
import { describe, expect, it } from "vitest";
import { parseManifest } from "./manifest.js";

const ok = (name: string, files: unknown = ["SKILL.md"], extra: object = {}) => ({ name, files, ...extra });

describe("parseManifest", () => {
  it("keeps valid entries with their description and version", () => {
    const { manifest, skipped } = parseManifest({
      skills: [
        ok("pdf", ["SKILL.md", "reference/forms.md", "scripts/fill form.py", "assets/ünïcode.png"], {
          description: "Read PDFs",
          version: "3f2a",
          extra: "ignored",
        }),
        ok("legacy_Name", ["SKILL.md"], { version: 2 }),
      ],
    });
    expect(skipped).toEqual([]);
    expect(manifest.skills).toEqual([
      {
        name: "pdf",
        description: "Read PDFs",
        version: "3f2a",
        files: ["SKILL.md", "reference/forms.md", "scripts/fill form.py", "assets/ünïcode.png"],
      },
      { name: "legacy_Name", version: "2", files: ["SKILL.md"] },
    ]);
  });

  it("drops a description or version of the wrong type, and repeated files", () => {
    const { manifest } = parseManifest({
      skills: [ok("a", ["SKILL.md", "x.md", "SKILL.md"], { description: 42, version: { v: 1 } })],
    });
    expect(manifest.skills).toEqual([{ name: "a", files: ["SKILL.md", "x.md"] }]);
  });

  it.each([
    [[], 'expected an object with a "skills" list, found a list []'],
    [null, 'expected an object with a "skills" list, found null null'],
    ["skills", 'expected an object with a "skills" list, found a string "skills"'],
    [{}, 'expected an object with a "skills" list, found an object without "skills"'],
    [
      { skills: { a: 1 } },
      'expected an object with a "skills" list, found an object whose "skills" is a mapping',
    ],
  ])("refuses %j as a whole", (value, message) => {
    let error: unknown;
    try {
      parseManifest(value);
    } catch (e) {
      error = e;
    }
    expect(SkillError.isInstance(error) && error.code).toBe("REMOTE_ERROR");
    expect((error as Error).message).toBe(`Remote fetch failed: not a skill index: ${message}`);
  });

  it.each([
    [
      7,
      "skills[0]",
      "INVALID_FIELD",
      'skills[0] must be an object with "name" and "files", found a number 7',
    ],
    [
      { files: ["SKILL.md"] },
      "skills[0]",
      "MISSING_FIELD",
      'skills[0] has no "name" string (found undefined)',
    ],
    [{ name: 5, files: [] }, "skills[0]", "INVALID_FIELD", 'skills[0] has no "name" string (found a number)'],
    [
      { name: "a" },
      "a",
      "MISSING_FIELD",
      '"files" is missing (expected a list of paths, SKILL.md among them)',
    ],
    [ok("a", "SKILL.md"), "a", "INVALID_FIELD", '"files" must be a list of paths, found a string "SKILL.md"'],
    [ok("a", ["SKILL.md", 3]), "a", "INVALID_FIELD", '"files" holds a number 3, expected paths'],
    [ok("a", []), "a", "MISSING_FIELD", '"files" does not list SKILL.md (found [])'],
    [ok("a", ["skill.md"]), "a", "MISSING_FIELD", '"files" does not list SKILL.md (found ["skill.md"])'],
    [
      ok("a", ["SKILL.md", "X.md", "x.md"]),
      "a",
      "UNSAFE_PATH",
      'files "X.md" and "x.md" would be the same file',
    ],
    [
      ok("a", ["SKILL.md", "ref", "ref/x.md"]),
      "a",
      "UNSAFE_PATH",
      'file "ref" is also the folder of "ref/x.md"',
    ],
    [
      ok(
        "a",
        Array.from({ length: 1001 }, (_, i) => `f${i}`),
      ),
      "a",
      "LIMIT_EXCEEDED",
      "it lists 1001 files, more than 1000",
    ],
    [
      ok("x".repeat(129)),
      `${"x".repeat(128)}…`,
      "UNSAFE_PATH",
      `unsafe name "${"x".repeat(60)}…": it is over 128 bytes`,
    ],
    [
      ok("a\u001b[31mred"),
      "a\\u001b[31mred",
      "UNSAFE_PATH",
      'unsafe name "a\\u001b[31mred": it holds a control character',
    ],
    [ok("a\u009bb"), "a\\u009bb", "UNSAFE_PATH", 'unsafe name "a\\u009bb": it holds a control character'],
    [ok("con"), "con", "UNSAFE_PATH", 'unsafe name "con": "con" is a reserved device name on Windows'],
    [ok("a."), "a.", "UNSAFE_PATH", 'unsafe name "a.": "a." starts or ends with a space, or ends with a dot'],
    [
      ok("a", ["SKILL.md", "x\ud800.md"]),
      "a",
      "UNSAFE_PATH",
      'unsafe file "x\\ud800.md": it is not valid Unicode',
    ],
    [
      ok("a", ["SKILL.md", `${"d".repeat(256)}/x`]),
      "a",
      "UNSAFE_PATH",
      `unsafe file "${"d".repeat(60)}…": a segment is over 255 bytes`,
    ],
  ])("skips %j with a reason", (entry, name, code, reason) => {
    const { manifest, skipped } = parseManifest({ skills: [entry, ok("fine")] });
    expect(manifest.skills.map((s) => s.name)).toEqual(["fine"]);
    expect(skipped).toEqual([{ name, code, reason }]);
  });

  it("reads 10,000 entries in one pass", () => {
    const skills = Array.from({ length: 10_000 }, (_, i) => ok(i % 2 ? `S${i - 1}` : `s${i}`));
    const { manifest, skipped } = parseManifest({ skills });
    expect(manifest.skills).toHaveLength(5_000);
    expect(skipped).toHaveLength(5_000);
    expect(skipped[0]).toEqual({
      name: "S0",
      code: "DUPLICATE_NAME",
      reason: 'duplicate name "S0": skills[0] already uses it',
    });
  });
});
