import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFloorScript, countSkills } from "./approaches/spawn.js";
import { editDescription } from "./approaches/update.js";
import { mismatch, runChild, summarize } from "./harness.js";
import { crawlSkillFiles, treeSkillFiles } from "./layout.js";
import type { ChildResult } from "./protocol.js";
import { ensureTree, SKILL_MTIME_S, settleMtimes, type TreeManifest } from "./tree.js";

let base: string;
let manifest: TreeManifest;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "skill-bench-smoke-"));
  manifest = ensureTree(base, { skills: 30, seed: 11 }).manifest;
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe("every approach in a child process, on a tiny tree", { tags: ["slow"] }, () => {
  const layout = () => manifest;

  it.each(["sync-floor", "opencode-style", "ours"] as const)(
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

  it("crawl + stat finds the same number of SKILL.md files, reading none", async () => {
    const result = await runChild({ approach: "crawl-stat", input: layout() });
    expect(result).toMatchObject({ found: 30 });
    expect(result.checksum).toBeUndefined();
  }, 60_000);

  it("a warm start answers every head from the cache an earlier child wrote, and reads a changed file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skill-bench-warm-"));
    const cache = join(dir, "heads.json");
    const misses = (r: ChildResult) => r.samples?.misses;
    const [file] = treeSkillFiles(manifest).filter((f) =>
      /^description: [^\s"'|>]/m.test(readFileSync(f, "utf8")),
    );
    const original = readFileSync(file as string);
    try {
      const cold = await runChild({ approach: "warm", input: { layout: layout(), cache } });
      expect(cold).toMatchObject({ found: 30, checksum: manifest.checksum });
      expect(misses(cold)).toBe(30);
      expect(statSync(cache).isFile()).toBe(true);

      const warm = await runChild({ approach: "warm", input: { layout: layout(), cache } });
      expect(mismatch(warm, manifest)).toBeUndefined();
      expect(warm.samples).toEqual({ hits: 30, misses: 0 });
      copyFileSync(cache, join(dir, "before.json"));
      writeFileSync(file as string, editDescription(original.toString("utf8"), 1));
      const changed = await runChild({ approach: "warm", input: { layout: layout(), cache } });
      expect(changed.found).toBe(30);
      expect(changed.samples).toEqual({ hits: 29, misses: 1 });
      expect(changed.checksum).not.toBe(manifest.checksum);

      // Restored (same bytes, same mtime), the file has a new change time: the earlier cache
      // reads it again, and knows it from then on.
      writeFileSync(file as string, original);
      expect(settleMtimes([file as string])).toBe(1);
      expect(statSync(file as string).mtimeMs).toBe(SKILL_MTIME_S * 1000);
      const before = { layout: layout(), cache: join(dir, "before.json") };
      const again = await runChild({ approach: "warm", input: before });
      expect(again.checksum).toBe(manifest.checksum);
      expect(again.samples).toEqual({ hits: 29, misses: 1 });
      expect((await runChild({ approach: "warm", input: before })).samples).toEqual({ hits: 30, misses: 0 });
    } finally {
      writeFileSync(file as string, original);
      settleMtimes([file as string]);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("the MCP child loads the tree over a stdio server started and warmed before the clock, then reads", async () => {
    // The tree served over stdio with @skill/mcp's `serveStdio`, as `skill serve-mcp` does, so that
    // this test does not need the CLI built.
    const server = `import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { serveStdio } from "@skill/mcp/stdio";
const [home, cwd, path] = process.argv.slice(1);
const service = new SkillService({ sources: discoverySources({ cwd, home, paths: [path] }) });
await service.discoverAndLoad();
await serveStdio(service, { name: "bench" });`;
    const { home, cwd, paths } = layout();
    const result = await runChild({
      approach: "mcp-load",
      input: { server: ["--input-type=module", "-e", server, home, cwd, ...paths], warmups: 1, reads: 4 },
    });
    expect(mismatch(result, manifest)).toBeUndefined();
    expect(result.samples?.read).toHaveLength(4);
    await expect(
      runChild({ approach: "mcp-load", input: { server: ["-e", "process.exit(1)"], warmups: 1, reads: 1 } }),
    ).rejects.toThrow(/mcp-load exited with code 1: .*found 0 skills: .*could not start the MCP server/s);
  }, 60_000);

  it("the MCP HTTP child has clients at once list and read the tree from ours and from the SDK's skills server", async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    for (const id of ["ours", "ours-default", "sdk"]) {
      const server = ["--import", "tsx", join(here, "mcp-http-server.ts"), dirname(layout().cwd), id];
      const input = { server, clients: 3, reads: 4, idle: 5, seed: 1 };
      const result = await runChild({ approach: "mcp-http", input });
      expect(mismatch(result, manifest), id).toBeUndefined();
      // Every read was checked against the digest its listing gave; the heap was weighed (5 idle
      // sessions are too few to say more than that it was).
      expect(result.samples, id).toMatchObject({ errors: 0, rps: expect.any(Number) });
      expect(Number.isFinite(result.samples?.idleHeapKB), id).toBe(true);
    }
    const broken = { server: ["-e", "process.exit(3)"], clients: 1, reads: 1, idle: 1, seed: 1 };
    await expect(runChild({ approach: "mcp-http", input: broken })).rejects.toThrow(
      /the MCP HTTP server exited \(3\) before it listened/,
    );
  }, 120_000);

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
      const samples = result.samples as Record<string, number[]> & { lost: number };
      expect(result.found).toBe(30);
      expect(samples.update).toHaveLength(4);
      expect(samples.reload).toHaveLength(2);
      expect(samples.event).toHaveLength(2);
      expect(samples.lost).toBe(0);
      // The debounce is a floor for the end-to-end time: the event cannot come sooner.
      for (const ms of samples.event ?? []) expect(ms).toBeGreaterThanOrEqual(19);
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
      approach: "spawn",
      input: { args: ["-e", "console.log('x\\n12 skills')"], env: {} },
    });
    expect(result.found).toBe(12);
    expect(result.ms).toBeGreaterThan(0);
    await expect(
      runChild({ approach: "spawn", input: { args: ["-e", "process.exit(3)"], env: {} } }),
    ).rejects.toThrow(/exited with 3/);
  }, 60_000);

  it("the minimal list process lists every skill of the tree's roots in the form `skill list` is counted by", async () => {
    const script = join(dirname(fileURLToPath(import.meta.url)), "floor-list.ts");
    const result = await runChild({
      approach: "spawn",
      input: { args: ["--import", "tsx", script, ...layout().roots, join(base, "no-such-root")], env: {} },
    });
    expect(result.found).toBe(30);
    expect(result.found).toBe(layout().roots.flatMap((root) => crawlSkillFiles(root)).length);
  }, 60_000);

  it("the add child times a whole process and counts what it installed; the copy floor copies every skill folder", async () => {
    const from = mkdtempSync(join(base, "add-pack-"));
    for (const name of ["alpha", "beta"]) {
      mkdirSync(join(from, name, "scripts"), { recursive: true });
      writeFileSync(join(from, name, "SKILL.md"), `---\nname: ${name}\ndescription: d\n---\n`);
      writeFileSync(join(from, name, "scripts", "run.sh"), "echo hi\n");
    }
    mkdirSync(join(from, "not-a-skill"));
    const into = join(base, "add-into", ".agents", "skills");
    const result = await runChild({
      approach: "spawn",
      input: { args: ["-e", copyFloorScript(from, into)], env: {}, count: "installed" },
    });
    expect(result.found).toBe(2);
    expect(result.ms).toBeGreaterThan(0);
    expect(readFileSync(join(into, "beta", "scripts", "run.sh"), "utf8")).toBe("echo hi\n");
    expect(statSync(join(into, "not-a-skill"), { throwIfNoEntry: false })).toBeUndefined();
    await expect(
      runChild({ approach: "spawn", input: { args: ["-e", "process.exit(4)"], env: {} } }),
    ).rejects.toThrow(/exited with 4/);
  }, 60_000);

  it("reports a child that fails, with its error", async () => {
    const missing = { ...layout(), cwd: join(base, "nowhere"), paths: [join(base, "nowhere", "skills")] };
    await expect(
      runChild({ approach: "pull", input: { url: "http://127.0.0.1:9/", cacheDir: base } }),
    ).rejects.toThrow(/pull exited with code 1/);
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

  it("counts the skills a `skill add --json` run (or the copy floor) reports installed", () => {
    const installed = (stdout: string) => countSkills(stdout, "installed");
    expect(installed(JSON.stringify({ installed: [{ name: "a" }, { name: "b" }], lock: "x" }))).toBe(2);
    expect(installed("not json")).toBe(0);
    expect(installed(JSON.stringify({ installed: 3 }))).toBe(0);
  });

  it("reads the skill count from the summary line of skill list, or counts its lines in a pipe", () => {
    expect(countSkills("pdf  Reads PDFs\n\n100 skills\n")).toBe(100);
    expect(countSkills("1 skill\n")).toBe(1);
    expect(countSkills("no summary here\n")).toBe(0);
    expect(countSkills("pdf\tReads PDFs\t/p/pdf/SKILL.md\nxlsx\tSheets\t/p/xlsx/SKILL.md\n")).toBe(2);
  });

  it("counts the skills Vercel's skills list prints: one Agents line each, colours or not", () => {
    const listing = [
      "\u001b[1mProject Skills\u001b[0m",
      "",
      "\u001b[36marray-cursor-25 \u001b[0m \u001b[38;5;102m./.agents/skills/array-cursor-25\u001b[0m",
      "  \u001b[38;5;102mAgents:\u001b[0m \u001b[33mnot linked\u001b[0m  \u001b[38;5;102mSource:\u001b[0m local",
      "adapter-branch-18 ./.claude/skills/adapter-branch-18",
      "  Agents: Claude Code  Source: local",
      "",
    ].join("\n");
    expect(countSkills(listing, "vercel")).toBe(2);
    expect(countSkills("No project skills found.\n", "vercel")).toBe(0);
  });

  it("summarizes median, min and max", () => {
    expect(summarize([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 });
    expect(summarize([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
    expect(summarize([]).median).toBeNaN();
  });
});
