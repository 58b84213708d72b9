import { describe, expect, it } from "vitest";
import { SkillError } from "./errors.js";
import { splitFrontmatter } from "./frontmatter.js";

describe("splitFrontmatter", () => {
  it("extracts the frontmatter and the body (PRD)", () => {
    const text = "---\nname: test-skill\ndescription: A test skill\n---\n# Instructions\n\nDo the thing.\n";
    expect(splitFrontmatter(text)).toEqual({
      frontmatter: "name: test-skill\ndescription: A test skill",
      body: "# Instructions\n\nDo the thing.\n",
    });
  });

  it("errors when the delimiters are missing (PRD)", () => {
    for (const text of ["name: x\ndescription: y\n", "# Just markdown", "", "---\nname: x\n", "---"]) {
      try {
        splitFrontmatter(text);
        expect.unreachable(`accepted ${JSON.stringify(text)}`);
      } catch (error) {
        expect(SkillError.isInstance(error)).toBe(true);
        expect((error as SkillError).code).toBe("PARSE_ERROR");
        expect((error as SkillError).message).toMatch(
          /^Failed to parse frontmatter: Missing --- frontmatter delimiters/,
        );
      }
    }
  });

  it("splits empty frontmatter (PRD)", () => {
    expect(splitFrontmatter("---\n---\nbody content")).toEqual({ frontmatter: "", body: "body content" });
    expect(splitFrontmatter("---\n---")).toEqual({ frontmatter: "", body: "" });
  });

  it("drops a UTF-8 BOM", () => {
    expect(splitFrontmatter("\uFEFF---\nname: x\n---\nbody")).toEqual({
      frontmatter: "name: x",
      body: "body",
    });
  });

  it("reads CRLF and lone CR line endings as LF", () => {
    expect(splitFrontmatter("---\r\nname: x\r\ndescription: y\r\n---\r\nline 1\r\nline 2\r\n")).toEqual({
      frontmatter: "name: x\ndescription: y",
      body: "line 1\nline 2\n",
    });
    expect(splitFrontmatter("---\rname: x\r---\rbody\r")).toEqual({ frontmatter: "name: x", body: "body\n" });
  });

  it("accepts trailing blanks on both delimiter lines and a closing '...'", () => {
    expect(splitFrontmatter("--- \t\nname: x\n---  \nbody")).toEqual({
      frontmatter: "name: x",
      body: "body",
    });
    expect(splitFrontmatter("---\nname: x\n...\nbody")).toEqual({ frontmatter: "name: x", body: "body" });
  });

  it("requires the opening line to be exactly ---", () => {
    for (const text of [
      "----\nname: x\n---\n",
      " ---\nname: x\n---\n",
      "...\nname: x\n---\n",
      "--- x\nname: x\n---\n",
    ]) {
      expect(() => splitFrontmatter(text)).toThrow(/Missing --- frontmatter delimiters/);
    }
  });

  it("never ends the frontmatter at a --- inside a value or in the body", () => {
    const text = [
      "---",
      'name: "a --- b"',
      "description: |",
      "  first",
      "  ---",
      "  last",
      "---",
      "body",
      "---",
      "more body",
    ].join("\n");
    const { frontmatter, body } = splitFrontmatter(text);
    expect(frontmatter).toBe('name: "a --- b"\ndescription: |\n  first\n  ---\n  last');
    expect(body).toBe("body\n---\nmore body");
  });

  it("removes exactly one newline after the closing line", () => {
    expect(splitFrontmatter("---\nname: x\n---\n\n\nbody\n\n").body).toBe("\n\nbody\n\n");
  });
});
