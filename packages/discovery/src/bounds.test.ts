import { mkdirSync } from "node:fs";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { memoryLogger, removeTempDirs, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { compareAgents } from "./compare.js";
import type { DiscoveryOptions } from "./discovery-options.js";
import { DEFAULT_MAX_DIRS, discoverySources } from "./sources.js";

afterEach(removeTempDirs);

async function load(options: DiscoveryOptions) {
  const logger = memoryLogger();
  const service = new SkillService({ sources: discoverySources({ env: {}, logger, ...options }), logger });
  const report = await service.discoverAndLoad();
  return { service, report };
}

/** `count` empty folders under `dir`, spread over subfolders of 1,000. */
function filler(dir: string, count: number): void {
  for (let i = 0; i < count; i++)
    mkdirSync(join(dir, `f${Math.floor(i / 1000)}`, `d${i}`), { recursive: true });
}

describe("a checkout cannot pick what discovery scans", () => {
  it("does not scan a project root that leads to the filesystem root, the home folder or above its own folder", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(home, "notes", "private"));
    await mkdir(join(project, ".agents"), { recursive: true });
    await mkdir(join(project, ".claude"), { recursive: true });
    await mkdir(join(project, "sub", ".agents"), { recursive: true });
    await symlink("/", join(project, ".agents", "skills"));
    await symlink(home, join(project, ".claude", "skills"));
    await symlink("..", join(project, "sub", ".agents", "skills"));
    await writeSkill(join(project, "sub", ".agents", "kept"));
    const { service, report } = await load({ cwd: join(project, "sub"), home });
    expect(service.all()).toEqual([]);
    const skipped = report.diagnostics.filter((d) => d.code === "link-to-ancestor");
    expect(skipped.map((d) => d.path).sort()).toEqual([
      join(project, ".agents", "skills"),
      join(project, ".claude", "skills"),
      join(project, "sub", ".agents", "skills"),
    ]);
    expect(skipped.map((d) => d.message).join("\n")).toContain("/, the filesystem root");
    expect(skipped.map((d) => d.message).join("\n")).toContain(`${home}, the home folder`);
    expect(skipped.map((d) => d.message).join("\n")).toContain(
      `${join(project, "sub")}, a folder holding the folder it is in`,
    );
  });

  it("scans a configured path wherever it leads (the user named it)", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(home, "notes", "private"));
    const { service } = await load({ cwd: project, home, paths: ["~"] });
    expect(service.all().map((s) => s.name)).toEqual(["private"]);
  });

  it("stops a layout root after DEFAULT_MAX_DIRS folders, Codex's after its own 2,000, and a configured path never", {
    tags: ["slow"],
    timeout: 120_000,
  }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    filler(skills, DEFAULT_MAX_DIRS + 10);
    await writeSkill(join(skills, "zz-last"));
    const truncated = (report: { diagnostics: readonly { code: string; message: string }[] }) =>
      report.diagnostics.filter((d) => d.code === "scan-truncated").map((d) => d.message);

    const agents = await load({ cwd: project, home, preset: "agents" });
    expect(truncated(agents.report)).toEqual([
      `Stopped scanning ${skills} after ${DEFAULT_MAX_DIRS} folders (maxDirs); skills in the rest are not found`,
    ]);
    const codex = await load({ cwd: project, home, preset: "codex" });
    expect(truncated(codex.report)).toEqual([
      `Stopped scanning ${skills} after 2000 folders (maxDirs); skills in the rest are not found`,
    ]);
    const configured = await load({ cwd: project, home, preset: "agents", env: {}, paths: [skills] });
    expect(configured.service.get("zz-last")?.source).toBe(`config:${skills}`);
    expect(truncated(configured.report)).toHaveLength(1); // the project root's, not the configured path's
  });
});

describe("compareAgents and the bounds", () => {
  it("lists the links not followed as deliberate differences from every agent that scans there", async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".agents", "skills", "ok"));
    await symlink("/", join(project, ".agents", "skills", "all"));
    const report = await compareAgents({
      cwd: project,
      home,
      env: {},
      agents: ["agents", "codex", "claude-code"],
    });
    expect(report.skills.map((s) => s.name)).toEqual(["ok"]);
    const link = join(project, ".agents", "skills", "all");
    expect(report.deliberate).toEqual([
      { agent: "agents", path: link, reason: "link-to-ancestor" },
      { agent: "codex", path: link, reason: "link-to-ancestor" },
    ]);
  });

  it("calls a folder bound deliberate only where it is the preset's own, not the agent's (Codex)", {
    tags: ["slow"],
    timeout: 120_000,
  }, async () => {
    const { home, project } = await tempWorld();
    filler(join(project, ".agents", "skills"), DEFAULT_MAX_DIRS + 10);
    const report = await compareAgents({ cwd: project, home, env: {}, agents: ["agents", "codex"] });
    const agents = new Set(report.deliberate.map((d) => d.agent));
    expect([...agents]).toEqual(["agents"]);
    expect(report.deliberate.every((d) => d.reason === "max-dirs")).toBe(true);
  });
});
