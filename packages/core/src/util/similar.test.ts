import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { similarNames } from "./similar.js";

afterAll(removeTempDirs);

const names = [
  "pdf",
  "pdf-forms",
  "pptx",
  "release-notes",
  "release-tag",
  "internal-docs",
  "commit-messages",
];

/**
 * Runs `similarNames` (this source, with the one file it imports) in a child whose heap is
 * capped at `heapMb`: a quadratic table for two long names cannot fit, and the child dies.
 */
async function similarInSmallHeap(wanted: string, given: readonly string[], heapMb: number) {
  const dir = await tempDir("skill-similar-");
  for (const name of ["similar", "text"]) {
    const source = await readFile(new URL(`./${name}.ts`, import.meta.url), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(dir, `${name}.mjs`), outputText.replaceAll('"./text.js"', '"./text.mjs"'));
  }
  await writeFile(join(dir, "input.json"), JSON.stringify({ wanted, given }));
  const script = `
    import { readFileSync } from "node:fs";
    import { similarNames } from "./similar.mjs";
    const { wanted, given } = JSON.parse(readFileSync("./input.json", "utf8"));
    process.stdout.write(JSON.stringify(similarNames(wanted, given)));`;
  await writeFile(join(dir, "run.mjs"), script);
  const child = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, "run.mjs"], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr.slice(0, 500) };
}

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

  it("counts at most three edits, transpositions as one, whatever the lengths", () => {
    expect(
      similarNames("abcdefghijkl", ["abcdefghijkl-x", "abdcefhgijkl", "bacdefghijlk", "zzzzefghijkl"]),
    ).toEqual(["abcdefghijkl-x", "abdcefhgijkl", "bacdefghijlk"]);
    // Four edits apart is not similar (and shares less than half of the name).
    expect(similarNames("abcdefghijkl", ["zzzzefghijkx"])).toEqual([]);
  });

  it("compares two 20,000-character names in a 64 MB heap: one edit apart, and nothing alike", {
    tags: ["slow"],
    timeout: 90_000,
  }, async () => {
    const wanted = "a".repeat(10_000) + "b".repeat(10_000);
    const oneOff = `${wanted.slice(0, 15_000)}c${wanted.slice(15_001)}`;
    const unlike = "xy".repeat(10_000);
    // Without a bound on the table, 20,001 × 20,001 cells need gigabytes: the child runs out of heap.
    expect(await similarInSmallHeap(wanted, [unlike, oneOff], 64)).toEqual({
      status: 0,
      stdout: JSON.stringify([oneOff]),
      stderr: "",
    });
    expect(await similarInSmallHeap(wanted, [unlike], 64)).toMatchObject({ status: 0, stdout: "[]" });
  });
});
