// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import {
  lutimes,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLI, type RunResult, runNode } from "../test/run-node.js";

// The CLI keeps the heads of the SKILL.md files it loaded in one file per repository and
// preset below $XDG_CACHE_HOME/skill/heads; a later run stats an unchanged file instead of
// reading it. Each test has its own project, home and cache folder.

vi.setConfig({ testTimeout: 60_000 });

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-head-cache-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nWhat it does.\n`;

/** A project with `.agents/skills/<name>/SKILL.md` per entry, a home and a cache folder. */
async function world(skills: Record<string, string>) {
  const dir = await mkdtemp(join(root, "w-"));
  const project = join(dir, "project");
  const home = join(dir, "home");
  const cache = join(dir, "cache");
  await mkdir(join(project, ".git"), { recursive: true });
  await mkdir(home, { recursive: true });
  for (const [name, description] of Object.entries(skills)) {
    await mkdir(join(project, ".agents", "skills", name), { recursive: true });
    await writeFile(join(project, ".agents", "skills", name, "SKILL.md"), skillMd(name, description));
  }
  const file = (name: string) => join(project, ".agents", "skills", name, "SKILL.md");
  const list = (flags: readonly string[] = [], env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: cache }) =>
    runNode(CLI, ["list", "--json", "--cwd", project, "--home", home, ...flags], { cwd: project, home, env });
  /** `list`, with a count of the SKILL.md files the process opened (through any fs call). */
  const counted = async (flags: readonly string[] = []) => {
    const count = join(dir, `opens-${++runs}.json`);
    const result = await runNode(
      "--require",
      [preload, CLI, "list", "--json", "--cwd", project, "--home", home, ...flags],
      { cwd: project, home, env: { XDG_CACHE_HOME: cache, SKILL_TEST_OPENS: count } },
    );
    return { result, opens: JSON.parse(await readFile(count, "utf8")) as number };
  };
  let runs = 0;
  const preload = join(dir, "count-opens.cjs");
  await writeFile(preload, COUNT_OPENS);
  return { project, home, cache, file, list, counted };
}

// Counts every open of a SKILL.md by the process, through any fs entry point, sync or not.
const COUNT_OPENS = `
const fs = require("node:fs");
let opens = 0;
const count = (p) => { if (String(p).endsWith("SKILL.md")) opens++; };
for (const name of ["openSync", "open", "readFileSync", "readFile", "createReadStream"]) {
  const original = fs[name];
  fs[name] = function (p, ...rest) { count(p); return original.call(this, p, ...rest); };
}
for (const name of ["open", "readFile"]) {
  const original = fs.promises[name];
  fs.promises[name] = function (p, ...rest) { count(p); return original.call(this, p, ...rest); };
}
require("node:module").syncBuiltinESMExports();
process.on("exit", () => fs.writeFileSync(process.env.SKILL_TEST_OPENS, JSON.stringify(opens)));
`;

/** name → description of a `skill list --json`. */
function described(result: RunResult): Record<string, string> {
  expect(result.code, result.stderr).toBe(0);
  const { skills } = JSON.parse(result.stdout) as { skills: { name: string; description: string }[] };
  return Object.fromEntries(skills.map((s) => [s.name, s.description]));
}

/** Sets a file's times an hour back: older than the 2 s a head cache distrusts. */
async function age(path: string): Promise<Date> {
  const then = new Date(Date.now() - 3_600_000);
  await utimes(path, then, then);
  return then;
}

describe("the CLI's head cache", () => {
  it("keeps one file per repository below $XDG_CACHE_HOME/skill/heads, and a later run opens no unchanged SKILL.md", async () => {
    const w = await world({ alpha: "Formats alpha reports.", beta: "Checks beta builds." });
    await age(w.file("alpha"));
    await age(w.file("beta"));
    const cold = await w.counted();
    expect(described(cold.result)).toEqual({ alpha: "Formats alpha reports.", beta: "Checks beta builds." });
    expect(cold.opens).toBe(2);
    const files = await readdir(join(w.cache, "skill", "heads"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{16}\.json$/);
    expect(await readFile(join(w.cache, "skill", "heads", files[0] as string), "utf8")).toContain(
      w.file("alpha"),
    );
    const warm = await w.counted();
    expect(warm.result.stdout).toBe(cold.result.stdout);
    expect(warm.opens).toBe(0);
    // A subfolder of the repository shares its file: entries are keyed by path.
    await mkdir(join(w.project, "src", "deep"), { recursive: true });
    const below = await runNode(
      CLI,
      ["list", "--json", "--cwd", join(w.project, "src", "deep"), "--home", w.home],
      {
        cwd: w.project,
        home: w.home,
        env: { XDG_CACHE_HOME: w.cache },
      },
    );
    expect(described(below)).toEqual({ alpha: "Formats alpha reports.", beta: "Checks beta builds." });
    expect(await readdir(join(w.cache, "skill", "heads"))).toEqual(files);
    // --no-head-cache opens every file, and neither reads nor writes the cache.
    const cacheBytes = await readFile(join(w.cache, "skill", "heads", files[0] as string));
    const plain = await w.counted(["--no-head-cache"]);
    expect(plain.result.stdout).toBe(cold.result.stdout);
    expect(plain.opens).toBe(2);
    expect(await readFile(join(w.cache, "skill", "heads", files[0] as string))).toEqual(cacheBytes);
  });

  it("reads again a SKILL.md replaced by one of the same inode, size and mtime, as an archive with fixed times makes", async () => {
    const w = await world({ alpha: "Fill PDF forms v1.0.0" });
    const then = await age(w.file("alpha"));
    expect(described(await w.list()).alpha).toBe("Fill PDF forms v1.0.0");
    // Rewritten in place (same inode) to the same size, its old mtime given back: only the
    // change time tells (git compares it too).
    const before = await stat(w.file("alpha"));
    await writeFile(w.file("alpha"), skillMd("alpha", "Fill PDF forms v1.0.1"));
    await utimes(w.file("alpha"), then, then);
    const after = await stat(w.file("alpha"));
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    expect(described(await w.list()).alpha).toBe("Fill PDF forms v1.0.1");
    expect(described(await w.list()).alpha).toBe("Fill PDF forms v1.0.1");
  });

  it("reads a SKILL.md again once it changed, and a skill added or removed since shows as such", async () => {
    const w = await world({ alpha: "Formats alpha reports.", beta: "Checks beta builds." });
    await age(w.file("alpha"));
    await age(w.file("beta"));
    described(await w.list());
    await writeFile(w.file("alpha"), skillMd("alpha", "Formats alpha and gamma reports."));
    await rm(join(w.project, ".agents", "skills", "beta"), { recursive: true });
    await mkdir(join(w.project, ".agents", "skills", "delta"), { recursive: true });
    await writeFile(w.file("delta"), skillMd("delta", "Deploys delta."));
    expect(described(await w.list())).toEqual({
      alpha: "Formats alpha and gamma reports.",
      delta: "Deploys delta.",
    });
  });

  it("gives the same listing as reading every file, from a cold cache, a warm one and one per preset", async () => {
    const w = await world({
      alpha: "Formats alpha reports.",
      beta: "Checks beta builds.",
      "Bad Name": "Odd.",
    });
    for (const name of ["alpha", "beta", "Bad Name"]) await age(w.file(name));
    const plain = await w.list(["--no-head-cache"]);
    const cold = await w.list();
    const warm = await w.list();
    expect(cold.stdout).toBe(plain.stdout);
    expect(warm.stdout).toBe(plain.stdout);
    expect(warm.stderr).toBe(plain.stderr);
    // Another preset reads by other rules: its own file, the same answers as without a cache.
    const codexPlain = await w.list(["--preset", "codex", "--no-head-cache"]);
    await w.list(["--preset", "codex"]);
    expect((await w.list(["--preset", "codex"])).stdout).toBe(codexPlain.stdout);
    expect(await readdir(join(w.cache, "skill", "heads"))).toHaveLength(2);
  });

  it("lists as usual when the cache cannot be written or holds garbage, and says why only under --verbose", async () => {
    const w = await world({ alpha: "Formats alpha reports." });
    const expected = (await w.list(["--no-head-cache"])).stdout;
    // XDG_CACHE_HOME names a file: no folder can be made below it.
    const blocker = join(w.cache, "not-a-folder");
    await mkdir(w.cache, { recursive: true });
    await writeFile(blocker, "x");
    const blocked = await w.list([], { XDG_CACHE_HOME: blocker });
    expect(blocked.stdout).toBe(expected);
    expect(blocked.stderr).toBe("");
    const told = await w.list(["--verbose"], { XDG_CACHE_HOME: blocker });
    expect(told.code).toBe(0);
    expect(told.stderr).toMatch(/skill: warning: Head cache .* cannot be written \(ENOTDIR/);

    // A cache file of garbage is an empty cache, written anew.
    await w.list();
    const [file] = await readdir(join(w.cache, "skill", "heads"));
    const path = join(w.cache, "skill", "heads", file as string);
    await writeFile(path, "{ not json\n");
    const garbage = await w.list();
    expect(garbage.stdout).toBe(expected);
    expect(garbage.stderr).toBe("");
    expect(await readFile(path, "utf8")).toContain(w.file("alpha"));
  });

  it("lives in HOME's .cache when XDG_CACHE_HOME is not set, never below --home", async () => {
    const w = await world({ alpha: "Formats alpha reports." });
    const user = join(w.project, "..", "user");
    await mkdir(user);
    const result = await runNode(CLI, ["list", "--json", "--cwd", w.project, "--home", w.home], {
      cwd: w.project,
      home: user,
    });
    expect(described(result)).toEqual({ alpha: "Formats alpha reports." });
    expect(await readdir(join(user, ".cache", "skill", "heads"))).toHaveLength(1);
    expect(await readdir(w.home)).toEqual([]);
  });

  it("removes other projects' files no run wrote for 30 days, and stale temporary files, once it writes its own", async () => {
    const w = await world({ alpha: "Formats alpha reports." });
    await age(w.file("alpha"));
    const heads = join(w.cache, "skill", "heads");
    await mkdir(heads, { recursive: true });
    const outside = join(w.home, "..", "outside.json");
    await writeFile(outside, "keep");
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
    const put = async (name: string, days: number) => {
      await writeFile(join(heads, name), "{}");
      await utimes(join(heads, name), daysAgo(days), daysAgo(days));
    };
    await put("00000000000000aa.json", 40); // another project, untouched for 40 days: goes
    await put("00000000000000bb.json", 20); // written 20 days ago: stays
    await put(".00000000000000bb.json.write-7-1-x", 2); // a crashed write's temporary file: goes
    await put(".00000000000000bb.json.write-7-2-y", 0); // one being written now: stays
    await put("notes.txt", 40); // not a name the CLI makes: stays
    await symlink(outside, join(heads, "00000000000000cc.json")); // a link: never followed nor removed
    await lutimes(join(heads, "00000000000000cc.json"), daysAgo(40), daysAgo(40));
    expect(described(await w.list())).toEqual({ alpha: "Formats alpha reports." });
    const after = (await readdir(heads)).sort();
    expect(after.filter((n) => !/^[0-9a-f]{16}\.json$/.test(n) || n.startsWith("0000"))).toEqual([
      ".00000000000000bb.json.write-7-2-y",
      "00000000000000bb.json",
      "00000000000000cc.json",
      "notes.txt",
    ]);
    expect(after).toHaveLength(5); // and this project's own file
    expect(await readFile(outside, "utf8")).toBe("keep");
    // A heads folder that is a link leads to files that are not the CLI's: nothing there goes.
    const elsewhere = join(w.home, "..", "elsewhere");
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, "00000000000000ee.json"), "{}");
    await utimes(join(elsewhere, "00000000000000ee.json"), daysAgo(40), daysAgo(40));
    const linkedCache = join(w.home, "..", "linked-cache");
    await mkdir(join(linkedCache, "skill"), { recursive: true });
    await symlink(elsewhere, join(linkedCache, "skill", "heads"));
    expect(described(await w.list([], { XDG_CACHE_HOME: linkedCache }))).toEqual({
      alpha: "Formats alpha reports.",
    });
    expect(await readdir(elsewhere)).toContain("00000000000000ee.json");
    // A run that writes nothing (its skills unchanged) removes nothing.
    await put("00000000000000dd.json", 40);
    expect(described(await w.list())).toEqual({ alpha: "Formats alpha reports." });
    expect(await readdir(heads)).toContain("00000000000000dd.json");
  });
});
