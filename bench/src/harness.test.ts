import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildResult, mismatch, runChild, summarize } from "./harness.js";
import { ensureTree, layoutOf, type TreeManifest } from "./tree.js";

let base: string;
let manifest: TreeManifest;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "skill-bench-smoke-"));
  manifest = ensureTree(base, { skills: 30, seed: 11 }).manifest;
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe("every approach in a child process, on a tiny tree", () => {
  const layout = () => layoutOf(manifest);

  it.each(["floor", "opencode-style", "ours"] as const)(
    "%s finds exactly the generated skills, with the generator's checksum",
    async (approach) => {
      const result = await runChild({ approach, input: layout() });
      expect(result.found).toBe(30);
      expect(result.checksum).toBe(manifest.checksum);
      expect(mismatch(result, manifest)).toBeUndefined();
      expect(result.ms).toBeGreaterThan(0);
      expect(result.maxRssKB).toBeGreaterThan(10_000);
    },
    60_000,
  );

  it("the bare crawl finds the same number of SKILL.md files", async () => {
    const result = await runChild({ approach: "crawl", input: layout() });
    expect(result).toMatchObject({ found: 30 });
    expect(result.checksum).toBeUndefined();
  }, 60_000);

  it("reports a child that fails, with its error", async () => {
    const missing = { ...layout(), cwd: join(base, "nowhere"), paths: [join(base, "nowhere", "skills")] };
    await expect(
      runChild({ approach: "sequential-fetch", input: { url: "http://127.0.0.1:9/", dir: base } }),
    ).rejects.toThrow(/sequential-fetch exited with code 1/);
    const result = await runChild({ approach: "ours", input: missing });
    expect(mismatch(result, manifest)).toMatch(/^found 0 skills, expected 30/);
  }, 60_000);
});

describe("checks and statistics", () => {
  const run = (extra: Partial<ChildResult>): ChildResult => ({
    ms: 1,
    maxRssKB: 1,
    found: 30,
    checksum: "abc",
    ...extra,
  });

  it("a run matches only with the same count, the same checksum and no failures", () => {
    const expected = { skills: 30, checksum: "abc" };
    expect(mismatch(run({}), expected)).toBeUndefined();
    expect(mismatch(run({ found: 31 }), expected)).toBe("found 31 skills, expected 30");
    expect(mismatch(run({ checksum: "abd" }), expected)).toBe("checksum abd, expected abc");
    expect(mismatch(run({ failed: 2 }), expected)).toBe("2 files failed to load");
  });

  it("summarizes median, min and max", () => {
    expect(summarize([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 });
    expect(summarize([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
    expect(summarize([]).median).toBeNaN();
  });
});
