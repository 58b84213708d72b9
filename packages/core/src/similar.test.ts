import { describe, expect, it } from "vitest";
import { similarNames } from "./similar.js";

const names = [
  "pdf",
  "pdf-forms",
  "pptx",
  "release-notes",
  "release-tag",
  "internal-docs",
  "commit-messages",
];

describe("similarNames", () => {
  it("finds typos, word forms, prefixes and shared beginnings, closest first", () => {
    expect(similarNames("pdf-form", names)).toEqual(["pdf-forms", "pdf"]);
    expect(similarNames("relaese-notes", names)).toEqual(["release-notes"]);
    expect(similarNames("PDF", names)).toEqual(["pdf", "pdf-forms"]);
    expect(similarNames("commit", names)).toEqual(["commit-messages"]);
    expect(similarNames("internal-deploy", names)).toEqual(["internal-docs"]);
    expect(similarNames("release", names)).toEqual(["release-notes", "release-tag"]);
  });

  it("suggests nothing for a name unlike any, an empty one, or no candidates", () => {
    expect(similarNames("kubernetes", names)).toEqual([]);
    expect(similarNames("  ", names)).toEqual([]);
    expect(similarNames("pdf", [])).toEqual([]);
  });

  it("only ever suggests names it was given, at most five, ties in code-unit order", () => {
    const many = ["ab-1", "ab-2", "ab-3", "ab-4", "ab-5", "ab-6", "Ab-0"];
    expect(similarNames("ab-", many)).toEqual(["Ab-0", "ab-1", "ab-2", "ab-3", "ab-4"]);
  });
});
