// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { lstat, mkdir, readFile, readlink, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { computedHash } from "@skill/lock";
import { afterEach, describe, expect, it } from "vitest";
import { put, removeWorlds, skillMd, taggedRepo, world } from "../../../test/install-world.js";

afterEach(removeWorlds);

describe("skill add", () => {
  it("copies a local skill into .agents/skills, links it for Claude Code, and writes the lock as skills does", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    await put(join(src, "scripts", "fill.sh"), "#!/bin/sh\n", 0o755);
    await mkdir(join(w.project, ".claude"));
    const r = await w.skill(["add", "../src/pdf", "--for", "claude-code", "--for", "codex"], w.project);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const canonical = join(w.project, ".agents", "skills", "pdf");
    expect(await readlink(join(w.project, ".claude", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
    expect((await stat(join(canonical, "scripts", "fill.sh"))).mode & 0o777).toBe(0o755);
    const hash = await computedHash(src);
    expect(await readFile(join(w.project, "skills-lock.json"), "utf8")).toBe(
      `{\n  "version": 1,\n  "skills": {\n    "pdf": {\n      "source": "../src/pdf",\n      "sourceType": "local",\n      "computedHash": "${hash}"\n    }\n  }\n}\n`,
    );
    expect(await computedHash(canonical)).toBe(hash);
    expect(r.stdout).toContain("claude-code: loads it");
    expect(r.stdout).toContain("codex: loads it");
    expect(r.stdout).toContain(".claude/skills/pdf -> ../../.agents/skills/pdf (claude-code)");
    // Added again with the same bytes: said, so it does not read as a new install.
    const again = await w.skill(["add", "../src/pdf", "--for", "claude-code", "--for", "codex"], w.project);
    expect(again.stdout).toMatch(
      /^✓ pdf → \.agents\/skills\/pdf \(already installed, unchanged; from \.\.\/src\/pdf, /,
    );
    expect(r.stdout).not.toContain("already installed");
  });

  it("installs from a local git repository at a ref, naming the skill's path", async () => {
    const w = await world();
    const dir = await taggedRepo(w.root);
    const r = await w.skill(["add", `${dir}#v1`, "pdf", "--for", "codex", "--json"], w.project);
    expect(r.code).toBe(0);
    const canonical = join(w.project, ".agents", "skills", "pdf");
    expect(await readFile(join(canonical, "SKILL.md"), "utf8")).toContain("v1");
    expect((await stat(join(canonical, "scripts", "fill.sh"))).mode & 0o111).not.toBe(0);
    await expect(lstat(join(w.project, ".agents", "skills", "csv"))).rejects.toThrow();
    const lock = JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8"));
    // A local repository is locked by a path relative to the lock, never an absolute one.
    expect(lock.skills.pdf).toEqual({
      source: "../repo",
      sourceUrl: "../repo",
      ref: "v1",
      sourceType: "git",
      skillPath: "skills/pdf/SKILL.md",
      computedHash: await computedHash(canonical),
    });
    const out = JSON.parse(r.stdout);
    expect(out.installed[0].agents).toEqual([{ agent: "codex", skill: "pdf", loaded: true, name: "pdf" }]);
  });

  it("installs GitHub's owner/repo@skill as Vercel's skills does (git's own insteadOf sends it to a mirror)", async () => {
    const w = await world();
    const dir = await taggedRepo(w.root);
    // The home's git configuration maps https://github.com/acme/tools.git to the local repository.
    await writeFile(
      join(w.home, ".gitconfig"),
      `[url "file://${dir}"]\n\tinsteadOf = https://github.com/acme/tools.git\n`,
    );
    const r = await w.skill(["add", "acme/tools@pdf", "--for", "codex"], w.project);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ pdf → \.agents\/skills\/pdf \(from acme\/tools@pdf, [0-9a-f]{12}…\)/);
    const lock = JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8"));
    expect(lock.skills.pdf).toEqual({
      source: "acme/tools",
      sourceType: "github",
      skillPath: "skills/pdf/SKILL.md",
      computedHash: await computedHash(join(w.project, ".agents", "skills", "pdf")),
    });
    await expect(lstat(join(w.project, ".agents", "skills", "csv"))).rejects.toThrow();
    const check = await w.skill(["check"], w.project);
    expect(check.stdout).toContain("pdf (acme/tools) up to date, unedited");
  });

  it("lists a source's skills with --list, installing nothing, and takes skills' --skill for a name", async () => {
    const w = await world();
    const pack = join(w.root, "pack");
    await put(join(pack, "a", "pdf", "SKILL.md"), skillMd("pdf"));
    await put(join(pack, "b", "csv", "SKILL.md"), skillMd("csv"));
    const listed = await w.skill(["add", pack, "--list", "--for", "codex"], w.project);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`${pack}: 2 skills`);
    expect(lines.slice(1).map((l) => l.trim().split(/\s{2,}/))).toEqual(
      expect.arrayContaining([
        ["pdf", expect.stringContaining("pdf")],
        ["csv", expect.stringContaining("csv")],
      ]),
    );
    await expect(lstat(join(w.project, ".agents"))).rejects.toThrow();
    await expect(lstat(join(w.project, "skills-lock.json"))).rejects.toThrow();
    const json = JSON.parse((await w.skill(["add", pack, "-l", "-s", "csv", "--json"], w.project)).stdout);
    expect(json.skills.map((s: { name: string }) => s.name)).toEqual(["csv"]);
    const one = await w.skill(["add", pack, "--skill", "csv", "--for", "codex"], w.project);
    expect(one.code).toBe(0);
    expect(
      Object.keys(JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8")).skills),
    ).toEqual(["csv"]);
  });

  it("tells a user of Vercel's skills that --agent here is not the agent to install for", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const r = await w.skill(["add", "../src/pdf", "--agent", "claude-code"], w.project);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "skill: note: --agent claude-code names whose permission rules apply; to install for claude-code, use --for claude-code (what Vercel's skills calls --agent)",
    );
    const quiet = await w.skill(["add", "../src/pdf", "--for", "codex", "--agent", "codex"], w.project);
    expect(quiet.stderr).not.toContain("skill: note: --agent");
  });

  it("refuses a hand-made folder in the way, changes nothing, and replaces it with --force", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const mine = join(w.project, ".agents", "skills", "pdf", "SKILL.md");
    await put(mine, skillMd("pdf", "my own notes\n"));
    const r = await w.skill(["add", src, "--for", "codex"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".agents/skills/pdf exists and was not installed by skill");
    expect(r.stderr).toContain("--force replaces it");
    expect(await readFile(mine, "utf8")).toContain("my own notes");
    await expect(stat(join(w.project, "skills-lock.json"))).rejects.toThrow();

    const forced = await w.skill(["add", src, "--for", "codex", "--force"], w.project);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("replaced .agents/skills/pdf");
    expect(await readFile(mine, "utf8")).not.toContain("my own notes");
  });

  it("refuses a hand-made folder where an agent's link goes", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    await put(join(w.project, ".claude", "skills", "pdf", "SKILL.md"), skillMd("pdf", "hand-made\n"));
    const r = await w.skill(["add", src, "--for", "claude-code"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".claude/skills/pdf is a folder that skill did not install");
    await expect(lstat(join(w.project, ".agents", "skills", "pdf"))).rejects.toThrow();
  });

  it("refuses to overwrite an installed skill that was edited since", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    expect((await w.skill(["add", src, "--for", "codex"], w.project)).code).toBe(0);
    const installed = join(w.project, ".agents", "skills", "pdf", "SKILL.md");
    await writeFile(installed, skillMd("pdf", "edited here\n"));
    const r = await w.skill(["add", src, "--for", "codex"], w.project);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was edited since it was installed");
    expect(await readFile(installed, "utf8")).toContain("edited here");
    // Re-adding an untouched install is fine.
    await writeFile(installed, skillMd("pdf"));
    expect((await w.skill(["add", src, "--for", "codex"], w.project)).code).toBe(0);
  });

  it("names the folder with one safe segment, whatever the skill calls itself", async () => {
    const w = await world();
    const src = join(w.root, "src", "odd");
    await put(join(src, "SKILL.md"), `---\nname: "../../Evil Name"\ndescription: d\n---\n`);
    const r = await w.skill(["add", src, "--for", "claude-code"], w.project);
    expect(r.code).toBe(0);
    expect((await stat(join(w.project, ".agents", "skills", "evil-name", "SKILL.md"))).isFile()).toBe(true);
    expect(await readlink(join(w.project, ".claude", "skills", "evil-name"))).toBe(
      "../../.agents/skills/evil-name",
    );
    await expect(lstat(join(w.root, "Evil Name"))).rejects.toThrow();
  });

  it("installs into the home with -g and writes the global lock", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const r = await w.skill(["add", src, "-g", "--for", "claude-code", "--for", "codex"], w.project);
    expect(r.code).toBe(0);
    expect(await readlink(join(w.home, ".claude", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
    const text = await readFile(join(w.home, ".agents", ".skill-lock.json"), "utf8");
    const lock = JSON.parse(text);
    expect(lock.version).toBe(3);
    expect(lock.skills.pdf).toMatchObject({
      source: "../../src/pdf",
      sourceType: "local",
      skillFolderHash: await computedHash(src),
    });
    expect(lock.skills.pdf.installedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(text.endsWith("}")).toBe(true);
    await expect(stat(join(w.project, "skills-lock.json"))).rejects.toThrow();
    expect(r.stdout).toContain("claude-code: loads it");
  });

  it("copies instead of linking with --copy", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const r = await w.skill(["add", src, "--for", "claude-code", "--copy"], w.project);
    expect(r.code).toBe(0);
    const copy = join(w.project, ".claude", "skills", "pdf");
    expect((await lstat(copy)).isDirectory()).toBe(true);
    expect(await computedHash(copy)).toBe(await computedHash(src));
    // A copy it made is its own: adding again replaces it.
    expect((await w.skill(["add", src, "--for", "claude-code", "--copy"], w.project)).code).toBe(0);
  });

  it("says why an agent will not load the skill", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    await put(join(w.project, ".opencode", "skills", "pdf", "SKILL.md"), skillMd("pdf", "project copy\n"));
    const r = await w.skill(["add", src, "--for", "opencode"], w.project);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("opencode: will not load it: shadowed (by .opencode/skills/pdf/SKILL.md)");
  });

  it("installs for the agents detected here when --for is not given, as skills does", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    await mkdir(join(w.project, ".claude"));
    const r = await w.skill(["add", src, "--json"], w.project);
    expect(r.code).toBe(0);
    expect(await readlink(join(w.project, ".claude", "skills", "pdf"))).toBe("../../.agents/skills/pdf");
    await expect(lstat(join(w.project, ".goose"))).rejects.toThrow(); // no .goose here: not detected
    const agents = JSON.parse(r.stdout).installed[0].agents.map((v: { agent: string }) => v.agent);
    expect(agents).toEqual([
      "amp",
      "claude-code",
      "codex",
      "cursor",
      "gemini-cli",
      "github-copilot",
      "opencode",
      "pi",
    ]);
  });

  it("copies, rather than links, into an agent folder outside the scope", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    const claude = join(w.root, "elsewhere", "claude");
    const r = await w.skill(["add", src, "-g", "--for", "claude-code"], w.project, {
      CLAUDE_CONFIG_DIR: claude,
    });
    expect(r.code).toBe(0);
    const copy = join(claude, "skills", "pdf");
    expect((await lstat(copy)).isDirectory()).toBe(true);
    expect(await computedHash(copy)).toBe(await computedHash(src));
  });

  it("installs, and warns, when a broken config keeps it from checking the agents", async () => {
    const w = await world();
    const src = join(w.root, "src", "pdf");
    await put(join(src, "SKILL.md"), skillMd("pdf"));
    await writeFile(join(w.project, "skill.config.json"), "{ broken");
    const r = await w.skill(["add", src, "--for", "codex"], w.project);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("installed, but could not check what the agents load");
    expect((await stat(join(w.project, ".agents", "skills", "pdf", "SKILL.md"))).isFile()).toBe(true);
  });

  it("installs a pack of more skills than it places at once, each whole, locked and reported in order", async () => {
    const w = await world();
    const pack = join(w.root, "pack");
    const names = Array.from({ length: 20 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
    for (const [i, name] of names.entries()) {
      await put(join(pack, name, "SKILL.md"), skillMd(name, `Body ${i}\n`));
      await put(join(pack, name, "references", "guide.md"), `Guide ${i}\n`.repeat(i * 50));
      await put(join(pack, name, "scripts", "run.sh"), `echo ${i}\n`, 0o755);
    }
    const r = await w.skill(["add", pack, "--for", "codex", "--for", "claude-code", "--json"], w.project);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { installed: { name: string; computedHash: string }[] };
    expect(out.installed.map((s) => s.name)).toEqual(names);
    const lock = JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8"));
    for (const [i, name] of names.entries()) {
      const canonical = join(w.project, ".agents", "skills", name);
      const hash = await computedHash(join(pack, name));
      expect(await computedHash(canonical)).toBe(hash);
      expect(out.installed[i]?.computedHash).toBe(hash);
      expect(lock.skills[name].computedHash).toBe(hash);
      expect((await stat(join(canonical, "scripts", "run.sh"))).mode & 0o777).toBe(0o755);
      expect(await readlink(join(w.project, ".claude", "skills", name))).toBe(`../../.agents/skills/${name}`);
    }
  });

  it("at more than 20 skills, a line each, each agent's verdicts counted, and a total", async () => {
    const w = await world();
    const pack = join(w.root, "pack");
    const names = Array.from({ length: 24 }, (_, i) => `many-${String(i).padStart(2, "0")}`);
    for (const name of names) await put(join(pack, name, "SKILL.md"), skillMd(name));
    await put(join(pack, "Bad_Name", "SKILL.md"), skillMd("Bad_Name"));
    const r = await w.skill(["add", pack, "--for", "codex", "--for", "claude-code"], w.project);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => l.startsWith("✓ ")).length).toBe(25);
    expect(lines.length).toBeLessThanOrEqual(25 + 4);
    expect(lines.at(-1)).toBe("25 skills installed");
    expect(r.stdout).toMatch(/^ {2}codex: loads \d+ of 25/m);
    expect(r.stdout).toMatch(/^ {2}claude-code: loads \d+ of 25/m);
    const verbose = await w.skill(["add", pack, "--for", "codex", "--force", "--verbose"], w.project);
    expect(verbose.stdout).toMatch(/^ {2}codex: loads it$/m);
  });

  it("refuses two skills of one name, naming both, installs the rest and exits 1", async () => {
    const w = await world();
    const pack = join(w.root, "pack");
    await put(join(pack, "a", "dup", "SKILL.md"), skillMd("dup", "First\n"));
    await put(join(pack, "b", "dup", "SKILL.md"), skillMd("dup", "Second\n"));
    await put(join(pack, "c", "other", "SKILL.md"), skillMd("other"));
    const r = await w.skill(["add", pack, "--for", "codex"], w.project);
    expect(r.code).toBe(1);
    const refusal =
      'skill: Not installing "dup": Duplicate skill name: "dup" (a/dup/SKILL.md) and "dup" (b/dup/SKILL.md) would both be installed in .agents/skills/dup; neither is installed';
    // Said once for both copies; both count as refused.
    expect(r.stderr.split("\n").filter((l) => l === refusal)).toHaveLength(1);
    expect(r.stdout).toContain("1 skill installed, 2 refused");
    expect(r.stdout).toContain("✓ other → .agents/skills/other");
    await expect(lstat(join(w.project, ".agents", "skills", "dup"))).rejects.toThrow();
    const lock = JSON.parse(await readFile(join(w.project, "skills-lock.json"), "utf8"));
    expect(Object.keys(lock.skills)).toEqual(["other"]);
  });

  it("installs a skill too big to keep from hashing to copying by reading it again, whole", async () => {
    const w = await world();
    const src = join(w.root, "src", "big");
    await put(join(src, "SKILL.md"), skillMd("big"));
    await mkdir(join(src, "assets"), { recursive: true });
    await writeFile(join(src, "assets", "data.bin"), Buffer.alloc(5 * 1024 * 1024, 7));
    const r = await w.skill(["add", src, "--for", "codex", "--json"], w.project);
    expect(r.code).toBe(0);
    const hash = await computedHash(src);
    expect(JSON.parse(r.stdout).installed[0].computedHash).toBe(hash);
    expect(await computedHash(join(w.project, ".agents", "skills", "big"))).toBe(hash);
  });

  it("lays nested skills out as Vercel does, and says an agent loads the child from its copy inside the parent", async () => {
    const w = await world();
    const src = join(w.root, "src");
    await put(join(src, "parent", "SKILL.md"), skillMd("parent"));
    await put(join(src, "parent", "child", "SKILL.md"), skillMd("child"));
    const r = await w.skill(["add", src, "--for", "codex", "--for", "claude-code"], w.project);
    expect(r.code).toBe(0);
    expect((await stat(join(w.project, ".agents", "skills", "parent", "child", "SKILL.md"))).isFile()).toBe(
      true,
    );
    expect((await stat(join(w.project, ".agents", "skills", "child", "SKILL.md"))).isFile()).toBe(true);
    expect(r.stdout).toContain('codex: loads it (its copy inside "parent")');
    expect(r.stdout).not.toContain("will not load it");
    const list = await w.skill(["list", "--verbose"], w.project);
    expect(list.stderr).toContain("1 nested copy (inside its parent skill)");
  });

  it("refuses an unknown agent and a missing skill name", async () => {
    const w = await world();
    const dir = await taggedRepo(w.root);
    const bad = await w.skill(["add", dir, "--for", "vim"], w.project);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown agent "vim" in --for');
    const missing = await w.skill(["add", `${dir}#main`, "nope", "--for", "codex"], w.project);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No skill named "nope"');
    expect(missing.stderr).toContain("found: csv, pdf");
  });
});
