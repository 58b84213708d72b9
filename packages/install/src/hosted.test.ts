import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { computedHash } from "@skill/lock";
import { afterEach, describe, expect, it } from "vitest";
import {
  commitAll,
  git,
  projectScope,
  put,
  removeWorlds,
  skillMd,
  type World,
  world,
} from "../test/world.js";
import { applyPlan } from "./apply.js";
import { checkInstalled } from "./check.js";
import { githubShorthand, hostedRepoUrl, hostedSource } from "./hosted.js";
import { planAdd } from "./plan-add.js";
import { restore } from "./restore.js";
import { planUpdate } from "./update.js";

afterEach(removeWorlds);

describe("GitHub sources as Vercel's skills names them", () => {
  it("reads owner/repo, a folder of it, one skill of it, github: and github.com URLs, each with #ref", () => {
    const url = "https://github.com/acme/tools.git";
    expect(githubShorthand("acme/tools")).toEqual({ host: "github", source: "acme/tools", url });
    expect(githubShorthand("acme/tools/skills/pdf/")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      subpath: "skills/pdf",
    });
    expect(githubShorthand("acme/tools@pdf#v2")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      ref: "v2",
      skill: "pdf",
    });
    expect(hostedSource("github:acme/tools#main")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      ref: "main",
    });
    expect(hostedSource("https://github.com/acme/tools")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
    });
    expect(hostedSource("https://github.com/acme/tools.git#v1")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      ref: "v1",
    });
    expect(hostedSource("https://github.com/acme/tools/blob/main/skills/pdf/SKILL.md")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      ref: "main",
      subpath: "skills/pdf",
    });
    expect(hostedSource("https://github.com/acme/tools/blob/main/SKILL.md")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      ref: "main",
    });
    expect(hostedSource("https://github.com/acme/tools/tree/v1/skills/pdf")).toEqual({
      host: "github",
      source: "acme/tools",
      url,
      ref: "v1",
      subpath: "skills/pdf",
    });
  });

  it("reads GitLab's gitlab:, gitlab.com URLs and any host's /-/tree/<ref>/<path>, and #ref@skill", () => {
    const url = "https://gitlab.com/grp/sub/tools.git";
    const lab = { host: "gitlab", source: url, url };
    expect(hostedSource("gitlab:grp/sub/tools")).toEqual(lab);
    expect(hostedSource("https://gitlab.com/grp/sub/tools#v1")).toEqual({ ...lab, ref: "v1" });
    expect(hostedSource("https://git.example.test/grp/tools/-/tree/v1/skills/pdf")).toEqual({
      host: "gitlab",
      source: "https://git.example.test/grp/tools.git",
      url: "https://git.example.test/grp/tools.git",
      ref: "v1",
      subpath: "skills/pdf",
    });
    expect(githubShorthand("acme/tools#v1@pdf")).toMatchObject({
      source: "acme/tools",
      ref: "v1",
      skill: "pdf",
    });
    expect(hostedSource("https://example.test/skills/index.json")).toBeUndefined();
  });

  it("is not a path, a URL of another host, or a name GitHub would not give", () => {
    for (const text of ["./acme/tools", "../acme/tools", "/acme/tools", "acme", "c:/acme/tools", "a\\b/c"]) {
      expect(githubShorthand(text), text).toBeUndefined();
    }
    for (const text of ["-evil/tools", "acme/..", "acme/-u", "acme/to ols"]) {
      expect(githubShorthand(text), text).toBeUndefined();
    }
    expect(hostedSource("acme/tools")).toBeUndefined();
    expect(() => githubShorthand("acme/tools#--upload-pack=x")).toThrow(/does not start with "-"/);
  });

  it("clones a lock's github and gitlab entries from owner/repo on their host, or the URL they give", () => {
    const entry = { name: "pdf", source: "acme/tools" };
    expect(hostedRepoUrl({ ...entry, sourceType: "github" })).toBe("https://github.com/acme/tools.git");
    expect(hostedRepoUrl({ ...entry, source: "grp/sub/tools", sourceType: "gitlab" })).toBe(
      "https://gitlab.com/grp/sub/tools.git",
    );
    expect(
      hostedRepoUrl({ ...entry, sourceType: "gitlab", sourceUrl: "https://git.example.test/t.git" }),
    ).toBe("https://git.example.test/t.git");
    for (const source of ["acme", "acme/../x", "-u/x", "a/b/c"]) {
      expect(() => hostedRepoUrl({ ...entry, source, sourceType: "github" }), source).toThrow(
        /is not owner\/repo or a URL/,
      );
    }
  });
});

/**
 * A world whose home's git configuration sends https://github.com/ to local repositories
 * (`url.<base>.insteadOf`, as a mirror is set up): real clones, no network.
 */
async function githubWorld(): Promise<World & { repo: string }> {
  const w = await world();
  const hub = join(w.root, "hub");
  // Both hosts lead here: https://github.com/acme/tools.git and https://gitlab.com/acme/tools.git.
  await writeFile(
    join(w.home, ".gitconfig"),
    `[url "file://${hub}/"]\n\tinsteadOf = https://github.com/\n\tinsteadOf = https://gitlab.com/\n`,
  );
  const repo = join(hub, "acme", "tools.git");
  await put(join(repo, "skills", "pdf", "SKILL.md"), skillMd("pdf"));
  await put(join(repo, "README.md"), "# tools\n");
  commitAll(repo);
  git(repo, "tag", "v1");
  await put(join(repo, "skills", "csv", "SKILL.md"), skillMd("csv"));
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "csv");
  return { ...w, repo };
}

const lockOf = async (project: string) =>
  JSON.parse(await readFile(join(project, "skills-lock.json"), "utf8"));

describe("skill add owner/repo (GitHub, through the git port)", () => {
  it("installs a repository's skills and locks them as Vercel's skills does", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const report = await applyPlan(await planAdd("acme/tools", { ...projectScope(w), agents: ["codex"] }));
    expect(report.installed.map((s) => s.name).sort()).toEqual(["csv", "pdf"]);
    const pdf = (await lockOf(w.project)).skills.pdf;
    expect(pdf).toEqual({
      source: "acme/tools",
      sourceType: "github",
      skillPath: "skills/pdf/SKILL.md",
      computedHash: await computedHash(join(w.repo, "skills", "pdf")),
    });
  });

  it("takes a folder of the repository, one skill of it, or a tree URL at a ref", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const scope = { ...projectScope(w), agents: ["codex"] };
    const folder = await planAdd("acme/tools/skills/csv", scope);
    expect(folder.skills.map((s) => s.name)).toEqual(["csv"]);
    await applyPlan(folder);
    expect((await lockOf(w.project)).skills.csv).toMatchObject({ skillPath: "skills/csv/SKILL.md" });
    const one = await planAdd("acme/tools@pdf", scope);
    expect(one.skills.map((s) => s.name)).toEqual(["pdf"]);
    await applyPlan(one);
    const tree = await planAdd("https://github.com/acme/tools/tree/v1/skills", scope);
    // The tag holds pdf alone: csv came later.
    expect(tree.skills.map((s) => s.name)).toEqual(["pdf"]);
    await applyPlan(tree);
    expect((await lockOf(w.project)).skills.pdf).toMatchObject({
      source: "acme/tools",
      sourceType: "github",
      ref: "v1",
      skillPath: "skills/pdf/SKILL.md",
    });
  });

  it("updates from the repository's default branch, keeping the entry's github form", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const scope = { ...projectScope(w), agents: ["codex"] };
    await applyPlan(await planAdd("acme/tools@pdf", scope));
    await put(join(w.repo, "skills", "pdf", "SKILL.md"), skillMd("pdf", "Second version\n"));
    git(w.repo, "commit", "-qam", "pdf 2");
    const plan = await planUpdate(scope);
    expect(plan.skills.map((s) => s.name)).toEqual(["pdf"]);
    await applyPlan(plan);
    expect((await lockOf(w.project)).skills.pdf).toEqual({
      source: "acme/tools",
      sourceType: "github",
      skillPath: "skills/pdf/SKILL.md",
      computedHash: await computedHash(join(w.repo, "skills", "pdf")),
    });
    expect((await planUpdate(scope)).current).toEqual(["pdf"]);
  });

  it("names it in the global lock by its git URL, so the bytes' hash stays checkable", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const scope = { ...projectScope(w), scope: "global" as const, agents: ["codex"] };
    await applyPlan(await planAdd("acme/tools@pdf", scope));
    const url = "https://github.com/acme/tools.git";
    const global = JSON.parse(await readFile(join(w.home, ".agents", ".skill-lock.json"), "utf8"));
    expect(global.skills.pdf).toMatchObject({
      source: url,
      sourceType: "git",
      sourceUrl: url,
      skillPath: "skills/pdf/SKILL.md",
      skillFolderHash: await computedHash(join(w.repo, "skills", "pdf")),
    });
    const report = await checkInstalled(scope);
    expect(report.skills).toEqual([
      expect.objectContaining({
        name: "pdf",
        installed: { status: "ok" },
        upstream: expect.objectContaining({ status: "current" }),
      }),
    ]);
  });

  it("reads a folder of that name here as the folder, not as GitHub", { tags: ["slow"] }, async () => {
    const w = await githubWorld();
    await put(join(w.project, "acme", "tools", "SKILL.md"), skillMd("mine"));
    const plan = await planAdd("acme/tools", { ...projectScope(w), agents: ["codex"] });
    expect(plan.skills.map((s) => s.name)).toEqual(["mine"]);
    await applyPlan(plan);
    expect((await lockOf(w.project)).skills.mine).toMatchObject({
      source: "./acme/tools",
      sourceType: "local",
    });
  });

  it("says both readings when a name that is no folder here is no repository either", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    await expect(planAdd("acme/nothing", { ...projectScope(w), agents: ["codex"] })).rejects.toMatchObject({
      code: "REMOTE_ERROR",
      message: expect.stringMatching(
        /^Cannot add acme\/nothing: no folder .*acme\/nothing here, and as GitHub's acme\/nothing: Remote fetch failed/,
      ),
    });
  });

  it("refuses a folder that climbs out of the repository, or one it does not hold", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const scope = { ...projectScope(w), agents: ["codex"] };
    await expect(planAdd("acme/tools/../../../outside", scope)).rejects.toMatchObject({
      code: "UNSAFE_PATH",
    });
    await expect(planAdd("acme/tools/nothing/here", scope)).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("No folder nothing/here in acme/tools"),
    });
  });

  it("restores a lock Vercel's skills wrote for a GitHub source (frozen), keeping the lock as it was", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const hash = await computedHash(join(w.repo, "skills", "pdf"));
    const lock = `{\n  "version": 1,\n  "skills": {\n    "pdf": {\n      "source": "acme/tools",\n      "sourceType": "github",\n      "skillPath": "skills/pdf/SKILL.md",\n      "computedHash": "${hash}"\n    }\n  }\n}\n`;
    await writeFile(join(w.project, "skills-lock.json"), lock);
    const report = await restore({ ...projectScope(w), agents: ["codex"], frozen: true });
    expect(report.installed).toEqual([expect.objectContaining({ name: "pdf", computedHash: hash })]);
    expect(await readFile(join(w.project, "skills-lock.json"), "utf8")).toBe(lock);
  });
});

describe("skill add of a GitLab repository", () => {
  it("installs a tree at a ref, locked by its URL as Vercel's skills does, and restores that entry", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const scope = { ...projectScope(w), agents: ["codex"] };
    await applyPlan(await planAdd("https://gitlab.com/acme/tools/-/tree/v1/skills", scope));
    const url = "https://gitlab.com/acme/tools.git";
    const hash = await computedHash(join(w.repo, "skills", "pdf"));
    const text = await readFile(join(w.project, "skills-lock.json"), "utf8");
    expect(JSON.parse(text).skills).toEqual({
      pdf: {
        source: url,
        sourceUrl: url,
        ref: "v1",
        sourceType: "gitlab",
        skillPath: "skills/pdf/SKILL.md",
        computedHash: hash,
      },
    });
    await rm(join(w.project, ".agents"), { recursive: true });
    const report = await restore({ ...scope, frozen: true });
    expect(report.installed).toEqual([expect.objectContaining({ name: "pdf", computedHash: hash })]);
    expect(await readFile(join(w.project, "skills-lock.json"), "utf8")).toBe(text);
  });
});

describe("a credential in a git URL", () => {
  it("is used to clone, and kept out of the lock, the plan and an error's message", {
    tags: ["slow"],
  }, async () => {
    const w = await githubWorld();
    const secret = "ghp_SECRET123";
    // The home's git configuration sends the URL with the token to the mirror.
    await writeFile(
      join(w.home, ".gitconfig"),
      `[url "file://${join(w.root, "hub")}/"]\n\tinsteadOf = https://${secret}@github.com/\n`,
    );
    const scope = { ...projectScope(w), agents: ["codex"] };
    const plan = await planAdd(`https://${secret}@github.com/acme/tools.git#v1`, scope);
    expect(JSON.stringify(plan)).not.toContain(secret);
    await applyPlan(plan);
    const text = await readFile(join(w.project, "skills-lock.json"), "utf8");
    expect(text).not.toContain(secret);
    expect(JSON.parse(text).skills.pdf).toMatchObject({
      source: "https://github.com/acme/tools.git",
      sourceUrl: "https://github.com/acme/tools.git",
      sourceType: "git",
      ref: "v1",
    });
    const failed = await planAdd(`http://${secret}@127.0.0.1:9/x.git`, scope).catch(
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: "REMOTE_ERROR" });
    expect(String((failed as Error).message)).toContain("http://***@127.0.0.1:9/x.git");
    expect(JSON.stringify({ ...(failed as object), message: (failed as Error).message })).not.toContain(
      secret,
    );
  });
});
