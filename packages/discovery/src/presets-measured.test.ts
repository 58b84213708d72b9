// Each preset rule here was measured by running the real agent offline on a tree of edge
// cases (scripts/agents-real/run.mjs); the trees below are small copies of those cases.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { removeTempDirs, tempDir, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import type { DiscoveryOptions } from "./discovery-options.js";
import { agentProfile } from "./sources.js";

afterEach(removeTempDirs);

/** What the preset loads, as `name → path relative to base`, for files under `base` only. */
async function loaded(base: string, options: DiscoveryOptions): Promise<Record<string, string>> {
  const { sources, rules } = agentProfile({ env: {}, systemDir: join(base, "no-etc"), ...options });
  const service = new SkillService({ sources, ...rules });
  await service.discoverAndLoad();
  const out: Record<string, string> = {};
  for (const skill of service.all()) {
    if (skill.location.startsWith(`${base}/`)) out[skill.name] = skill.location.slice(base.length + 1);
  }
  return out;
}

describe("presets as the real agents load them", () => {
  it("gemini (0.61.0) reads .gemini/skills and .agents/skills of the cwd only, not of the folders above", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await writeSkill(join(project, ".gemini", "skills", "top-gemini"));
    await writeSkill(join(project, ".agents", "skills", "top-agents"));
    await writeSkill(join(cwd, ".gemini", "skills", "here-gemini"));
    await writeSkill(join(cwd, ".agents", "skills", "here-agents"));
    await writeSkill(join(home, ".agents", "skills", "home-agents"));
    expect(await loaded(base, { cwd, home, preset: "gemini" })).toEqual({
      "here-gemini": "project/sub/.gemini/skills/here-gemini/SKILL.md",
      "here-agents": "project/sub/.agents/skills/here-agents/SKILL.md",
      "home-agents": "home/.agents/skills/home-agents/SKILL.md",
    });
  });

  it("codex (0.171.0) reads .codex/skills at every level from the git root down to the cwd", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub", "deep");
    await writeSkill(join(project, ".codex", "skills", "top-codex"));
    await writeSkill(join(project, "sub", ".codex", "skills", "sub-codex"));
    await writeSkill(join(cwd, ".codex", "skills", "deep-codex"));
    await writeSkill(join(base, ".codex", "skills", "above-codex"));
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual({
      "top-codex": "project/.codex/skills/top-codex/SKILL.md",
      "sub-codex": "project/sub/.codex/skills/sub-codex/SKILL.md",
      "deep-codex": "project/sub/deep/.codex/skills/deep-codex/SKILL.md",
    });
  });

  it("copilot (1.0.102) skips ~/.claude/skills and dot-folders, and keeps the first match: .github at the git root before .agents at the cwd, project before personal, ~/.copilot before ~/.agents", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await writeSkill(join(home, ".claude", "skills", "home-claude"));
    await writeSkill(join(home, ".copilot", "skills", "dup"), "dup-skill");
    await writeSkill(join(home, ".copilot", "skills", "personal"), "personal");
    await writeSkill(join(home, ".agents", "skills", "personal"), "personal");
    await writeSkill(join(project, ".github", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".claude", "skills", "dup"), "dup-skill");
    await writeSkill(join(project, ".claude", "skills", ".hidden", "dotted"));
    await writeSkill(join(project, ".agents", "skills", ".dotted-folder"), "dotted-folder");
    await writeSkill(join(project, ".agents", "skills", "a", "b", "c", "d", "e", "f", "depth7"));
    expect(await loaded(base, { cwd, home, preset: "copilot" })).toEqual({
      "dup-skill": "project/.github/skills/dup/SKILL.md",
      personal: "home/.copilot/skills/personal/SKILL.md",
      depth7: "project/.agents/skills/a/b/c/d/e/f/depth7/SKILL.md",
    });
  });

  it("pi (0.73.1) reads .pi/skills of the cwd only and keeps the first match: .pi, then .agents from the cwd upwards, then ~/.pi/agent, then ~/.agents", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await writeSkill(join(project, ".pi", "skills", "top-pi"));
    await writeSkill(join(cwd, ".pi", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".agents", "skills", "near"), "near");
    await writeSkill(join(project, ".agents", "skills", "near"), "near");
    await writeSkill(join(project, ".agents", "skills", "over-home"), "over-home");
    await writeSkill(join(home, ".pi", "agent", "skills", "over-home"), "over-home");
    await writeSkill(join(home, ".pi", "agent", "skills", "user"), "user");
    await writeSkill(join(home, ".agents", "skills", "user"), "user");
    await writeSkill(join(home, ".agents", "skills", ".hidden", "dotted"));
    expect(await loaded(base, { cwd, home, preset: "pi" })).toEqual({
      "dup-skill": "project/sub/.pi/skills/dup/SKILL.md",
      near: "project/sub/.agents/skills/near/SKILL.md",
      "over-home": "project/.agents/skills/over-home/SKILL.md",
      user: "home/.pi/agent/skills/user/SKILL.md",
    });
  });

  it("amp (0.0.1790142911) reads ~/.agents/skills, walks past the git root, stops at depth 5, and keeps the first match: ~/.config/agents before ~/.agents, ~/.config/amp and the project", async () => {
    const { base, home, project } = await tempWorld();
    const cwd = join(project, "sub");
    await mkdir(cwd, { recursive: true });
    await writeSkill(join(base, ".agents", "skills", "above-agents"));
    await writeSkill(join(base, ".claude", "skills", "above-claude"));
    await writeSkill(join(home, ".agents", "skills", "home-agents"));
    await writeSkill(join(home, ".config", "agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(home, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(home, ".config", "amp", "skills", "dup"), "dup-skill");
    await writeSkill(join(project, ".agents", "skills", "dup"), "dup-skill");
    await writeSkill(join(cwd, ".claude", "skills", "dup"), "dup-skill");
    await writeSkill(join(project, ".agents", "skills", "a", "b", "c", "d", "depth5"));
    await writeSkill(join(project, ".agents", "skills", "a", "b", "c", "d", "e", "depth6"));
    await writeSkill(join(project, ".agents", "skills", ".hidden", "dotted"));
    expect(await loaded(base, { cwd, home, preset: "amp" })).toEqual({
      "above-agents": ".agents/skills/above-agents/SKILL.md",
      "above-claude": ".claude/skills/above-claude/SKILL.md",
      "home-agents": "home/.agents/skills/home-agents/SKILL.md",
      "dup-skill": "home/.config/agents/skills/dup/SKILL.md",
      depth5: "project/.agents/skills/a/b/c/d/depth5/SKILL.md",
      dotted: "project/.agents/skills/.hidden/dotted/SKILL.md",
    });
  });

  it("outside a git repository, opencode (1.18.33), Claude Code (2.1.332), Copilot (1.0.102) and pi (0.73.1) read the folders above the cwd; Codex (0.171.0) does not", async () => {
    const base = await tempDir();
    const home = join(base, "home");
    const cwd = join(base, "plain");
    await mkdir(cwd, { recursive: true });
    await writeSkill(join(base, ".agents", "skills", "above-agents"));
    await writeSkill(join(base, ".claude", "skills", "above-claude"));
    await writeSkill(join(cwd, ".agents", "skills", "here-agents"));
    const above = { "above-agents": ".agents/skills/above-agents/SKILL.md" };
    const aboveClaude = { "above-claude": ".claude/skills/above-claude/SKILL.md" };
    const here = { "here-agents": "plain/.agents/skills/here-agents/SKILL.md" };
    expect(await loaded(base, { cwd, home, preset: "opencode" })).toEqual({
      ...above,
      ...aboveClaude,
      ...here,
    });
    expect(await loaded(base, { cwd, home, preset: "claude-code" })).toEqual(aboveClaude);
    expect(await loaded(base, { cwd, home, preset: "copilot" })).toEqual({
      ...above,
      ...aboveClaude,
      ...here,
    });
    expect(await loaded(base, { cwd, home, preset: "pi" })).toEqual({ ...above, ...here });
    expect(await loaded(base, { cwd, home, preset: "codex" })).toEqual(here);
    // An explicit stopAt still bounds the walk.
    expect(await loaded(base, { cwd, home, preset: "copilot", stopAt: cwd })).toEqual(here);
  });
});
