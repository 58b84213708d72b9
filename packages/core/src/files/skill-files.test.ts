import { execFileSync, spawnSync } from "node:child_process";
import { rmSync, symlinkSync } from "node:fs";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { installBuilt, tempDir as makeTempDir, removeTempDirs, writeTree } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { SkillFile } from "../spec/skill-source.js";
import { compareCodeUnits } from "../util/text.js";
import { skillFiles } from "./skill-files.js";

const CORE = fileURLToPath(new URL("../..", import.meta.url));
afterAll(removeTempDirs);

const tempDir = () => makeTempDir("skill-files-");

const tree = writeTree;

function paths(files: readonly SkillFile[]): string[] {
  return files.map((f) => f.path);
}

async function rejection(promise: Promise<unknown>): Promise<SkillError> {
  try {
    await promise;
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SkillError, the call succeeded");
}

/** A skill folder `<base>/pdf` with a sibling skill `<base>/docx` and a file outside both. */
async function skillWithNeighbours(): Promise<{ base: string; skill: string }> {
  const base = await tempDir();
  const skill = join(base, "pdf");
  await tree(skill, { "SKILL.md": "---\nname: pdf\n---\n", "scripts/fill.py": "print(1)\n" });
  await tree(base, {
    "docx/SKILL.md": "---\nname: docx\n---\n",
    "docx/secret.txt": "docx only",
    "outside.txt": "not the skill's",
    "outside-folder/a.txt": "not the skill's",
  });
  return { base, skill };
}

describe("skillFiles: what is listed", () => {
  it("lists regular files, relative and /-separated, with size and execute bit, SKILL.md included", async () => {
    const dir = await tempDir();
    await tree(dir, {
      "SKILL.md": "---\nname: x\n---\n",
      "reference.md": "12345",
      "scripts/run.sh": "#!/bin/sh\n",
      "scripts/lib/util.py": "",
    });
    await chmod(join(dir, "scripts/run.sh"), 0o744);
    expect(await skillFiles(dir)).toEqual([
      { path: "SKILL.md", size: 16, executable: false },
      { path: "reference.md", size: 5, executable: false },
      { path: "scripts/lib/util.py", size: 0, executable: false },
      { path: "scripts/run.sh", size: 10, executable: true },
    ]);
  });

  it("counts any execute bit (group or other only) as executable", async () => {
    const dir = await tempDir();
    await tree(dir, { "g.sh": "", "o.sh": "", "none.sh": "" });
    await chmod(join(dir, "g.sh"), 0o614);
    await chmod(join(dir, "o.sh"), 0o641);
    await chmod(join(dir, "none.sh"), 0o666);
    const byPath = Object.fromEntries((await skillFiles(dir)).map((f) => [f.path, f.executable]));
    expect(byPath).toEqual({ "g.sh": true, "none.sh": false, "o.sh": true });
  });

  it("sorts whole paths by code unit, not folder by folder or by locale", async () => {
    const dir = await tempDir();
    // "-" (0x2d) and "." (0x2e) sort before "/" (0x2f), "0" after it; capitals before lower case.
    const names = ["a/b", "a-c", "a.d", "a0", "B.md", "a/a/z", "ä.md", "z", "a/-x"];
    await tree(dir, Object.fromEntries(names.map((n) => [n, ""])));
    const listed = paths(await skillFiles(dir));
    expect(listed).toEqual([...names].sort(compareCodeUnits));
    expect(listed).toEqual(["B.md", "a-c", "a.d", "a/-x", "a/a/z", "a/b", "a0", "z", "ä.md"]);
  });

  it("leaves out dot-files, dot-folders and node_modules unless hidden: true", async () => {
    const dir = await tempDir();
    await tree(dir, {
      "SKILL.md": "x",
      ".env": "SECRET=1",
      ".github/workflows/ci.yml": "on: push",
      "node_modules/dep/index.js": "",
      "scripts/.cache/x": "",
      "scripts/node_modules/y.js": "",
      "scripts/run.sh": "",
      ".git/config": "[core]",
      "scripts/.git": "gitdir: ../.git/modules/scripts",
    });
    expect(paths(await skillFiles(dir))).toEqual(["SKILL.md", "scripts/run.sh"]);
    expect(paths(await skillFiles(dir, { hidden: true }))).toEqual([
      ".env",
      ".github/workflows/ci.yml",
      "SKILL.md",
      "node_modules/dep/index.js",
      "scripts/.cache/x",
      "scripts/node_modules/y.js",
      "scripts/run.sh",
    ]);
  });

  it("leaves out a nested skill folder and every file in it, at any depth, unless nested: true", async () => {
    const dir = await tempDir();
    await tree(dir, {
      "SKILL.md": "root",
      "a.md": "",
      "sub/SKILL.md": "nested",
      "sub/own.md": "",
      "sub/deeper/more.md": "",
      "docs/guide.md": "",
      "docs/inner/SKILL.md": "nested too",
      "docs/inner/x.md": "",
      // A folder named SKILL.md does not make its parent a skill.
      "odd/SKILL.md/file.md": "",
    });
    expect(paths(await skillFiles(dir))).toEqual([
      "SKILL.md",
      "a.md",
      "docs/guide.md",
      "odd/SKILL.md/file.md",
    ]);
    expect(paths(await skillFiles(dir, { nested: true }))).toEqual([
      "SKILL.md",
      "a.md",
      "docs/guide.md",
      "docs/inner/SKILL.md",
      "docs/inner/x.md",
      "odd/SKILL.md/file.md",
      "sub/SKILL.md",
      "sub/deeper/more.md",
      "sub/own.md",
    ]);
  });

  it("treats a folder whose SKILL.md is a link (even a dangling one) as a nested skill", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "linked/x.md": "", "broken/y.md": "", "real.md": "" });
    await symlink("../real.md", join(dir, "linked/SKILL.md"));
    await symlink("nowhere", join(dir, "broken/SKILL.md"));
    expect(paths(await skillFiles(dir))).toEqual(["SKILL.md", "real.md"]);
  });

  it("does not list FIFOs", { tags: ["slow"] }, async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "" });
    execFileSync("mkfifo", [join(dir, "pipe")]);
    expect(paths(await skillFiles(dir, { links: true, hidden: true }))).toEqual(["SKILL.md"]);
  });

  it("walks the target when the skill folder itself is a link, naming paths relative to it", async () => {
    const base = await tempDir();
    await tree(base, { "real/SKILL.md": "", "real/a.md": "" });
    await symlink(join(base, "real"), join(base, "alias"));
    expect(await skillFiles(join(base, "alias"))).toEqual([
      { path: "SKILL.md", size: 0, executable: false },
      { path: "a.md", size: 0, executable: false },
    ]);
  });
});

describe("skillFiles: symbolic links", () => {
  it("lists a link to a file inside the folder, with the target's size and mode", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "scripts/run.sh": "#!/bin/sh\n" });
    await chmod(join(dir, "scripts/run.sh"), 0o755);
    await symlink("scripts/run.sh", join(dir, "run"));
    await symlink("../SKILL.md", join(dir, "scripts/skill-link.md"));
    expect(await skillFiles(dir)).toEqual([
      { path: "SKILL.md", size: 0, executable: false },
      { path: "run", size: 10, executable: true, link: "inside" },
      { path: "scripts/run.sh", size: 10, executable: true },
      { path: "scripts/skill-link.md", size: 0, executable: false, link: "inside" },
    ]);
  });

  it("enters a link to a folder inside the folder, marking what it finds there", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "reference/a.md": "aa", "reference/deep/b.md": "b" });
    await symlink("reference", join(dir, "docs"));
    expect(await skillFiles(dir)).toEqual([
      { path: "SKILL.md", size: 0, executable: false },
      { path: "docs/a.md", size: 2, executable: false, link: "inside" },
      { path: "docs/deep/b.md", size: 1, executable: false, link: "inside" },
      { path: "reference/a.md", size: 2, executable: false },
      { path: "reference/deep/b.md", size: 1, executable: false },
    ]);
  });

  it("never lists or follows a link to a file or folder outside, nor to /etc/passwd", async () => {
    const { base, skill } = await skillWithNeighbours();
    await symlink(join(base, "outside.txt"), join(skill, "outside-file"));
    await symlink("../outside-folder", join(skill, "outside-dir"));
    await symlink("/etc/passwd", join(skill, "passwd"));
    await symlink("/etc", join(skill, "etc"));
    const expected = ["SKILL.md", "scripts/fill.py"];
    expect(paths(await skillFiles(skill))).toEqual(expected);
    expect(paths(await skillFiles(skill, { hidden: true, nested: true }))).toEqual(expected);
    // Asked for, they are reported, never sized or entered.
    expect(await skillFiles(skill, { links: true })).toEqual([
      { path: "SKILL.md", size: 18, executable: false },
      { path: "etc", size: 0, executable: false, link: "outside" },
      { path: "outside-dir", size: 0, executable: false, link: "outside" },
      { path: "outside-file", size: 0, executable: false, link: "outside" },
      { path: "passwd", size: 0, executable: false, link: "outside" },
      { path: "scripts/fill.py", size: 9, executable: false },
    ]);
  });

  it("never follows a link to a sibling skill or one of its files", async () => {
    const { base, skill } = await skillWithNeighbours();
    await symlink("../docx", join(skill, "docx"));
    await symlink(join(base, "docx/secret.txt"), join(skill, "scripts/secret.txt"));
    // A relative link that climbs out and back in is judged by where it lands: still outside.
    await symlink("../../pdf/../docx/SKILL.md", join(skill, "scripts/other.md"));
    expect(paths(await skillFiles(skill))).toEqual(["SKILL.md", "scripts/fill.py"]);
    const links = (await skillFiles(skill, { links: true })).filter((f) => f.link !== undefined);
    expect(links).toEqual([
      { path: "docx", size: 0, executable: false, link: "outside" },
      { path: "scripts/other.md", size: 0, executable: false, link: "outside" },
      { path: "scripts/secret.txt", size: 0, executable: false, link: "outside" },
    ]);
  });

  it("treats a link into a nested skill folder as leaving the skill, unless nested: true", async () => {
    const dir = await tempDir();
    await tree(dir, {
      "SKILL.md": "",
      "sub/SKILL.md": "nested",
      "sub/data/table.csv": "1,2",
      "sub/notes.md": "n",
    });
    await symlink("sub", join(dir, "to-skill"));
    await symlink("sub/data", join(dir, "to-data"));
    await symlink("sub/notes.md", join(dir, "notes.md"));
    await symlink("sub/data/table.csv", join(dir, "table.csv"));
    expect(paths(await skillFiles(dir))).toEqual(["SKILL.md"]);
    expect(await skillFiles(dir, { links: true })).toEqual([
      { path: "SKILL.md", size: 0, executable: false },
      { path: "notes.md", size: 0, executable: false, link: "outside" },
      { path: "table.csv", size: 0, executable: false, link: "outside" },
      { path: "to-data", size: 0, executable: false, link: "outside" },
      { path: "to-skill", size: 0, executable: false, link: "outside" },
    ]);
    expect(await skillFiles(dir, { nested: true })).toEqual([
      { path: "SKILL.md", size: 0, executable: false },
      { path: "notes.md", size: 1, executable: false, link: "inside" },
      { path: "sub/SKILL.md", size: 6, executable: false },
      { path: "sub/data/table.csv", size: 3, executable: false },
      { path: "sub/notes.md", size: 1, executable: false },
      { path: "table.csv", size: 3, executable: false, link: "inside" },
      { path: "to-data/table.csv", size: 3, executable: false, link: "inside" },
      { path: "to-skill/SKILL.md", size: 6, executable: false, link: "inside" },
      { path: "to-skill/data/table.csv", size: 3, executable: false, link: "inside" },
      { path: "to-skill/notes.md", size: 1, executable: false, link: "inside" },
    ]);
  });

  it("treats a link into .git as leaving the skill, even with hidden: true", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", ".git/config": "[remote] url = https://token@host/x" });
    await symlink(".git/config", join(dir, "config"));
    await symlink(".git", join(dir, "repo"));
    expect(paths(await skillFiles(dir, { hidden: true }))).toEqual(["SKILL.md"]);
    expect((await skillFiles(dir, { links: true })).map((f) => [f.path, f.link])).toEqual([
      ["SKILL.md", undefined],
      ["config", "outside"],
      ["repo", "outside"],
    ]);
  });

  it("reports a dangling link only with links: true", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "" });
    await symlink("missing.md", join(dir, "gone.md"));
    await symlink("/nonexistent/skill/file", join(dir, "gone-abs"));
    expect(paths(await skillFiles(dir))).toEqual(["SKILL.md"]);
    expect(await skillFiles(dir, { links: true })).toEqual([
      { path: "SKILL.md", size: 0, executable: false },
      { path: "gone-abs", size: 0, executable: false, link: "dangling" },
      { path: "gone.md", size: 0, executable: false, link: "dangling" },
    ]);
  });

  it("terminates on link loops: a folder link back up is not entered, a link cycle is dangling", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "a/x.md": "", "b/y.md": "" });
    await symlink("..", join(dir, "a/up"));
    await symlink(".", join(dir, "self"));
    await symlink("../b", join(dir, "a/to-b"));
    await symlink("../a", join(dir, "b/to-a"));
    await symlink("ping", join(dir, "pong"));
    await symlink("pong", join(dir, "ping"));
    const files = await skillFiles(dir, { links: true, limit: Number.POSITIVE_INFINITY });
    expect(files.map((f) => [f.path, f.link])).toEqual([
      ["SKILL.md", undefined],
      ["a/to-b/y.md", "inside"],
      ["a/x.md", undefined],
      ["b/to-a/x.md", "inside"],
      ["b/y.md", undefined],
      ["ping", "dangling"],
      ["pong", "dangling"],
    ]);
  });
});

describe("skillFiles: bounds", () => {
  it("cuts the sorted list at limit (default 512) and lists everything with Infinity", async () => {
    const dir = await tempDir();
    const names = Array.from({ length: 600 }, (_, i) => `f${String(i).padStart(3, "0")}.md`);
    await tree(dir, Object.fromEntries(names.map((n) => [n, ""])));
    expect(paths(await skillFiles(dir))).toEqual(names.slice(0, 512));
    expect(paths(await skillFiles(dir, { limit: 3 }))).toEqual(names.slice(0, 3));
    expect(await skillFiles(dir, { limit: 0 })).toEqual([]);
    expect(paths(await skillFiles(dir, { limit: Number.POSITIVE_INFINITY }))).toEqual(names);
  });

  it("cuts the sorted list before the first file that would pass maxBytes", async () => {
    const dir = await tempDir();
    await tree(dir, { "a.md": "x".repeat(40), "b.md": "x".repeat(40), "c.md": "x".repeat(30), "d.md": "" });
    expect(paths(await skillFiles(dir, { maxBytes: 80 }))).toEqual(["a.md", "b.md"]);
    // A prefix, not a packing: the small files after the first one that does not fit are cut too.
    expect(paths(await skillFiles(dir, { maxBytes: 100 }))).toEqual(["a.md", "b.md"]);
    expect(paths(await skillFiles(dir, { maxBytes: 39 }))).toEqual([]);
    expect(paths(await skillFiles(dir, { maxBytes: 110, limit: 2 }))).toEqual(["a.md", "b.md"]);
    expect(paths(await skillFiles(dir, { maxBytes: 110 }))).toEqual(["a.md", "b.md", "c.md", "d.md"]);
  });

  it("cuts at 16 MiB by default", async () => {
    const dir = await tempDir();
    const big = Buffer.alloc(6 * 1024 * 1024);
    for (const name of ["a.bin", "b.bin", "c.bin"]) await writeFile(join(dir, name), big);
    expect(paths(await skillFiles(dir))).toEqual(["a.bin", "b.bin"]);
    expect(paths(await skillFiles(dir, { maxBytes: Number.POSITIVE_INFINITY }))).toHaveLength(3);
  });

  it("refuses a tree deeper than 16 folders with LIMIT_EXCEEDED naming the folder", async () => {
    const dir = await tempDir();
    const sixteen = Array.from({ length: 16 }, (_, i) => `d${i + 1}`).join("/");
    await tree(dir, { [`${sixteen}/ok.md`]: "" });
    expect(paths(await skillFiles(dir))).toEqual([`${sixteen}/ok.md`]);
    await tree(dir, { [`${sixteen}/d17/deep.md`]: "" });
    const error = await rejection(skillFiles(dir));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.path).toBe(join(dir, sixteen, "d17"));
    expect(error.message).toBe(
      `Skill folder too deep: ${join(dir, sixteen, "d17")} is 17 folders below ${dir}, the limit is 16`,
    );
    // The bound holds whatever the options ask for.
    expect((await rejection(skillFiles(dir, { limit: Number.POSITIVE_INFINITY }))).code).toBe(
      "LIMIT_EXCEEDED",
    );
  });

  it("enters at most maxDepth levels of subfolders, leaving deeper ones out without an error", async () => {
    const dir = await tempDir();
    const seventeen = Array.from({ length: 17 }, (_, i) => `d${i + 1}`).join("/");
    await tree(dir, {
      "SKILL.md": "",
      "top.md": "",
      "d1/one.md": "",
      "d1/d2/two.md": "",
      [`${seventeen}/deep.md`]: "",
    });
    const all = { limit: Number.POSITIVE_INFINITY };
    expect(paths(await skillFiles(dir, { ...all, maxDepth: 0 }))).toEqual(["SKILL.md", "top.md"]);
    expect(paths(await skillFiles(dir, { ...all, maxDepth: 2 }))).toEqual([
      "SKILL.md",
      "d1/d2/two.md",
      "d1/one.md",
      "top.md",
    ]);
    // Deeper than 16 is refused whatever maxDepth asks for.
    expect((await rejection(skillFiles(dir, { ...all, maxDepth: 20 }))).code).toBe("LIMIT_EXCEEDED");
  });

  it("refuses a chain of folder links deeper than 16 folders", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "" });
    // 20 real folders side by side, each linking to the next: no loop, but an endless-looking path.
    for (let i = 0; i < 20; i++) await mkdir(join(dir, `n${i}`));
    for (let i = 0; i < 19; i++) await symlink(`../n${i + 1}`, join(dir, `n${i}`, "next"));
    const error = await rejection(skillFiles(dir));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.message).toContain("is 17 folders below");
  });

  it("refuses a tree of more than 100,000 entries, counting skipped ones, unless the list fills first", {
    tags: ["slow"],
    timeout: 120_000,
  }, async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "zz/keep.md": "" });
    const crowd = join(dir, "zz");
    // Dot-files are skipped but still looked at: links are the cheapest entries to make.
    for (let i = 0; i < 100_000; i++) symlinkSync("x", join(crowd, `.${i}`));
    const error = await rejection(skillFiles(dir));
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.path).toBe(crowd);
    expect(error.message).toContain("more than 100000 entries");
    // The walk stops as soon as the list is full: the crowded folder is never read.
    expect(paths(await skillFiles(dir, { limit: 1 }))).toEqual(["SKILL.md"]);
  });
});

describe("skillFiles: errors", () => {
  it("rejects a missing folder with NOT_FOUND", async () => {
    const dir = join(await tempDir(), "missing");
    const error = await rejection(skillFiles(dir));
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toBe(`Skill folder not found: ${dir}`);
    expect(error.path).toBe(dir);
  });

  it("rejects a path below a file with NOT_FOUND, and a file with READ_ERROR", async () => {
    const dir = await tempDir();
    await tree(dir, { "notes.txt": "" });
    expect((await rejection(skillFiles(join(dir, "notes.txt", "x")))).code).toBe("NOT_FOUND");
    const error = await rejection(skillFiles(join(dir, "notes.txt")));
    expect(error.code).toBe("READ_ERROR");
    expect(error.message).toBe(
      `Failed to read skill folder: ${join(dir, "notes.txt")} (expected a folder, found a file)`,
    );
  });

  it("rejects a limit, maxBytes or maxDepth that is not a number >= 0 with INVALID_FIELD", async () => {
    const dir = await tempDir();
    for (const [field, value] of [
      ["limit", -1],
      ["limit", Number.NaN],
      ["maxBytes", "10"],
      ["maxBytes", null],
      ["maxDepth", -1],
    ] as const) {
      const error = await rejection(skillFiles(dir, { [field]: value } as never));
      expect(error.code).toBe("INVALID_FIELD");
      expect(error.field).toBe(field);
    }
  });

  it("rejects with ABORTED on an aborted signal, before and during the walk", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "a/b.md": "", "c/d.md": "" });
    const before = await rejection(skillFiles(dir, { signal: AbortSignal.abort(new Error("stop")) }));
    expect(before.code).toBe("ABORTED");
    expect((before.cause as Error).message).toBe("stop");
    const controller = new AbortController();
    const during = skillFiles(dir, { signal: controller.signal });
    controller.abort();
    expect((await rejection(during)).code).toBe("ABORTED");
  });

  it("leaves out a subfolder and a file that vanish during the walk", async () => {
    const dir = await tempDir();
    await tree(dir, { "SKILL.md": "", "gone/x.md": "", "gone.md": "", "stays/y.md": "" });
    // The walk reads `aborted` before each folder: the second read comes after the skill
    // folder was listed and before its entries are looked at.
    let reads = 0;
    const signal = {
      get aborted() {
        if (++reads === 2) {
          rmSync(join(dir, "gone"), { recursive: true });
          rmSync(join(dir, "gone.md"));
        }
        return false;
      },
    } as AbortSignal;
    expect(paths(await skillFiles(dir, { signal }))).toEqual(["SKILL.md", "stays/y.md"]);
    expect(reads).toBeGreaterThan(2);
  });

  it("skips a subfolder it may not read, and refuses a skill folder it may not read (as uid 65534)", {
    tags: ["slow"],
  }, async (ctx) => {
    const nobody = 65534;
    const base = await tempDir();
    await chmod(base, 0o755);
    const skill = join(base, "skill");
    await tree(skill, { "SKILL.md": "", "open/a.md": "", "locked/secret.md": "" });
    await chmod(join(skill, "locked"), 0o700); // owned by root
    const locked = join(base, "locked-skill");
    await tree(locked, { "SKILL.md": "" });
    await chmod(locked, 0o700);
    // The checkout may be closed to uid 65534 (a clone under a 0700 folder): it loads a copy.
    const dist = await installBuilt(CORE, base);
    const script = `
      const { skillFiles } = await import(${JSON.stringify(dist)});
      const files = (await skillFiles(${JSON.stringify(skill)})).map((f) => f.path);
      const error = await skillFiles(${JSON.stringify(locked)}).catch((e) => e);
      console.log(JSON.stringify({ files, code: error.code, message: error.message }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      uid: nobody,
      gid: nobody,
      env: {},
      cwd: base,
      encoding: "utf8",
      timeout: 30_000,
    });
    if (process.getuid?.() !== 0) {
      ctx.skip(); // only root can run a child as uid 65534
      return;
    }
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({
      files: ["SKILL.md", "open/a.md"],
      code: "READ_ERROR",
      message: `Failed to read skill folder: ${locked} (EACCES)`,
    });
  });
});
