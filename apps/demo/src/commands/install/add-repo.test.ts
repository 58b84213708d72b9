// @module-tag slow: every test here runs the built `skill` CLI in a child process.
// `skill add` of a generated 400-skill repository with nested skills and colliding names
// (test-utils' generateSkillRepo): what DESIGN §12.3 says is installed, refused and locked.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { skillFolderName } from "@skill/lock";
import { generateSkillRepo } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { removeWorlds, world } from "../../../test/install-world.js";

afterEach(removeWorlds);

describe("skill add of a 400-skill repository", () => {
  it("installs every skill but the colliding names, which it refuses naming both, nested skills as Vercel lays them out", {
    timeout: 240_000,
  }, async () => {
    const w = await world();
    const repo = generateSkillRepo(join(w.root, "repo"), 400);
    const r = await w.skill(["add", `${repo.dir}#main`, "--for", "codex", "--for", "claude-code", "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      installed: { name: string }[];
      refused: { name: string; code: string; reason: string }[];
    };
    expect(out.installed.map((s) => s.name).sort()).toEqual(repo.installable);
    expect(out.refused.map((s) => s.name).sort()).toEqual(repo.colliding);
    expect(new Set(out.refused.map((s) => s.code))).toEqual(new Set(["DUPLICATE_NAME"]));
    expect(out.refused.find((s) => s.name === "casey-0")?.reason).toContain('"Casey-0"');
    const canonical = join(w.project, ".agents", "skills");
    expect((await readdir(canonical)).sort()).toEqual(repo.installable.map(skillFolderName).sort());
    for (const { child, parent } of repo.nested) {
      expect((await lstat(join(canonical, child, "SKILL.md"))).isFile()).toBe(true);
      expect((await lstat(join(canonical, parent, child, "SKILL.md"))).isFile()).toBe(true);
    }
    const lock = JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8"));
    expect(Object.keys(lock.skills).sort()).toEqual(repo.installable);
    expect(lock.skills["tool-000"]).toMatchObject({
      sourceType: "git",
      ref: "main",
      skillPath: repo.paths["tool-000"],
    });
    expect((await readdir(join(w.project, ".claude", "skills"))).length).toBe(repo.installable.length);
  });
});
