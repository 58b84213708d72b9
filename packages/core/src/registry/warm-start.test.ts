import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const COUNT = 1000;
/** Well before any cache write: the racily-clean rule does not apply to these files. */
const PAST = new Date(Date.now() - 3_600_000);

// Counts every open of a SKILL.md by any fs entry point (sync, callback, promise), then loads.
const SCRIPT = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
let opens = 0;
let stats = 0;
const count = (p) => { if (String(p).endsWith("SKILL.md")) opens++; };
for (const name of ["openSync", "open", "readFileSync", "readFile", "createReadStream"]) {
  const original = fs[name];
  fs[name] = function (p, ...rest) { count(p); return original.call(this, p, ...rest); };
}
for (const name of ["statSync", "lstatSync", "stat", "lstat"]) {
  const original = fs[name];
  fs[name] = function (p, ...rest) { if (String(p).endsWith("SKILL.md")) stats++; return original.call(this, p, ...rest); };
}
for (const name of ["open", "readFile"]) {
  const original = fs.promises[name];
  fs.promises[name] = function (p, ...rest) { count(p); return original.call(this, p, ...rest); };
}
syncBuiltinESMExports();
const { SkillService, fileHeadCache } = await import(process.env.CORE_DIST);
const root = process.env.TREE;
const source = {
  id: "tree",
  async scan() {
    const entries = fs.readdirSync(root).filter((d) => d.startsWith("s")).sort().map((d) => ({ location: join(root, d, "SKILL.md") }));
    return { entries, dirs: [root] };
  },
};
const service = new SkillService({ sources: [source], headCache: fileHeadCache(process.env.CACHE) });
const report = await service.discoverAndLoad();
const watched = service.get(process.env.WATCH ?? "s0000");
const body = process.env.READ ? await service.read(process.env.READ).then((s) => s.content, (e) => e.code) : undefined;
const diagnostics = report.diagnostics.map((d) => JSON.stringify(d));
console.log(JSON.stringify({ opens, stats, loaded: report.loaded, failed: report.failed.length, description: watched?.description, summary: watched?.summary, body, diagnostics }));
`;

interface Run {
  opens: number;
  /** `stat`s of a SKILL.md path (not counting `fstat` of an open file). */
  stats: number;
  loaded: number;
  failed: number;
  description?: string;
  summary?: string;
  body?: string;
  diagnostics: unknown[];
}

let root: string;
let cache: string;

function run(extra: Record<string, string> = {}): Run {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT], {
    env: { CORE_DIST: DIST, TREE: root, CACHE: cache, PATH: process.env.PATH ?? "", ...extra },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim()) as Run;
}

function text(i: number, description: string): string {
  return `---\nname: s${String(i).padStart(4, "0")}\ndescription: ${description}\n---\n# Skill ${i}\n`;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-warm-"));
  cache = join(root, "cache", "heads.json");
  for (let i = 0; i < COUNT; i++) {
    const dir = join(root, `s${String(i).padStart(4, "0")}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "SKILL.md"), text(i, "first words"));
    await utimes(join(dir, "SKILL.md"), PAST, PAST);
  }
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
}, 60_000);

describe("a warm start with fileHeadCache", { tags: ["slow"] }, () => {
  it("opens no SKILL.md of 1,000 unchanged skills the second time", () => {
    const cold = run();
    expect(cold).toMatchObject({ loaded: COUNT, failed: 0 });
    expect(cold.opens).toBeGreaterThanOrEqual(COUNT);
    // A path the cache has never held is read at once: no stat to look it up first.
    expect(cold.stats).toBe(0);
    expect(cold.summary).toBe("Skill 0");
    const warm = run();
    expect(warm.stats).toBe(COUNT);
    // The body's summary is kept in the head: a warm start has it without opening the file.
    expect(warm).toMatchObject({
      loaded: COUNT,
      failed: 0,
      opens: 0,
      description: "first words",
      summary: "Skill 0",
    });
  }, 60_000);

  it("reports the same findings warm as cold, for files with findings and without", async () => {
    const tree = await mkdtemp(join(tmpdir(), "skill-core-warm-findings-"));
    try {
      const files: Record<string, string> = {
        s1: "---\nname: s1\ndescription: Clean\n---\n",
        s2: "---\nname: s2\ndescription: Has a field the spec does not know\nversion: 1.0.0\n---\n",
        s3: "---\nname: S3\ndescription: Upper-case name, folder mismatch\nauthor: x\n---\n",
        s4: "---\nname: s4\ndescription: The same unknown field as s2\nversion: 2.0.0\n---\n",
      };
      for (const [dir, body] of Object.entries(files)) {
        await mkdir(join(tree, dir));
        await writeFile(join(tree, dir, "SKILL.md"), body);
        await utimes(join(tree, dir, "SKILL.md"), PAST, PAST);
      }
      const env = { TREE: tree, CACHE: join(tree, "heads.json"), WATCH: "s1" };
      const cold = run(env);
      const warm = run(env);
      expect(cold.opens).toBeGreaterThanOrEqual(3);
      expect(warm.opens).toBe(0);
      expect(cold.diagnostics.length).toBeGreaterThanOrEqual(4);
      // Every field of every finding, in the same order, each naming its own file.
      expect(warm.diagnostics).toEqual(cold.diagnostics);
      const version = cold.diagnostics.filter((d) => String(d).includes("unknown-field:version"));
      expect(version.map((d) => JSON.parse(String(d)).path)).toEqual(
        ["s2", "s4"].map((dir) => join(tree, dir, "SKILL.md")),
      );
      // The cache keeps the findings s2 and s4 share once, without either file's path.
      const doc = JSON.parse((await readFile(join(tree, "heads.json"), "utf8")).split("\n")[0] as string);
      const shared = JSON.stringify(doc.shared);
      expect(shared.split("unknown-field:version").length - 1).toBe(1);
      expect(shared).not.toContain(tree);
      // A head whose kept findings are not findings costs a read, never a wrong report.
      const stored = doc.shared as { diagnostics?: unknown[] }[];
      for (const set of stored) if (set.diagnostics) set.diagnostics = [42];
      await writeFile(join(tree, "heads.json"), `${JSON.stringify(doc)}\n`);
      const broken = run(env);
      expect(broken.diagnostics).toEqual(cold.diagnostics);
      expect(broken.opens).toBeGreaterThanOrEqual(3);
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  }, 60_000);

  it("re-reads a file changed between runs: same size with a new mtime, and a new size with the same mtime", async () => {
    run();
    const file = join(root, "s0007", "SKILL.md");
    // Same length as "first words", other bytes, another mtime.
    await writeFile(file, text(7, "other words"));
    const later = new Date(PAST.getTime() + 60_000);
    await utimes(file, later, later);
    const sameSize = run({ WATCH: "s0007" });
    expect(sameSize).toMatchObject({ opens: 1, description: "other words" });

    const before = await stat(file);
    await writeFile(file, text(7, "longer words now"));
    await utimes(file, before.atime, before.mtime);
    const sameMtime = run({ WATCH: "s0007" });
    expect(sameMtime).toMatchObject({ opens: 1, description: "longer words now" });
    expect(run({ WATCH: "s0007" }).opens).toBe(0);
  }, 60_000);

  it("reads a body from the bytes on disk even when the head came from the cache", () => {
    run();
    const warm = run({ READ: "s0003" });
    expect(warm.opens).toBe(1);
    expect(warm.body).toBe("# Skill 3\n");
  }, 60_000);

  it("reads again a file edited in place with its size and mtime put back: its change time moved", async () => {
    run();
    const file = join(root, "s0011", "SKILL.md");
    const before = await stat(file);
    await writeFile(file, text(11, "edited word"));
    await utimes(file, before.atime, before.mtime);
    const after = await stat(file);
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    expect(run({ WATCH: "s0011" })).toMatchObject({ opens: 1, description: "edited word" });
    // Stored again under its new state: the next start opens nothing.
    expect(run({ WATCH: "s0011" })).toMatchObject({ opens: 0, description: "edited word" });
  }, 60_000);

  it("loads everything when the cache file is corrupt", async () => {
    await mkdir(join(root, "cache"), { recursive: true });
    await writeFile(cache, '{"version": 1, "entries": {"broken');
    const result = run();
    expect(result).toMatchObject({ loaded: COUNT, failed: 0 });
    expect(result.opens).toBeGreaterThanOrEqual(COUNT);
    expect(run().opens).toBe(0);
  }, 60_000);
});
