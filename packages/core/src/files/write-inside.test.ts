import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkInside, linkInside, stageSkillFolder, writeInside } from "./write-inside.js";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** `<base>/project` (the scope) and `<base>/outside` (holding a file that must not change). */
async function world() {
  const base = await realpath(await mkdtemp(join(tmpdir(), "skill-write-")));
  made.push(base);
  const project = join(base, "project");
  const outside = join(base, "outside");
  await mkdir(project, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, "keep.txt"), "untouched");
  return { base, project, outside };
}

const bytes = (text: string) => new TextEncoder().encode(text);

async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe("stageSkillFolder", () => {
  it("writes a folder beside the destination and replaces the destination whole on commit", async () => {
    const { project } = await world();
    const dest = join(project, ".agents", "skills", "pdf");
    await mkdir(dest, { recursive: true });
    await writeFile(join(dest, "stale.txt"), "old");
    const stage = await stageSkillFolder(dest, { within: project });
    await stage.write("SKILL.md", bytes("---\nname: pdf\n---\n"));
    await stage.write("scripts/fill.sh", bytes("#!/bin/sh\n"), { executable: true });
    expect(await listing(dest)).toEqual(["stale.txt"]); // nothing visible before the commit
    await stage.commit();
    expect(await listing(dest)).toEqual(["SKILL.md", "scripts", "scripts/fill.sh"]);
    expect((await stat(join(dest, "scripts", "fill.sh"))).mode & 0o111).not.toBe(0);
    expect((await stat(join(dest, "SKILL.md"))).mode & 0o111).toBe(0);
    expect(await listing(join(project, ".agents", "skills"))).toEqual([
      "pdf",
      "pdf/SKILL.md",
      "pdf/scripts",
      "pdf/scripts/fill.sh",
    ]);
  });

  it("refuses a destination below a link that leaves `within`, naming the link, before anything is written", async () => {
    const { project, outside } = await world();
    await symlink(outside, join(project, ".agents"));
    const error = await stageSkillFolder(join(project, ".agents", "skills", "pdf"), {
      within: project,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNSAFE_PATH", path: join(project, ".agents") });
    expect((error as Error).message).toContain(`${join(project, ".agents")} is a link to ${outside}`);
    expect(await listing(outside)).toEqual(["keep.txt"]);
  });

  it("refuses a destination that is itself a link leaving `within`, and one outside it", async () => {
    const { project, outside } = await world();
    await mkdir(join(project, "skills"));
    await symlink(outside, join(project, "skills", "pdf"));
    await expect(stageSkillFolder(join(project, "skills", "pdf"), { within: project })).rejects.toMatchObject(
      {
        code: "UNSAFE_PATH",
        path: join(project, "skills", "pdf"),
      },
    );
    await expect(stageSkillFolder(join(outside, "pdf"), { within: project })).rejects.toMatchObject({
      code: "UNSAFE_PATH",
    });
    expect(await listing(outside)).toEqual(["keep.txt"]);
  });

  it("follows a link that stays inside `within`, and takes `within` by its real path", async () => {
    const { base, project } = await world();
    await mkdir(join(project, "shared-agents"));
    await symlink(join(project, "shared-agents"), join(project, ".agents"));
    await symlink(project, join(base, "project-link"));
    const stage = await stageSkillFolder(join(project, ".agents", "skills", "pdf"), {
      within: join(base, "project-link"),
    });
    await stage.write("SKILL.md", bytes("x"));
    await stage.commit();
    expect(await readFile(join(project, "shared-agents", "skills", "pdf", "SKILL.md"), "utf8")).toBe("x");
  });

  it("writes only new files inside the stage: no `..`, no absolute path, no second write, no link on the way", async () => {
    const { project, outside } = await world();
    const stage = await stageSkillFolder(join(project, "skills", "pdf"), { within: project });
    await expect(stage.write("../escape.txt", bytes("x"))).rejects.toMatchObject({ code: "UNSAFE_PATH" });
    await expect(stage.write("/etc/x", bytes("x"))).rejects.toMatchObject({ code: "UNSAFE_PATH" });
    await stage.write("a.txt", bytes("1"));
    await expect(stage.write("a.txt", bytes("2"))).rejects.toMatchObject({ code: "WRITE_ERROR" });
    await symlink(outside, join(stage.path, "dir"));
    await expect(stage.write("dir/b.txt", bytes("x"))).rejects.toMatchObject({ code: "UNSAFE_PATH" });
    await stage.abort();
    expect(await lstat(stage.path).catch(() => undefined)).toBeUndefined();
    expect(await listing(outside)).toEqual(["keep.txt"]);
  });

  it("refuses a file where a folder on the way is to be, and commits over a file, an empty folder or nothing", async () => {
    const { project } = await world();
    await writeFile(join(project, ".agents"), "a file");
    await expect(
      stageSkillFolder(join(project, ".agents", "skills", "pdf"), { within: project }),
    ).rejects.toMatchObject({
      code: "UNSAFE_PATH",
      path: join(project, ".agents"),
    });
    expect(await readFile(join(project, ".agents"), "utf8")).toBe("a file");
    for (const [name, before] of [
      ["file", "x"],
      ["empty", undefined],
      ["none", null],
    ] as const) {
      const dest = join(project, "skills", name);
      await mkdir(join(project, "skills"), { recursive: true });
      if (typeof before === "string") await writeFile(dest, before);
      if (before === undefined) await mkdir(dest);
      const stage = await stageSkillFolder(dest, { within: project });
      await stage.write("SKILL.md", bytes(name));
      await stage.commit();
      expect(await listing(dest)).toEqual(["SKILL.md"]);
    }
    expect(await listing(join(project, "skills"))).toEqual([
      "empty",
      "empty/SKILL.md",
      "file",
      "file/SKILL.md",
      "none",
      "none/SKILL.md",
    ]);
  });

  it("rejects with ABORTED once the signal aborts", async () => {
    const { project } = await world();
    const controller = new AbortController();
    const stage = await stageSkillFolder(join(project, "pdf"), {
      within: project,
      signal: controller.signal,
    });
    controller.abort();
    await expect(stage.write("SKILL.md", bytes("x"))).rejects.toMatchObject({ code: "ABORTED" });
    await stage.abort();
  });
});

describe("writeInside", () => {
  it("writes one file, replacing a link at its path instead of writing through it", async () => {
    const { project, outside } = await world();
    await writeInside(project, "dist/index.json", bytes("{}"));
    expect(await readFile(join(project, "dist", "index.json"), "utf8")).toBe("{}");
    await symlink(join(outside, "keep.txt"), join(project, "dist", "keep.txt"));
    await writeInside(project, "dist/keep.txt", bytes("new"));
    expect((await lstat(join(project, "dist", "keep.txt"))).isSymbolicLink()).toBe(false);
    expect(await readFile(join(outside, "keep.txt"), "utf8")).toBe("untouched");
  });

  it("gives the file `mode` (less the umask), makes missing folders, and leaves no temporary file", async () => {
    const { project } = await world();
    await writeInside(join(project, "config", "skill"), "trusted.json", bytes("{}"), { mode: 0o600 });
    await writeInside(project, "run.sh", bytes("#!/bin/sh"), { executable: true });
    await writeInside(project, "plain.txt", bytes("x"));
    expect((await stat(join(project, "config", "skill", "trusted.json"))).mode & 0o777).toBe(0o600);
    // The folders it made for a file only its owner may read are its owner's alone too.
    expect((await stat(join(project, "config"))).mode & 0o077).toBe(0);
    expect((await stat(join(project, "config", "skill"))).mode & 0o077).toBe(0);
    expect((await stat(join(project, "run.sh"))).mode & 0o100).toBe(0o100);
    expect((await stat(join(project, "plain.txt"))).mode & 0o111).toBe(0);
    expect(await listing(join(project, "config", "skill"))).toEqual(["trusted.json"]);
  });

  it("refuses a folder on the way that links out of `within`", async () => {
    const { project, outside } = await world();
    await symlink(outside, join(project, "dist"));
    await expect(writeInside(project, "dist/index.json", bytes("{}"))).rejects.toMatchObject({
      code: "UNSAFE_PATH",
      path: join(project, "dist"),
    });
    await expect(writeInside(project, "../outside/x", bytes("{}"))).rejects.toMatchObject({
      code: "UNSAFE_PATH",
    });
    expect(await listing(outside)).toEqual(["keep.txt"]);
  });
});

describe("linkInside", () => {
  it("makes a relative link, replacing a folder in its place", async () => {
    const { project } = await world();
    const canonical = join(project, ".agents", "skills", "pdf");
    await mkdir(canonical, { recursive: true });
    await mkdir(join(project, ".claude", "skills", "pdf"), { recursive: true });
    await linkInside(join(project, ".claude", "skills", "pdf"), canonical, { within: project });
    expect(await readlink(join(project, ".claude", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
  });

  it("refuses a link whose folder, or whose target, leaves `within`", async () => {
    const { project, outside } = await world();
    const canonical = join(project, ".agents", "skills", "pdf");
    await mkdir(canonical, { recursive: true });
    await symlink(outside, join(project, ".claude"));
    await expect(
      linkInside(join(project, ".claude", "skills", "pdf"), canonical, { within: project }),
    ).rejects.toMatchObject({ code: "UNSAFE_PATH", path: join(project, ".claude") });
    await expect(linkInside(join(project, "pdf"), outside, { within: project })).rejects.toMatchObject({
      code: "UNSAFE_PATH",
    });
    expect(await listing(outside)).toEqual(["keep.txt"]);
    expect(await lstat(join(project, "pdf")).catch(() => undefined)).toBeUndefined();
  });
});

describe("checkInside", () => {
  it("says, writing nothing, what the writer would refuse; a `within` not made yet is made by the writer", async () => {
    const { base, project, outside } = await world();
    await symlink(outside, join(project, ".agents"));
    await expect(
      checkInside(join(project, ".agents", "skills", "pdf"), { within: project }),
    ).rejects.toMatchObject({
      code: "UNSAFE_PATH",
      path: join(project, ".agents"),
    });
    await expect(checkInside(join(project, "other", "pdf"), { within: project })).resolves.toBeUndefined();
    const later = join(base, "config", "claude");
    await expect(checkInside(join(later, "skills", "pdf"), { within: later })).resolves.toBeUndefined();
    expect(await lstat(later).catch(() => undefined)).toBeUndefined();
    const stage = await stageSkillFolder(join(later, "skills", "pdf"), { within: later });
    await stage.write("SKILL.md", bytes("x"));
    await stage.commit();
    expect(await readFile(join(later, "skills", "pdf", "SKILL.md"), "utf8")).toBe("x");
  });
});
