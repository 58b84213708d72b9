import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareCodeUnits, SkillError, type SkippedPath } from "@skill/core";
import { memoryLogger, removeTempDirs, tempDir, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { corpora, sharedCorpusMissing } from "../../../fixtures/corpus.mjs";
import { installBuilt } from "../test/dist-fixture.js";
import { DEFAULT_IGNORE } from "./ignore.js";
import { scanRoots, scanSkillFiles } from "./scan.js";
import type { Listings } from "./scan-options.js";

afterEach(removeTempDirs);

const warned = (logger: { warnings: { message: string }[] }) => logger.warnings.map((w) => w.message);

describe("scanSkillFiles", () => {
  it("finds SKILL.md (exact name) at any depth, sorted by code unit, as absolute paths", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "b"));
    await writeSkill(join(root, "a", "deep", "er", "still"));
    await writeSkill(join(root, "B"));
    await writeSkill(join(root, "Z"));
    await writeSkill(join(root, "é"));
    await mkdir(join(root, "other"), { recursive: true });
    for (const wrong of ["skill.md", "SKILL.MD", "SKILL.md.bak", "XSKILL.md"]) {
      await writeFile(join(root, "other", wrong), "---\nname: x\ndescription: y\n---\n");
    }
    const files = await scanSkillFiles(root);
    expect(files).toEqual([
      join(root, "B", "SKILL.md"),
      join(root, "Z", "SKILL.md"),
      join(root, "a", "deep", "er", "still", "SKILL.md"),
      join(root, "b", "SKILL.md"),
      join(root, "é", "SKILL.md"),
    ]);
  });

  it("takes the file names of fileNames, the first where a folder holds several, linked ones too", async () => {
    const root = await tempDir();
    const text = "---\nname: x\ndescription: y\n---\n";
    await mkdir(join(root, "lower", "inner"), { recursive: true });
    await writeFile(join(root, "lower", "skill.md"), text);
    await writeFile(join(root, "lower", "inner", "skill.md"), text);
    await writeSkill(join(root, "both"));
    await writeFile(join(root, "both", "skill.md"), text);
    await mkdir(join(root, "linked"));
    await symlink(join(root, "lower", "skill.md"), join(root, "linked", "skill.md"));
    await mkdir(join(root, "leaf", "sub"), { recursive: true });
    await writeFile(join(root, "leaf", "skill.md"), text);
    await writeFile(join(root, "leaf", "sub", "SKILL.md"), text);
    expect(await scanSkillFiles(root, { fileNames: ["SKILL.md", "skill.md"] })).toEqual([
      join(root, "both", "SKILL.md"),
      join(root, "leaf", "skill.md"),
      join(root, "leaf", "sub", "SKILL.md"),
      join(root, "lower", "inner", "skill.md"),
      join(root, "lower", "skill.md"),
    ]);
    expect(await scanSkillFiles(root, { fileNames: ["SKILL.md", "skill.md"], leafSkills: true })).toEqual([
      join(root, "both", "SKILL.md"),
      join(root, "leaf", "skill.md"),
      join(root, "lower", "skill.md"),
    ]);
    expect(await scanSkillFiles(root)).toEqual([
      join(root, "both", "SKILL.md"),
      join(root, "leaf", "sub", "SKILL.md"),
    ]);
  });

  it("takes a .md file directly in the root under flatFiles, never one deeper", async () => {
    const root = await tempDir();
    const text = "---\nname: x\ndescription: y\n---\n";
    await writeFile(join(root, "flat.md"), text);
    await writeFile(join(root, "notes.txt"), text);
    await writeSkill(join(root, "folder"));
    await writeFile(join(root, "folder", "inner.md"), text);
    await symlink(join(root, "folder", "inner.md"), join(root, "linked.md"));
    expect(await scanSkillFiles(root, { flatFiles: true })).toEqual([
      join(root, "flat.md"),
      join(root, "folder", "SKILL.md"),
      join(root, "linked.md"),
    ]);
    expect(await scanSkillFiles(root)).toEqual([join(root, "folder", "SKILL.md")]);
  });

  it("enters dot-folders but not node_modules or .git", async () => {
    const root = await tempDir();
    await writeSkill(join(root, ".curated", "one"));
    await writeSkill(join(root, ".system", "two"));
    await writeSkill(join(root, "node_modules", "pkg", "three"));
    await writeSkill(join(root, "deep", "node_modules", "four"));
    await writeSkill(join(root, ".git", "five"));
    expect(await scanSkillFiles(root)).toEqual([
      join(root, ".curated", "one", "SKILL.md"),
      join(root, ".system", "two", "SKILL.md"),
    ]);
    expect(DEFAULT_IGNORE).toEqual(["node_modules", ".git"]);
  });

  it("takes picomatch globs in ignore, which replace the default", async () => {
    const root = await tempDir();
    for (const dir of [
      "node_modules/a",
      "x.cache/b",
      "docs/old/c",
      "docs/new/d",
      "src/docs/old/e",
      "keep/f",
    ]) {
      await writeSkill(join(root, dir));
    }
    const files = await scanSkillFiles(root, { ignore: ["*.cache", "docs/old", "dist/"] });
    expect(files.map((f) => f.slice(root.length + 1))).toEqual([
      "docs/new/d/SKILL.md",
      "keep/f/SKILL.md",
      "node_modules/a/SKILL.md",
      "src/docs/old/e/SKILL.md",
    ]);
    const withDefault = await scanSkillFiles(root, { ignore: [...DEFAULT_IGNORE, "**/old"] });
    expect(withDefault.map((f) => f.slice(root.length + 1))).toEqual([
      "docs/new/d/SKILL.md",
      "keep/f/SKILL.md",
      "x.cache/b/SKILL.md",
    ]);
  });

  it("gives [] for a missing root, quietly, and returns a root that is itself a SKILL.md", async () => {
    const root = await tempDir();
    const logger = memoryLogger();
    expect(await scanSkillFiles(join(root, "nope"), { logger })).toEqual([]);
    expect(logger.warnings).toEqual([]);
    const file = await writeSkill(join(root, "pdf"));
    expect(await scanSkillFiles(file, { logger })).toEqual([file]);
    await writeFile(join(root, "notes.txt"), "hi");
    expect(await scanSkillFiles(join(root, "notes.txt"), { logger })).toEqual([]);
    expect(warned(logger)).toEqual([
      `Cannot scan ${join(root, "notes.txt")}: expected a folder, found a file`,
    ]);
  });

  it.each(corpora)(
    "matches the real-skill corpus in $label exactly, dot-folders included",
    async ({ dir, expected }) => {
      const want = expected.skills.map((s) => join(dir, s.path)).sort();
      expect(want).toHaveLength(expected.summary.skills);
      expect(await scanSkillFiles(join(dir, "real"))).toEqual(want);
    },
  );

  if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});

  it("rejects with ABORTED when the signal is aborted", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "a"));
    const controller = new AbortController();
    controller.abort();
    const error = await scanSkillFiles(root, { signal: controller.signal }).catch((e: unknown) => e);
    expect(SkillError.isInstance(error) && error.code).toBe("ABORTED");
  });
});

describe("scanSkillFiles and symlinks", () => {
  it("follows symlinked folders and symlinked SKILL.md files", async () => {
    const base = await tempDir();
    const root = join(base, "skills");
    await writeSkill(join(base, "dotfiles", "pdf"));
    await writeSkill(join(base, "dotfiles", "nested", "deep"));
    const lone = await writeSkill(join(base, "elsewhere", "lone"));
    await mkdir(join(root, "single"), { recursive: true });
    await symlink(join(base, "dotfiles"), join(root, "linked"));
    await symlink(lone, join(root, "single", "SKILL.md"));
    expect(await scanSkillFiles(root)).toEqual([
      join(root, "linked", "nested", "deep", "SKILL.md"),
      join(root, "linked", "pdf", "SKILL.md"),
      join(root, "single", "SKILL.md"),
    ]);
  });

  it("returns each real file once: at its own path inside the root, else at the first link in sorted order", async () => {
    const base = await tempDir();
    const root = join(base, "skills");
    await writeSkill(join(root, "zeta"));
    await symlink(join(root, "zeta"), join(root, "alpha")); // inside the root: the real path wins
    await mkdir(join(root, "files"), { recursive: true });
    await symlink(join(root, "zeta", "SKILL.md"), join(root, "files", "SKILL.md"));
    await writeSkill(join(base, "outside", "shared"));
    await symlink(join(base, "outside"), join(root, "m-link"));
    await symlink(join(base, "outside"), join(root, "b-link"));
    await symlink(join(base, "outside", "shared"), join(root, "a-link"));
    expect(await scanSkillFiles(root)).toEqual([
      join(root, "a-link", "SKILL.md"),
      join(root, "zeta", "SKILL.md"),
    ]);
  });

  it("returns a file once when a linked SKILL.md and a linked folder reach it", async () => {
    const base = await tempDir();
    const root = join(base, "skills");
    await writeSkill(join(base, "out", "x"));
    await mkdir(join(root, "a"), { recursive: true });
    await symlink(join(base, "out", "x", "SKILL.md"), join(root, "a", "SKILL.md"));
    await symlink(join(base, "out", "x"), join(root, "b"));
    expect(await scanSkillFiles(root)).toEqual([join(root, "a", "SKILL.md")]);
    expect(await scanSkillFiles(join(root, "a", "SKILL.md"))).toEqual([join(root, "a", "SKILL.md")]);
  });

  it("ends symlink loops with a warning", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "a", "one"));
    await symlink(join(root, "a"), join(root, "a", "up")); // to an ancestor below the root
    await symlink(join(root, "self"), join(root, "self")); // to itself
    await symlink(join(root, "pong"), join(root, "ping"));
    await symlink(join(root, "ping"), join(root, "pong"));
    const logger = memoryLogger();
    expect(await scanSkillFiles(root, { logger })).toEqual([join(root, "a", "one", "SKILL.md")]);
    expect(warned(logger).sort()).toEqual([
      `Skipping symlink loop ${join(root, "a", "up")}: it points to ${join(root, "a")}, which holds the link itself`,
      `Skipping symlink loop ${join(root, "ping")}: it resolves back to itself`,
      `Skipping symlink loop ${join(root, "pong")}: it resolves back to itself`,
      `Skipping symlink loop ${join(root, "self")}: it resolves back to itself`,
    ]);
  });

  it("skips dangling links with a warning", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "ok"));
    await mkdir(join(root, "broken"), { recursive: true });
    await symlink(join(root, "gone", "SKILL.md"), join(root, "broken", "SKILL.md"));
    await symlink(join(root, "gone-folder"), join(root, "folder-link"));
    const logger = memoryLogger();
    expect(await scanSkillFiles(root, { logger })).toEqual([join(root, "ok", "SKILL.md")]);
    expect(warned(logger).sort()).toEqual([
      `Skipping dangling symlink ${join(root, "broken", "SKILL.md")} -> ${join(root, "gone", "SKILL.md")}: its target does not exist`,
      `Skipping dangling symlink ${join(root, "folder-link")} -> ${join(root, "gone-folder")}: its target does not exist`,
    ]);
  });

  it("does not follow links with followSymlinks: false", async () => {
    const base = await tempDir();
    await writeSkill(join(base, "real", "pdf"));
    await writeSkill(join(base, "skills", "own"));
    await symlink(join(base, "real"), join(base, "skills", "linked"));
    expect(await scanSkillFiles(join(base, "skills"), { followSymlinks: false })).toEqual([
      join(base, "skills", "own", "SKILL.md"),
    ]);
  });
});

/** Scans `root` and returns what it found and, sorted, what it passed over (paths below `root`). */
async function scanWithSkips(root: string, options: Parameters<typeof scanSkillFiles>[1] = {}) {
  const skipped: SkippedPath[] = [];
  const files = await scanSkillFiles(root, { ...options, onSkip: (s) => skipped.push(s) });
  const rel = (path: string) => (path === root ? "." : path.slice(root.length + 1));
  return {
    files: files.map(rel),
    skipped: skipped.map((s) => `${s.reason} ${rel(s.path)}`).sort(compareCodeUnits),
  };
}

describe("scanRoots with shared listings", () => {
  it("lists each folder once for scans under any limits, and finds what scans on their own find", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "top"));
    await writeSkill(join(root, "top", "nested", "inner"));
    await writeSkill(join(root, ".dotted", "hidden"));
    const plans = [{}, { maxDepth: 1 }, { skipDotDirs: true }, { maxDepth: 2, skipDotDirs: true }];
    const alone = [];
    for (const plan of plans) alone.push(await scanRoots([root], plan));
    const listings: Listings = new Map();
    const shared = [];
    for (const plan of plans) shared.push(await scanRoots([root], { ...plan, listings }));
    expect(shared).toEqual(alone);
    expect([...listings.keys()].sort(compareCodeUnits)).toEqual(
      [
        root,
        join(root, ".dotted"),
        join(root, ".dotted", "hidden"),
        join(root, "top"),
        join(root, "top", "nested"),
        join(root, "top", "nested", "inner"),
      ].sort(compareCodeUnits),
    );
    // A listing taken is what the next scan sees: the tree is read once.
    await writeSkill(join(root, "later"));
    expect(await scanRoots([root], { listings })).toEqual(alone[0]);
  });
});

describe("scanSkillFiles: what it passed over (onSkip)", () => {
  it("reports nothing when nothing is passed over", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "a", "deep"));
    await writeSkill(join(root, ".dotted"));
    expect(await scanWithSkips(root)).toEqual({
      files: [".dotted/SKILL.md", "a/deep/SKILL.md"],
      skipped: [],
    });
  });

  it("too-deep: the first folder below maxDepth, reached directly or through a link", async () => {
    const base = await tempDir();
    const root = join(base, "skills");
    await writeSkill(join(root, "top"));
    await writeSkill(join(root, "top", "nested", "inner"));
    await writeSkill(join(base, "elsewhere", "linked"));
    await mkdir(join(root, "group"), { recursive: true });
    await symlink(join(base, "elsewhere"), join(root, "group", "link"));
    expect(await scanWithSkips(root, { maxDepth: 1 })).toEqual({
      files: ["top/SKILL.md"],
      skipped: ["too-deep group/link", "too-deep top/nested"],
    });
    expect((await scanWithSkips(root, { maxDepth: 2 })).skipped).toEqual([
      "too-deep group/link/linked",
      "too-deep top/nested/inner",
    ]);
  });

  it("dot-folder: folders and folder links named .* under skipDotDirs", async () => {
    const base = await tempDir();
    const root = join(base, "skills");
    await writeSkill(join(root, "seen"));
    await writeSkill(join(root, ".system", "hidden"));
    await writeSkill(join(base, "elsewhere", "linked"));
    await symlink(join(base, "elsewhere"), join(root, ".linked"));
    expect(await scanWithSkips(root, { skipDotDirs: true })).toEqual({
      files: ["seen/SKILL.md"],
      skipped: ["dot-folder .linked", "dot-folder .system"],
    });
  });

  it("symlinked-file: a SKILL.md link not followed (followSymlinkFiles or followSymlinks false)", async () => {
    const base = await tempDir();
    const root = join(base, "skills");
    const target = await writeSkill(join(base, "real", "pdf"));
    await mkdir(join(root, "pdf"), { recursive: true });
    await symlink(target, join(root, "pdf", "SKILL.md"));
    await writeSkill(join(root, "own"));
    expect(await scanWithSkips(root, { followSymlinkFiles: false })).toEqual({
      files: ["own/SKILL.md"],
      skipped: ["symlinked-file pdf/SKILL.md"],
    });
    expect(await scanWithSkips(root, { followSymlinks: false })).toEqual({
      files: ["own/SKILL.md"],
      skipped: ["symlinked-file pdf/SKILL.md"],
    });
    expect((await scanWithSkips(root)).skipped).toEqual([]);
  });

  it("node-modules and ignored: the ignored folder itself, never crawled to find out", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "kept"));
    await writeSkill(join(root, "node_modules", "pkg", "decoy"));
    await writeSkill(join(root, "kept", "node_modules", "other"));
    await writeSkill(join(root, ".git", "x"));
    await writeSkill(join(root, "docs", "old", "y"));
    expect(await scanWithSkips(root)).toEqual({
      files: ["docs/old/y/SKILL.md", "kept/SKILL.md"],
      skipped: ["ignored .git", "node-modules kept/node_modules", "node-modules node_modules"],
    });
    expect((await scanWithSkips(root, { ignore: ["node_*", "docs/old"] })).skipped).toEqual([
      "ignored docs/old",
      "node-modules kept/node_modules",
      "node-modules node_modules",
    ]);
    // A folder link caught by the ignore globs is named the same way.
    await symlink(join(root, "kept"), join(root, "build.cache"));
    expect((await scanWithSkips(root, { ignore: ["*.cache"] })).skipped).toEqual(["ignored build.cache"]);
  });

  it("max-dirs: every folder left out once the budget is spent; folders entered are read to the end", async () => {
    const root = await tempDir();
    const names = ["a", "b", "c", "d", "e"];
    for (const name of names) await writeSkill(join(root, name));
    await writeFile(join(root, "SKILL.md"), "---\nname: root\ndescription: At the root.\n---\n");
    const logger = memoryLogger();
    const { files, skipped } = await scanWithSkips(root, { maxDirs: 3, logger });
    // The root and two folders are entered; which two is the file system's readdir order.
    const entered = files.filter((f) => f !== "SKILL.md").map((f) => f.split("/")[0]);
    expect(files).toContain("SKILL.md");
    expect(entered).toHaveLength(2);
    expect(skipped).toHaveLength(3);
    expect([...entered, ...skipped.map((s) => s.replace(/^max-dirs /, ""))].sort()).toEqual(names);
    expect(warned(logger)).toEqual([
      `Stopped scanning ${root} after 3 folders (maxDirs); skills in the rest are not found`,
    ]);
    // Only the root: its own SKILL.md is found whatever readdir lists first, every folder is named.
    expect(await scanWithSkips(root, { maxDirs: 1 })).toEqual({
      files: ["SKILL.md"],
      skipped: names.map((name) => `max-dirs ${name}`),
    });
    expect(await scanWithSkips(root, { maxDirs: 0 })).toEqual({ files: [], skipped: ["max-dirs ."] });
  });

  it("dangling-symlink: links to nothing, folder or SKILL.md", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "ok"));
    await mkdir(join(root, "broken"), { recursive: true });
    await symlink(join(root, "gone", "SKILL.md"), join(root, "broken", "SKILL.md"));
    await symlink(join(root, "gone-folder"), join(root, "folder-link"));
    expect(await scanWithSkips(root, { logger: memoryLogger() })).toEqual({
      files: ["ok/SKILL.md"],
      skipped: ["dangling-symlink broken/SKILL.md", "dangling-symlink folder-link"],
    });
  });

  it("symlink-loop: links back to a folder holding them below the root, and links to themselves", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "a", "one"));
    await symlink(join(root, "a"), join(root, "a", "up"));
    await mkdir(join(root, "self"), { recursive: true });
    await symlink("SKILL.md", join(root, "self", "SKILL.md"));
    expect(await scanWithSkips(root, { logger: memoryLogger() })).toEqual({
      files: ["a/one/SKILL.md"],
      skipped: ["symlink-loop a/up", "symlink-loop self/SKILL.md"],
    });
  });
});

describe("scanSkillFiles and odd entries", () => {
  it("warns about a FIFO named SKILL.md (and a link to one) without opening it", {
    tags: ["slow"],
  }, async () => {
    const root = await tempDir();
    await writeSkill(join(root, "good"));
    await mkdir(join(root, "pipe"), { recursive: true });
    execFileSync("mkfifo", [join(root, "pipe", "SKILL.md")]);
    await mkdir(join(root, "via-link"), { recursive: true });
    await symlink(join(root, "pipe", "SKILL.md"), join(root, "via-link", "SKILL.md"));
    const logger = memoryLogger();
    expect(await scanSkillFiles(root, { logger })).toEqual([join(root, "good", "SKILL.md")]);
    expect(warned(logger).sort()).toEqual([
      `Skipping ${join(root, "pipe", "SKILL.md")}: expected a SKILL.md file, found a FIFO`,
      `Skipping ${join(root, "via-link", "SKILL.md")}: expected a SKILL.md file, found a symlink to a FIFO`,
    ]);
  });

  it("warns about a folder named SKILL.md and still finds the skills inside it", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "odd", "SKILL.md", "inner"));
    const logger = memoryLogger();
    expect(await scanSkillFiles(root, { logger })).toEqual([
      join(root, "odd", "SKILL.md", "inner", "SKILL.md"),
    ]);
    expect(warned(logger)).toEqual([
      `Skipping ${join(root, "odd", "SKILL.md")}: expected a SKILL.md file, found a folder`,
    ]);
  });

  it("warns about a folder that vanishes mid-scan and goes on", async () => {
    const root = await tempDir();
    await writeSkill(join(root, "stays"));
    await writeSkill(join(root, "goes", "deep"));
    await mkdir(join(root, "SKILL.md"));
    // The first warning (the folder named SKILL.md, met while reading the root) removes "goes"
    // after it was listed but before it is read.
    const logger = memoryLogger((message) => {
      if (message.includes("found a folder")) rmSync(join(root, "goes"), { recursive: true });
    });
    expect(await scanSkillFiles(root, { logger })).toEqual([join(root, "stays", "SKILL.md")]);
    expect(warned(logger)).toContain(`Folder ${join(root, "goes")} vanished during the skill scan`);
  });

  it("warns about a folder it cannot read and goes on (scan run as an unprivileged user)", {
    tags: ["slow"],
  }, async (ctx) => {
    const nobody = 65534;
    const probe = spawnSync("setpriv", [`--reuid=${nobody}`, `--regid=${nobody}`, "--clear-groups", "true"]);
    if (probe.error || probe.status !== 0) {
      // Tests run as root, which reads every folder; without setpriv (or uid 65534) there is
      // no way to make a folder unreadable, so only this case is skipped.
      ctx.skip();
      return;
    }
    const base = await tempDir();
    const root = join(base, "skills");
    await writeSkill(join(root, "open"));
    await writeSkill(join(root, "locked", "secret"));
    await chmod(base, 0o755);
    await chmod(join(root, "locked"), 0o700); // owned by root: unreadable for uid 65534
    const { discovery: dist } = await installBuilt(base);
    const readable = spawnSync("setpriv", [
      `--reuid=${nobody}`,
      `--regid=${nobody}`,
      "--clear-groups",
      "test",
      "-r",
      fileURLToPath(dist),
    ]);
    if (readable.status !== 0) {
      ctx.skip(`uid ${nobody} cannot read ${base} (a private temp folder?), so this case cannot run here`);
      return;
    }
    const script = `
      const { scanSkillFiles } = await import(${JSON.stringify(dist)});
      const warnings = [];
      const files = await scanSkillFiles(${JSON.stringify(root)}, { logger: { warn: (m) => warnings.push(m) } });
      console.log(JSON.stringify({ files, warnings }));`;
    const child = spawnSync(
      "setpriv",
      [
        `--reuid=${nobody}`,
        `--regid=${nobody}`,
        "--clear-groups",
        process.execPath,
        "--input-type=module",
        "-e",
        script,
      ],
      { encoding: "utf8", cwd: base, timeout: 30_000 },
    );
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({
      files: [join(root, "open", "SKILL.md")],
      warnings: [
        `Cannot read folder ${join(root, "locked")} (permission denied); skills inside it are skipped`,
      ],
    });
  });
});
