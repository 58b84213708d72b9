import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSkillFile, skillFiles } from "./skill-files.js";

let root: string;
let skill: string;

async function file(path: string, text = "x"): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-is-file-"));
  skill = join(root, "pdf");
  await file(join(skill, "SKILL.md"), "---\nname: pdf\ndescription: d\n---\n");
  await file(join(skill, "reference.md"));
  await file(join(skill, "scripts", "fill.py"));
  await file(join(skill, ".env"));
  await file(join(skill, ".hidden", "a.md"));
  await file(join(skill, "node_modules", "x", "index.js"));
  await file(join(skill, "nested", "SKILL.md"));
  await file(join(skill, "nested", "inner.md"));
  await file(join(skill, "nested", "deep", "more.md"));
  await file(join(skill, ".git", "config"));
  await file(join(root, "outside.txt"));
  await file(join(root, "sibling", "SKILL.md"));
  await file(join(root, "sibling", "private.md"));
  await symlink("reference.md", join(skill, "alias.md"));
  await symlink(join(root, "outside.txt"), join(skill, "out.txt"));
  await symlink("nested", join(skill, "into-nested"));
  await symlink(join(skill, "nested", "inner.md"), join(skill, "nested-file.md"));
  await symlink(join(skill, ".git", "config"), join(skill, "git-config"));
  await symlink("scripts", join(skill, "tools"));
  await symlink(join(root, "sibling"), join(skill, "sibling"));
  await symlink("missing.md", join(skill, "dangling.md"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every path under the skill folder, files and links, whether or not a walk lists it. */
async function candidates(): Promise<string[]> {
  const all = await readdir(skill, { recursive: true });
  return [
    ...all.map((p) => relative(skill, join(skill, p))),
    "tools/fill.py",
    "into-nested/inner.md",
    "sibling/private.md",
  ];
}

describe("isSkillFile", () => {
  it("agrees with skillFiles on every path of a tree with nested skills, links and dot-entries", async () => {
    const listed = new Set((await skillFiles(skill)).map((f) => f.path));
    expect([...listed].sort()).toEqual([
      "SKILL.md",
      "alias.md",
      "reference.md",
      "scripts/fill.py",
      "tools/fill.py",
    ]);
    for (const path of await candidates()) {
      expect(await isSkillFile(skill, path), path).toBe(listed.has(path));
    }
  });

  it("refuses escaping paths with UNSAFE_PATH", async () => {
    for (const path of ["../outside.txt", "/etc/passwd", "a/../../x"]) {
      await expect(isSkillFile(skill, path)).rejects.toMatchObject({ code: "UNSAFE_PATH" });
    }
  });
});
