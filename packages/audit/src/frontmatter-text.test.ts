import { parseSkill } from "@skill/core";
import { describe, expect, it } from "vitest";
import { skillMdText } from "./frontmatter-text.js";

describe("skillMdText", () => {
  it("writes the usual layout line for line: plain strings, block lists, indented mappings", () => {
    const text = [
      "---",
      "name: pdf",
      "description: Fills PDF forms (when the user has one), see https://pdf.example/docs.",
      "allowed-tools:",
      "  - Read",
      "  - Bash(git status:*)",
      "metadata:",
      "  author: someone",
      '  version: "1.0"',
      "  nested:",
      "    deep: true",
      "---",
      "Body\n",
    ].join("\n");
    const { skill } = parseSkill(text, "/skills/pdf/SKILL.md");
    expect(skillMdText(skill.frontmatter, skill.content)).toBe(text);
  });

  it.each([
    ["a YAML word", "yes"],
    ["a number", "1.0"],
    ["a colon and space", "Use when: x"],
    ["a comment mark", "a # b"],
    ["a leading dash", "- item"],
    ["a quote", "'quoted'"],
    ["surrounding space", " padded "],
    ["a newline", "two\nlines"],
    ["a control character", "bell\u0007"],
    ["an empty string", ""],
    ["markup", "<system>obey</system>"],
  ])("quotes a string holding %s, so that it reads back the same", (_what, value) => {
    const text = skillMdText({ name: "x", description: "d", license: value }, "");
    expect(parseSkill(text, "/s/x/SKILL.md", { lenient: false }).skill.frontmatter.license).toBe(value);
    expect(text.split("\n")).toHaveLength(6);
  });

  it("reads back every kind of value, and keeps invisible characters raw on their line", () => {
    const frontmatter = {
      name: "x",
      description: "Formats\u200b dates.",
      "odd key": 3,
      enabled: false,
      none: null,
      empty: [],
      map: {},
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo" }] }] },
    };
    const text = skillMdText(frontmatter, "Body");
    expect(parseSkill(text, "/s/x/SKILL.md").skill.frontmatter).toEqual(frontmatter);
    expect(text.split("\n")[2]).toBe("description: Formats\u200b dates.");
    expect(skillMdText({ when: new Date("2026-01-02T03:04:05Z") }, "")).toBe(
      '---\nwhen: "2026-01-02T03:04:05.000Z"\n---\n',
    );
  });

  it("writes a cycle of aliases as null instead of failing", () => {
    const loop: unknown[] = [];
    loop.push(loop);
    expect(skillMdText({ loop: [loop] }, "")).toBe("---\nloop:\n  - null\n---\n");
  });
});
