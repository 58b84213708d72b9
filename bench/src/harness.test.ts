import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crawlSkillFiles } from "./approaches/floor.js";
import { skillsListed } from "./approaches/startup.js";
import { editDescription, type UpdateSamples } from "./approaches/update.js";
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

  it.each(["sync-floor", "floor", "opencode-style", "ours"] as const)(
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

  it("the update child applies real edits with update, times reloads and sees skill.changed from a real watcher", async () => {
    const files = crawlSkillFiles(layout().cwd)
      .filter((f) => /^description: [^\s"'|>]/m.test(readFileSync(f, "utf8")))
      .slice(0, 2);
    expect(files).toHaveLength(2);
    const originals = files.map((f) => readFileSync(f, "utf8"));
    try {
      const result = await runChild({
        approach: "update",
        input: {
          layout: layout(),
          targets: files,
          updates: 4,
          reloads: 2,
          events: 2,
          debounceMs: 20,
          eventTimeoutMs: 10_000,
        },
      });
      const samples = result.samples as unknown as UpdateSamples;
      expect(result.found).toBe(30);
      expect(samples.update).toHaveLength(4);
      expect(samples.reload).toHaveLength(2);
      expect(samples.event).toHaveLength(2);
      expect(samples.lost).toBe(0);
      // The debounce is a floor for the end-to-end time: the event cannot come sooner.
      for (const ms of samples.event) expect(ms).toBeGreaterThanOrEqual(19);
      expect(samples.watchReadyMs).toBeGreaterThan(0);
      expect(readFileSync(files[1] as string, "utf8")).toMatch(/^description: Edited \d+\. /m);
    } finally {
      for (const [i, f] of files.entries()) writeFileSync(f, originals[i] as string);
    }
  }, 60_000);

  it("the doctor child compares every preset and counts what the default preset loads", async () => {
    const result = await runChild({ approach: "doctor", input: layout() });
    expect(result.found).toBe(30);
    expect(Number(result.samples?.agents)).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it("the start-up child times a whole process and reads the count `skill list` prints", async () => {
    const result = await runChild({
      approach: "startup",
      input: { args: ["-e", "console.log('x\\n12 skills')"], env: {} },
    });
    expect(result.found).toBe(12);
    expect(result.ms).toBeGreaterThan(0);
    await expect(
      runChild({ approach: "startup", input: { args: ["-e", "process.exit(3)"], env: {} } }),
    ).rejects.toThrow(/exited with 3/);
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

  it("an edit puts text in front of a one-line description and refuses a file without one", () => {
    const text = "---\r\nname: a\r\ndescription: Does a.\r\n---\r\nbody";
    expect(editDescription(text, 3)).toBe("---\r\nname: a\r\ndescription: Edited 3. Does a.\r\n---\r\nbody");
    expect(() => editDescription("---\nname: a\n---\n", 1)).toThrow(/description/);
  });

  it("reads the skill count from the last summary line of skill list", () => {
    expect(skillsListed("pdf  Reads PDFs\n\n100 skills\n")).toBe(100);
    expect(skillsListed("1 skill\n")).toBe(1);
    expect(skillsListed("no summary here\n")).toBe(0);
  });

  it("summarizes median, min and max", () => {
    expect(summarize([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 });
    expect(summarize([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
    expect(summarize([]).median).toBeNaN();
  });
});
