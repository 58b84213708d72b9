import { lstat, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { computedHash } from "@skill/lock";
import { afterEach, describe, expect, it } from "vitest";
import { commitAll, git, projectScope, put, removeWorlds, skillMd, world } from "../test/world.js";
import { applyPlan } from "./apply.js";
import { checkInstalled } from "./check.js";
import { planAdd } from "./plan-add.js";
import { discardPlan } from "./plan-state.js";
import { restore } from "./restore.js";
import { planUpdate } from "./update.js";

afterEach(removeWorlds);

const lockOf = async (project: string) =>
  JSON.parse(await readFile(join(project, "skills-lock.json"), "utf8"));

describe("locks travel (rule 6)", () => {
  it("locks a local git repository by a path relative to the lock, and restores it from the lock (frozen)", {
    tags: ["slow"],
  }, async () => {
    const w = await world();
    const repo = join(w.root, "repo");
    await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf"));
    commitAll(repo);
    git(repo, "tag", "v1");
    await applyPlan(await planAdd(`${repo}#v1`, { ...projectScope(w), agents: ["codex"] }));
    const entry = (await lockOf(w.project)).skills.pdf;
    expect(entry).toMatchObject({
      source: "../repo",
      sourceUrl: "../repo",
      ref: "v1",
      sourceType: "git",
      skillPath: "skills/pdf/SKILL.md",
    });
    await rm(join(w.project, ".agents"), { recursive: true });
    const report = await restore({ ...projectScope(w), agents: ["codex"], frozen: true });
    expect(report.installed.map((s) => s.name)).toEqual(["pdf"]);
  });

  it("locks a remote git URL as the user gave it", { tags: ["slow"] }, async () => {
    const w = await world();
    const repo = join(w.root, "remote.git");
    await put(join(repo, "SKILL.md"), skillMd("solo"));
    commitAll(repo);
    const url = `file://${repo}`;
    await applyPlan(await planAdd(url, { ...projectScope(w), agents: ["codex"] }));
    expect((await lockOf(w.project)).skills.solo).toMatchObject({
      source: url,
      sourceUrl: url,
      sourceType: "git",
      skillPath: "SKILL.md",
    });
  });

  it("restores a lock Vercel's skills wrote for a local folder (no skillPath) by finding the skill by name", async () => {
    const w = await world();
    const repo = join(w.root, "repo");
    await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf"));
    await put(join(repo, "skills", "csv", "SKILL.md"), skillMd("csv"));
    await put(join(repo, "README.md"), "# skills\n");
    const hash = await computedHash(join(repo, "skills", "pdf"));
    const lock = `{\n  "version": 1,\n  "skills": {\n    "pdf": {\n      "source": "../repo",\n      "sourceType": "local",\n      "computedHash": "${hash}"\n    }\n  }\n}\n`;
    await writeFile(join(w.project, "skills-lock.json"), lock);
    const report = await restore({ ...projectScope(w), agents: ["codex"], frozen: true });
    expect(report.installed).toEqual([expect.objectContaining({ name: "pdf", computedHash: hash })]);
    expect(await readFile(join(w.project, "skills-lock.json"), "utf8")).toBe(lock);
  });
});

describe("a lock's node_modules entries (skills a dependency ships, as skills experimental_sync locks them)", () => {
  const entry = (hash: string, source = "@acme/ui") =>
    `{\n  "version": 1,\n  "skills": {\n    "ui-kit": {\n      "source": ${JSON.stringify(source)},\n      "sourceType": "node_modules",\n      "skillPath": "skills/ui-kit/SKILL.md",\n      "version": "1.2.0",\n      "computedHash": "${hash}"\n    }\n  }\n}\n`;

  it("restores from the installed package, hash verified, and keeps the lock as it was", async () => {
    const w = await world();
    // Installed where the project's package manager puts it (here a folder above the project's).
    const pkg = join(w.root, "node_modules", "@acme", "ui");
    await put(join(pkg, "package.json"), '{ "name": "@acme/ui", "version": "1.2.0" }\n');
    await put(join(pkg, "skills", "ui-kit", "SKILL.md"), skillMd("ui-kit"));
    const lock = entry(await computedHash(join(pkg, "skills", "ui-kit")));
    await writeFile(join(w.project, "skills-lock.json"), lock);
    const report = await restore({ ...projectScope(w), agents: ["codex"], frozen: true });
    expect(report.installed.map((s) => s.name)).toEqual(["ui-kit"]);
    expect(await readFile(join(w.project, "skills-lock.json"), "utf8")).toBe(lock);
  });

  it("says the package is not installed, and refuses a source that is no package name", async () => {
    const w = await world();
    await writeFile(join(w.project, "skills-lock.json"), entry("0".repeat(64)));
    await expect(restore({ ...projectScope(w), agents: ["codex"], frozen: true })).rejects.toThrow(
      /the package @acme\/ui is not installed/,
    );
    await writeFile(join(w.project, "skills-lock.json"), entry("0".repeat(64), "../../etc"));
    await expect(restore({ ...projectScope(w), agents: ["codex"], frozen: true })).rejects.toThrow(
      /is not an npm package name/,
    );
  });
});

describe("nested skills as Vercel lays them out (rule 5)", () => {
  it("copies the parent with its nested folder and installs the nested skill as its own folder too", async () => {
    const w = await world();
    const src = join(w.root, "src");
    await put(join(src, "parent", "SKILL.md"), skillMd("parent"));
    await put(join(src, "parent", "child", "SKILL.md"), skillMd("child"));
    await applyPlan(await planAdd(src, { ...projectScope(w), agents: ["codex"] }));
    const skills = join(w.project, ".agents", "skills");
    expect((await lstat(join(skills, "parent", "child", "SKILL.md"))).isFile()).toBe(true);
    expect((await lstat(join(skills, "child", "SKILL.md"))).isFile()).toBe(true);
    const lock = await lockOf(w.project);
    expect(lock.skills.parent.computedHash).toBe(await computedHash(join(src, "parent")));
    expect(lock.skills.child.skillPath).toBe("parent/child/SKILL.md");
  });
});

describe("plans", { tags: ["slow"] }, () => {
  it("are plain data a review can refuse; a refused or discarded plan writes nothing and removes its clone", async () => {
    const w = await world();
    const repo = join(w.root, "repo");
    await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf"));
    commitAll(repo);
    const plan = await planAdd(`${repo}#main`, { ...projectScope(w), agents: ["codex", "claude-code"] });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
    // What a review shows: the description its SKILL.md gives, parsed once when it was found.
    expect(plan.skills.map((s) => [s.name, s.description])).toEqual([["pdf", "The pdf skill."]]);
    const staged = plan.skills[0]?.staged as string;
    expect((await lstat(join(staged, "SKILL.md"))).isFile()).toBe(true);
    const report = await applyPlan(plan, { review: async () => false });
    expect(report.installed).toEqual([]);
    expect(report.refused).toEqual([{ name: "pdf", code: "ABORTED", reason: "not confirmed in review" }]);
    expect(await lstat(staged).catch(() => undefined)).toBeUndefined();
    expect(await lstat(join(w.project, "skills-lock.json")).catch(() => undefined)).toBeUndefined();
    await expect(applyPlan(plan)).rejects.toMatchObject({ code: "INVALID_FIELD" });
    const again = await planAdd(`${repo}#main`, { ...projectScope(w), agents: ["codex"] });
    await discardPlan(again);
    expect(await lstat(again.skills[0]?.staged as string).catch(() => undefined)).toBeUndefined();
  });
});

describe("progress", () => {
  it("tells each step: fetch, scan, hash and place per skill, then the lock", async () => {
    const w = await world();
    const src = join(w.root, "src");
    await put(join(src, "a", "SKILL.md"), skillMd("a"));
    await put(join(src, "b", "SKILL.md"), skillMd("b"));
    const steps: string[] = [];
    const onProgress = (e: { step: string; name?: string }) =>
      steps.push(e.name ? `${e.step} ${e.name}` : e.step);
    await applyPlan(await planAdd(src, { ...projectScope(w), agents: ["codex"], onProgress }));
    expect(steps.slice(0, 2)).toEqual(["fetch", "scan"]);
    expect(steps.filter((s) => s.startsWith("hash")).sort()).toEqual(["hash a", "hash b"]);
    expect(steps.filter((s) => s.startsWith("place")).sort()).toEqual(["place a", "place b"]);
    expect(steps.at(-1)).toBe("lock");
  });
});

describe("check and update", { tags: ["slow"] }, () => {
  it("see a newer commit, plan it with its file changes, and apply it to the lock", async () => {
    const w = await world();
    const repo = join(w.root, "repo");
    await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf", "v1\n"));
    commitAll(repo);
    await applyPlan(await planAdd(`${repo}#main`, { ...projectScope(w), agents: ["codex"] }));
    await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf", "v2\n"));
    await put(join(repo, "skills", "pdf", "run.sh"), "#!/bin/sh\n", 0o755);
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "v2");
    const checked = await checkInstalled(projectScope(w));
    expect(checked.skills.map((s) => [s.name, s.installed.status, s.upstream.status])).toEqual([
      ["pdf", "ok", "outdated"],
    ]);
    const plan = await planUpdate(projectScope(w));
    expect(plan.current).toEqual([]);
    expect(plan.skills[0]?.files).toEqual({ added: ["run.sh"], removed: [], changed: ["SKILL.md"] });
    await applyPlan(plan);
    const installed = join(w.project, ".agents", "skills", "pdf");
    expect(await readFile(join(installed, "SKILL.md"), "utf8")).toContain("v2");
    expect((await lstat(join(installed, "run.sh"))).mode & 0o111).not.toBe(0);
    expect((await lockOf(w.project)).skills.pdf.computedHash).toBe(await computedHash(installed));
    expect((await planUpdate(projectScope(w))).current).toEqual(["pdf"]);
  });
});
