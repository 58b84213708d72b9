import { describe, expect, it } from "vitest";
import { parseSkill } from "./parse-skill.js";
import { bodySummary, MAX_SUMMARY_LENGTH, summaryDecided } from "./summary.js";

describe("bodySummary", () => {
  it("is the first heading and the first paragraph, whitespace collapsed", () => {
    expect(
      bodySummary("\n# PDF tools\n\nFill forms, merge files\nand pull tables out of PDFs.\n\nMore.\n"),
    ).toBe("PDF tools: Fill forms, merge files and pull tables out of PDFs.");
  });

  it("skips code, lists, quotes, tables and HTML before the first prose", () => {
    const body = [
      "<!-- generated -->",
      "# Deploy",
      "```sh",
      "echo not prose",
      "```",
      "- a list item",
      "> a quote",
      "| a | table |",
      "## When to use",
      "Ship the **app** to [Fly.io](https://fly.io) after `npm test` passes.",
    ].join("\n");
    expect(bodySummary(body)).toBe("Deploy: Ship the app to Fly.io after npm test passes.");
  });

  it("is the heading alone, or the paragraph alone, and undefined for neither", () => {
    expect(bodySummary("# Only a title\n\n- then a list\n")).toBe("Only a title");
    expect(bodySummary("Just prose, no heading.\n")).toBe("Just prose, no heading.");
    expect(bodySummary("\n\n```\ncode\n```\n")).toBeUndefined();
    expect(bodySummary("")).toBeUndefined();
  });

  it("is at most 500 characters, cut at a word", () => {
    const summary = bodySummary(`# Long\n\n${"word ".repeat(300)}\n`) ?? "";
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
    expect(summary.endsWith("word…")).toBe(true);
  });

  it("is on what parseSkill returns, taken from the body it read", () => {
    const { skill } = parseSkill(
      "---\nname: pdf\ndescription: Work with PDFs.\n---\n# PDF\n\nFill in forms.\n",
      "/s/pdf/SKILL.md",
    );
    expect(skill.summary).toBe("PDF: Fill in forms.");
    const bare = parseSkill("---\nname: pdf\ndescription: Work with PDFs.\n---\n", "/s/pdf/SKILL.md");
    expect(bare.skill.summary).toBeUndefined();
  });
});

describe("summaryDecided", () => {
  it("is true once the first paragraph ends, or outgrows a summary; false while it may go on", () => {
    expect(summaryDecided("# T\n\nA paragraph.\n\nMore")).toBe(true);
    expect(summaryDecided("# T\n\nA paragraph that")).toBe(false);
    expect(summaryDecided(`# T\n\n${"word ".repeat(120)}`)).toBe(true);
    expect(summaryDecided("# T\n\n```\ncode that fills the start\n")).toBe(false);
    expect(summaryDecided("")).toBe(false);
  });
});
