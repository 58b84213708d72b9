import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import { isInside, resolveInside } from "./inside.js";

const root = "/skills/pdf";

function refused(path: unknown): SkillError {
  try {
    resolveInside(root, path as string);
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`resolveInside accepted ${JSON.stringify(path)}`);
}

describe("resolveInside", () => {
  it.each([
    ["SKILL.md", "/skills/pdf/SKILL.md"],
    ["scripts/fill.py", "/skills/pdf/scripts/fill.py"],
    ["./scripts/./fill.py", "/skills/pdf/scripts/fill.py"],
    ["scripts//fill.py", "/skills/pdf/scripts/fill.py"],
    ["scripts/", "/skills/pdf/scripts"],
    [".hidden/x", "/skills/pdf/.hidden/x"],
    ["...", "/skills/pdf/..."],
    ["..x/y..", "/skills/pdf/..x/y.."],
    // Nothing is decoded: these are plain names.
    ["%2e%2e/%2e%2e/etc/passwd", "/skills/pdf/%2e%2e/%2e%2e/etc/passwd"],
    ["a%2fb", "/skills/pdf/a%2fb"],
    ["weird: name?.md", "/skills/pdf/weird: name?.md"],
  ])("resolves %j below the root", (path, expected) => {
    expect(resolveInside(root, path)).toBe(expected);
  });

  it("resolves a relative root against the working directory", () => {
    expect(resolveInside("skills/pdf", "a.md")).toBe(join(resolve("skills/pdf"), "a.md"));
    expect(resolveInside("/skills/pdf/", "a.md")).toBe("/skills/pdf/a.md");
  });

  it.each([
    ["..", 'a ".." segment'],
    ["../docx/SKILL.md", 'a ".." segment'],
    ["scripts/../../x", 'a ".." segment'],
    // Even a ".." that would stay inside is refused: one spelling per file.
    ["scripts/../SKILL.md", 'a ".." segment'],
    ["a/..", 'a ".." segment'],
    ["/etc/passwd", "absolute"],
    ["//server/share/x", "absolute"],
    ["C:\\Windows\\win.ini", "backslash"],
    ["C:/Windows/win.ini", "drive letter"],
    ["c:win.ini", "drive letter"],
    ["\\\\server\\share", "backslash"],
    ["scripts\\fill.py", "backslash"],
    ["..\\..\\x", "backslash"],
    ["a\0b", "NUL"],
    ["", "empty"],
    [".", "the folder itself"],
    ["./", "the folder itself"],
    ["././/.", "the folder itself"],
  ])("refuses %j with UNSAFE_PATH (%s)", (path, why) => {
    const error = refused(path);
    expect(error.code).toBe("UNSAFE_PATH");
    expect(error.message).toContain(why);
    expect(error.message).toContain(`expected a relative "/"-separated path inside ${root}`);
    expect(error.path).toBe(root);
  });

  it("quotes what it found, escaped and cut short", () => {
    expect(refused("../x").message).toContain('found "../x"');
    const nul = refused("a\0b").message;
    expect(nul).toContain('found "a\\u0000b"');
    expect(nul).not.toContain("\0");
    const long = refused(`../${"a".repeat(500)}`).message;
    expect(long.length).toBeLessThan(300);
    expect(long).toContain("…");
  });

  it("refuses a path that is not a string", () => {
    for (const value of [undefined, null, 42, ["a"], { path: "a" }]) {
      const error = refused(value);
      expect(error.code).toBe("UNSAFE_PATH");
      expect(error.message).toContain("not a string");
    }
  });
});

describe("isInside", () => {
  it.each([
    ["/a/b", "/a/b", true],
    ["/a/b", "/a/b/c", true],
    ["/a/b", "/a/b/c/../d", true],
    ["/a/b/", "/a/b/c", true],
    ["/", "/etc/passwd", true],
    ["/a/b", "/a/bc", false],
    ["/a/b", "/a", false],
    ["/a/b", "/a/b/../c", false],
    ["/a/b", "/etc/passwd", false],
  ])("isInside(%j, %j) is %j", (base, path, expected) => {
    expect(isInside(base, path)).toBe(expected);
  });
});
