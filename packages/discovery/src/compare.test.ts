import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentInfo, type PermissionPolicy, SkillService } from "@skill/core";
import { afterEach, describe, expect, it } from "vitest";
import { agentsWorld, DOCTOR_AGENTS, EXPECTED_CELLS, EXPECTED_LOADS } from "./agents-fixture.js";
import { compareAgents } from "./compare.js";
import { removeTempDirs } from "./fixture.js";
import { agentProfile, type DiscoveryPreset } from "./sources.js";

afterEach(removeTempDirs);

describe("agent presets on a tree laid out for every agent", () => {
  it("each of the ten presets (and default) loads exactly the skills its agent loads", async () => {
    const world = await agentsWorld();
    for (const preset of DOCTOR_AGENTS) {
      const { sources, rules } = agentProfile({
        cwd: world.cwd,
        home: world.home,
        env: {},
        systemDir: world.systemDir,
        preset,
      });
      const service = new SkillService({ sources, ...rules });
      await service.discoverAndLoad();
      const loaded = Object.fromEntries(
        service.all().map((s) => [s.name, s.location.slice(world.base.length + 1)]),
      );
      expect(loaded, preset).toEqual(EXPECTED_LOADS[preset]);
    }
  });

  it("agentProfile gives Codex and Claude Code their load rules, the others the specification's", () => {
    const rulesOf = (preset: DiscoveryPreset) =>
      agentProfile({ cwd: "/p", home: "/h", env: {}, preset }).rules;
    expect(rulesOf("codex")).toEqual({ nameFallback: "folder", rejectLongFields: true });
    expect(rulesOf("claude-code")).toEqual({ nameFallback: "folder" });
    for (const preset of [
      "default",
      "agents",
      "opencode",
      "gemini",
      "copilot",
      "cursor",
      "pi",
      "goose",
      "amp",
    ] as const) {
      expect(rulesOf(preset), preset).toEqual({});
    }
  });
});

describe("compareAgents", () => {
  it("gives every (skill, agent) cell: loaded, or the first reason that applies", async () => {
    const world = await agentsWorld();
    const report = await compareAgents({
      cwd: world.cwd,
      home: world.home,
      env: {},
      systemDir: world.systemDir,
    });
    expect(report.agents).toEqual(DOCTOR_AGENTS);
    const got = Object.fromEntries(
      report.skills.map((s) => [
        s.location.slice(world.base.length + 1),
        {
          name: s.name,
          cells: DOCTOR_AGENTS.map((agent) => {
            const cell = s.cells[agent];
            if (!cell) return "missing";
            return cell.loaded ? (cell.name === s.name ? "ok" : `=${cell.name}`) : cell.reason;
          }),
        },
      ]),
    );
    expect(got).toEqual(EXPECTED_CELLS);
    // Sorted by name, then location.
    const keys = report.skills.map((s) => `${s.name}\0${s.location}`);
    expect(keys).toEqual([...keys].sort());
  });

  it("says which location shadows a skill, and what a dangling link or a stub points at", async () => {
    const world = await agentsWorld();
    const report = await compareAgents({
      cwd: world.cwd,
      home: world.home,
      env: {},
      systemDir: world.systemDir,
      agents: ["claude-code", "codex"],
    });
    expect(report.agents).toEqual(["claude-code", "codex"]);
    const row = (rel: string) => report.skills.find((s) => s.location === join(world.base, rel));
    expect(row("project/.claude/skills/h-claude/SKILL.md")?.cells["claude-code"]).toEqual({
      loaded: false,
      reason: "shadowed",
      detail: join(world.home, ".claude/skills/h-claude/SKILL.md"),
    });
    expect(row("project/.agents/skills/gone")?.cells.codex).toEqual({
      loaded: false,
      reason: "dangling-symlink",
      detail: "-> ../../missing-skill",
    });
    expect(row("project/.claude/skills/stubbed")?.cells["claude-code"]).toEqual({
      loaded: false,
      reason: "git-symlink-stub",
      detail: "../../shared/stubbed",
    });
    expect(row("project/.agents/skills/verbose/SKILL.md")?.cells.codex).toMatchObject({ reason: "too-long" });
  });

  it("does not take a dangling link inside a skill folder for a missing skill", async () => {
    const world = await agentsWorld();
    await symlink("../missing.py", join(world.project, ".agents/skills/verbose/tool.py"));
    const report = await compareAgents({
      cwd: world.cwd,
      home: world.home,
      env: {},
      systemDir: world.systemDir,
      agents: ["agents"],
    });
    expect(
      report.skills
        .filter((s) => s.cells.agents?.loaded === false && s.cells.agents.reason === "dangling-symlink")
        .map((s) => s.location),
    ).toEqual([join(world.project, ".agents/skills/gone")]);
  });

  it("judges a skill with a long body by its frontmatter, and one whose frontmatter outgrows the head in full", async () => {
    const world = await agentsWorld();
    const body = `${"Long body line.\n".repeat(4000)}`;
    await writeFile(
      join(world.project, ".agents/skills/verbose/SKILL.md"),
      `---\nname: verbose\ndescription: ${"y".repeat(1100)}\n---\n${body}`,
    );
    await writeFile(
      join(world.project, ".agents/skills/p-agents/SKILL.md"),
      `---\nname: p-agents-long\ndescription: d\nnotes: "${"z".repeat(40_000)}"\n---\nBody.\n`,
    );
    const report = await compareAgents({
      cwd: world.cwd,
      home: world.home,
      env: {},
      systemDir: world.systemDir,
      agents: ["agents", "codex"],
    });
    const row = (rel: string) => report.skills.find((s) => s.location === join(world.project, rel));
    expect(row(".agents/skills/verbose/SKILL.md")?.cells).toEqual({
      agents: { loaded: true, name: "verbose" },
      codex: { loaded: false, reason: "too-long", detail: "description is 1100 characters (limit 1024)" },
    });
    expect(row(".agents/skills/p-agents/SKILL.md")?.cells.agents).toEqual({
      loaded: true,
      name: "p-agents-long",
    });
  });

  it("reports a skill a permission rule denies to the agent as denied", async () => {
    const world = await agentsWorld();
    const permission: PermissionPolicy = {
      evaluate: (_agent: AgentInfo, _permission: string, name: string) =>
        name === "p-claude" ? "deny" : "allow",
    };
    const report = await compareAgents({
      cwd: world.cwd,
      home: world.home,
      env: {},
      systemDir: world.systemDir,
      agents: ["claude-code"],
      permission,
      agent: { name: "build" },
    });
    const cell = report.skills.find((s) => s.name === "p-claude")?.cells["claude-code"];
    expect(cell).toEqual({ loaded: false, reason: "denied", detail: "agent build" });
  });
});
