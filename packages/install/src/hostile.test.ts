import { lstat, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { computedHash, readProjectLock, skillFolderName } from "@skill/lock";
import { afterEach, describe, expect, it } from "vitest";
import { commitAll, projectScope, put, removeWorlds, skillMd, world } from "../test/world.js";
import { applyPlan } from "./apply.js";
import { planAdd } from "./plan-add.js";
import { removeSkills } from "./remove.js";
import { restore } from "./restore.js";

afterEach(removeWorlds);

const exists = async (path: string) => (await lstat(path).catch(() => undefined)) !== undefined;

describe("nothing is read from outside the source (rule 1)", { tags: ["slow"] }, () => {
  it("skips a committed link to a folder outside the repository, never reading or locking it", async () => {
    const w = await world();
    const secret = join(w.root, "private", "global-skill");
    await put(join(secret, "SKILL.md"), skillMd("leak"));
    await put(join(secret, "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    const repo = join(w.root, "repo");
    await put(join(repo, "skills", "good", "SKILL.md"), skillMd("good"));
    await mkdir(join(repo, "skills"), { recursive: true });
    await symlink(secret, join(repo, "skills", "leak"));
    commitAll(repo);
    const plan = await planAdd(`${repo}#main`, { ...projectScope(w), agents: ["codex"] });
    expect(plan.skills.map((s) => s.name)).toEqual(["good"]);
    expect(plan.skipped).toEqual([{ path: "skills/leak/SKILL.md", reason: "outside-source" }]);
    const report = await applyPlan(plan);
    expect(report.installed.map((s) => s.name)).toEqual(["good"]);
    expect(await readdir(join(w.project, ".agents", "skills"))).toEqual(["good"]);
    const lock = await readProjectLock(join(w.project, "skills-lock.json"));
    expect(Object.keys(lock?.skills ?? {})).toEqual(["good"]);
  });

  it("refuses a lock whose skillPath climbs out of the clone, and a ref starting with '-', reading nothing", async () => {
    const w = await world();
    const repo = join(w.root, "repo");
    await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf"));
    commitAll(repo);
    const outside = join(w.root, "outside");
    await put(join(outside, "SKILL.md"), skillMd("pdf"));
    const hash = await computedHash(outside);
    const entry = (extra: object) =>
      JSON.stringify({
        version: 1,
        skills: { pdf: { source: repo, sourceUrl: repo, sourceType: "git", computedHash: hash, ...extra } },
      });
    await writeFile(join(w.project, "skills-lock.json"), entry({ skillPath: "../outside/SKILL.md" }));
    const climbing = await restore({ ...projectScope(w), agents: ["codex"] }).catch((e: unknown) => e);
    expect(climbing).toMatchObject({ code: "UNSAFE_PATH" });
    expect((climbing as Error).message).not.toContain(hash.slice(0, 12));
    await writeFile(
      join(w.project, "skills-lock.json"),
      entry({ skillPath: "skills/pdf/SKILL.md", ref: "--upload-pack=touch x" }),
    );
    await expect(restore({ ...projectScope(w), agents: ["codex"] })).rejects.toMatchObject({
      code: "INVALID_URL",
    });
    expect(await exists(join(w.project, ".agents"))).toBe(false);
  });
});

describe("nothing is written outside the scope (rule 2)", () => {
  it("refuses to restore into a checkout whose .agents links elsewhere, naming the link, writing nothing there", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const lock = {
      version: 1,
      skills: { pdf: { source: "../src/pdf", sourceType: "local", computedHash: await computedHash(src) } },
    };
    await writeFile(join(w.project, "skills-lock.json"), JSON.stringify(lock));
    const elsewhere = join(w.root, "other-project-agents");
    await mkdir(elsewhere);
    await symlink(elsewhere, join(w.project, ".agents"));
    const error = await restore({ ...projectScope(w), agents: ["codex"] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNSAFE_PATH", path: join(w.project, ".agents") });
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it("refuses an agent folder that links out of the project (.claude/skills -> ~/.claude/skills)", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const personal = join(w.home, ".claude", "skills");
    await mkdir(personal, { recursive: true });
    await mkdir(join(w.project, ".claude"));
    await symlink(personal, join(w.project, ".claude", "skills"));
    await expect(planAdd(src, { ...projectScope(w), agents: ["claude-code"] })).rejects.toMatchObject({
      code: "UNSAFE_PATH",
      path: join(w.project, ".claude", "skills"),
    });
    expect(await readdir(personal)).toEqual([]);
    expect(await exists(join(w.project, ".agents"))).toBe(false);
  });
});

describe("locks are plain data (rule 3)", () => {
  it.each(["constructor", "__proto__", "hasOwnProperty"])(
    "does not remove a folder named %s that it never installed, and writes no lock",
    async (name) => {
      const w = await world();
      const mine = join(w.project, ".agents", "skills", skillFolderName(name));
      await put(join(mine, "SKILL.md"), skillMd(name));
      await expect(removeSkills([name], projectScope(w))).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await exists(join(mine, "SKILL.md"))).toBe(true);
      expect(await exists(join(w.project, "skills-lock.json"))).toBe(false);
    },
  );

  it("installs and locks a skill named __proto__, and keeps the entry through later writes", async () => {
    const w = await world();
    await put(join(w.root, "src", "proto", "SKILL.md"), skillMd("__proto__"));
    await put(join(w.root, "src", "other", "SKILL.md"), skillMd("other"));
    await applyPlan(await planAdd(join(w.root, "src", "proto"), { ...projectScope(w), agents: ["codex"] }));
    await applyPlan(await planAdd(join(w.root, "src", "other"), { ...projectScope(w), agents: ["codex"] }));
    const text = await readFile(join(w.project, "skills-lock.json"), "utf8");
    expect(Object.keys(JSON.parse(text).skills)).toEqual(["__proto__", "other"]);
    expect(await exists(join(w.project, ".agents", "skills", "__proto__", "SKILL.md"))).toBe(true);
  });
});

describe("one name, one folder (rule 4)", () => {
  it("refuses skills whose names differ only by case, naming both, and installs the rest", async () => {
    const w = await world();
    const src = join(w.root, "src");
    await put(join(src, "a", "Foo", "SKILL.md"), skillMd("Foo", "upper\n"));
    await put(join(src, "b", "foo", "SKILL.md"), skillMd("foo", "lower\n"));
    await put(join(src, "c", "bar", "SKILL.md"), skillMd("bar"));
    const plan = await planAdd(src, { ...projectScope(w), agents: ["codex"] });
    expect(plan.skills.map((s) => s.name)).toEqual(["bar"]);
    expect(plan.refused.map((r) => [r.name, r.code])).toEqual([
      ["Foo", "DUPLICATE_NAME"],
      ["foo", "DUPLICATE_NAME"],
    ]);
    expect(plan.refused[0]?.reason).toContain('"Foo" (a/Foo/SKILL.md) and "foo" (b/foo/SKILL.md)');
    const report = await applyPlan(plan);
    expect(report.refused).toHaveLength(2);
    expect(await readdir(join(w.project, ".agents", "skills"))).toEqual(["bar"]);
  });

  it("refuses a name that maps onto the folder of a skill the lock already holds", async () => {
    const w = await world();
    await put(join(w.root, "one", "SKILL.md"), skillMd("pdf-tools"));
    await put(join(w.root, "two", "SKILL.md"), skillMd("PDF Tools"));
    await applyPlan(await planAdd(join(w.root, "one"), { ...projectScope(w), agents: ["codex"] }));
    const plan = await planAdd(join(w.root, "two"), { ...projectScope(w), agents: ["codex"] });
    expect(plan.skills).toEqual([]);
    expect(plan.refused[0]).toMatchObject({ name: "PDF Tools", code: "DUPLICATE_NAME" });
    expect(plan.refused[0]?.reason).toContain('which holds the installed skill "pdf-tools"');
  });
});
