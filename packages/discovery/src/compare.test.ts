import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentInfo, type PermissionPolicy, SkillService, validateSkillFile } from "@skill/core";
import {
  agentsWorld,
  DOCTOR_AGENTS,
  EXPECTED_CELLS,
  EXPECTED_LOADS,
  removeTempDirs,
  skillText,
  tempWorld,
  writeSkill,
} from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { compareAgents } from "./compare.js";
import type { DiscoveryPreset } from "./presets.js";
import { agentProfile } from "./sources.js";

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

  it("agentProfile gives each measured agent its load rules, the others the specification's", () => {
    const rulesOf = (preset: DiscoveryPreset) =>
      agentProfile({ cwd: "/p", home: "/h", env: {}, preset }).rules;
    expect(rulesOf("opencode")).toEqual({ requireDescription: false });
    expect(rulesOf("claude-code")).toEqual({
      identity: "folder",
      requireDescription: false,
      descriptionFallback: "body",
      requireFrontmatter: false,
      brokenYaml: "ignore",
    });
    expect(rulesOf("codex")).toEqual({
      nameFallback: "folder",
      rejectBom: true,
      rejectLongName: true,
      brokenYaml: "quote",
      codexPolicy: true,
    });
    expect(rulesOf("gemini")).toEqual({ requireDescription: "field", rejectBom: true, brokenYaml: "lines" });
    expect(rulesOf("copilot")).toEqual({
      nameFallback: "folder",
      requireDescription: false,
      rejectLongName: true,
      rejectLongDescription: true,
      rejectInvalidName: "loose",
      brokenYaml: "refuse",
    });
    expect(rulesOf("pi")).toEqual({ nameFallback: "folder", rejectBom: true, brokenYaml: "refuse" });
    expect(rulesOf("amp")).toEqual({ rejectInvalidName: true, rejectLongName: true, brokenYaml: "refuse" });
    for (const preset of ["default", "agents", "cursor", "goose"] as const) {
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
    // Codex 0.171 loads a description over 1,024 characters.
    expect(row("project/.agents/skills/verbose/SKILL.md")?.cells.codex).toEqual({
      loaded: true,
      name: "verbose",
    });
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
      agents: ["agents", "copilot"],
    });
    const row = (rel: string) => report.skills.find((s) => s.location === join(world.project, rel));
    expect(row(".agents/skills/verbose/SKILL.md")?.cells).toEqual({
      agents: { loaded: true, name: "verbose" },
      copilot: {
        loaded: false,
        reason: "too-long",
        // The load's own refusal, the one rule of rejectLongFields.
        detail: expect.stringContaining("Field 'description' is 1100 characters, over the limit of 1024"),
      },
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

describe("compareAgents reads every cell off each agent's load", () => {
  it("gives the path a file was reached by first the verdict of the path that counted (one file, two roots)", async () => {
    const { home, project } = await tempWorld();
    const kept = await writeSkill(join(home, ".agents", "skills", "pdf"));
    await writeSkill(join(home, ".agents", "skills", "nameless"), undefined, "---\ndescription: d\n---\n");
    // ~/.claude/skills is the same folder as ~/.agents/skills, as many set it up.
    await mkdir(join(home, ".claude"), { recursive: true });
    await symlink(join(home, ".agents", "skills"), join(home, ".claude", "skills"));
    const report = await compareAgents({ cwd: project, home, env: {}, agents: ["default"] });
    const cell = (path: string) => report.skills.find((s) => s.location === path)?.cells.default;
    expect(cell(kept)).toEqual({ loaded: true, name: "pdf" });
    expect(cell(join(home, ".claude", "skills", "pdf", "SKILL.md"))).toEqual({
      loaded: false,
      reason: "shadowed",
      detail: kept,
    });
    // A file that fails fails under both paths.
    expect(cell(join(home, ".claude", "skills", "nameless", "SKILL.md"))).toMatchObject({
      reason: "name-missing",
    });
    expect(cell(join(home, ".agents", "skills", "nameless", "SKILL.md"))).toMatchObject({
      reason: "name-missing",
    });
  });

  it("gives every agent compared together the cells it has compared alone, when agents share scans and rules", async () => {
    const { home, project } = await tempWorld();
    // The same name in the project's .claude and .agents roots: which one wins depends on the
    // order of each agent's roots (default: .agents later; cursor: .claude later).
    await writeSkill(join(project, ".claude", "skills", "pdf"), "pdf");
    await writeSkill(join(project, ".agents", "skills", "pdf"), "pdf");
    await writeSkill(join(project, ".agents", "skills", "nameless"), undefined, "---\ndescription: d\n---\n");
    const agents = ["default", "opencode", "goose", "cursor", "claude-code", "codex"] as const;
    const together = await compareAgents({ cwd: project, home, env: {}, agents: [...agents] });
    for (const agent of agents) {
      const alone = await compareAgents({ cwd: project, home, env: {}, agents: [agent] });
      const own = (report: typeof alone, rows: readonly string[]) =>
        rows.map((location) => report.skills.find((s) => s.location === location)?.cells[agent]);
      const rows = alone.skills.map((s) => s.location);
      // Rows come from every compared agent's scans; each row this agent has alone holds the same cell.
      expect(own(together, rows), agent).toEqual(own(alone, rows));
    }
    const winner = (agent: string) =>
      together.skills.find((s) => s.cells[agent]?.loaded === true && s.name === "pdf")?.location;
    expect(winner("default")).toBe(join(project, ".agents", "skills", "pdf", "SKILL.md"));
    expect(winner("cursor")).toBe(join(project, ".claude", "skills", "pdf", "SKILL.md"));
  });

  it("keeps a row for a skill that only the compared agents' own limits keep out", async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    const deep = await writeSkill(join(skills, "a", "b", "c", "d", "e", "f", "g"), "deep-one");
    const dotted = await writeSkill(join(skills, ".curated", "x"), "dotted-one");
    const report = await compareAgents({
      cwd: project,
      home,
      env: {},
      systemDir: join(home, "etc"),
      agents: ["codex", "claude-code"],
    });
    expect(report.skills.map((s) => [s.name, s.location, s.cells])).toEqual([
      [
        "deep-one",
        deep,
        {
          codex: { loaded: false, reason: "too-deep" },
          "claude-code": { loaded: false, reason: "not-scanned" },
        },
      ],
      [
        "dotted-one",
        dotted,
        {
          codex: { loaded: false, reason: "dot-folder" },
          "claude-code": { loaded: false, reason: "not-scanned" },
        },
      ],
    ]);
  });

  it("says not-scanned, and why, for the folders past Codex's folder budget", {
    tags: ["slow"],
    timeout: 60_000,
  }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    const count = 2010;
    await Promise.all(
      Array.from({ length: count }, (_, i) => writeSkill(join(skills, `s${String(i).padStart(4, "0")}`))),
    );
    const report = await compareAgents({
      cwd: project,
      home,
      env: {},
      systemDir: join(home, "etc"),
      agents: ["agents", "codex"],
    });
    expect(report.skills).toHaveLength(count);
    expect(report.skills.every((s) => s.cells.agents?.loaded === true)).toBe(true);
    const codex = report.skills.map((s) => s.cells.codex);
    const loaded = codex.filter((c) => c?.loaded === true).length;
    const cut = codex.filter((c) => c?.loaded === false && c.reason === "not-scanned");
    // 2,000 folders: the root and 1,999 skill folders.
    expect(loaded).toBe(1999);
    expect(cut).toHaveLength(count - 1999);
    for (const c of cut) expect(c).toMatchObject({ detail: expect.stringMatching(/^max-dirs: /) });
  });

  it("tells a SKILL.md holding only a path (a symlinked file checked out as text) from a broken one", async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    const stub = await writeSkill(join(skills, "linked"), undefined, "../../shared/linked/SKILL.md");
    const broken = await writeSkill(join(skills, "broken"), undefined, "no frontmatter here\n");
    const report = await compareAgents({ cwd: project, home, env: {}, agents: ["agents"] });
    const cell = (path: string) => report.skills.find((s) => s.location === path)?.cells.agents;
    expect(cell(stub)).toEqual({
      loaded: false,
      reason: "git-symlink-stub",
      detail: "../../shared/linked/SKILL.md",
    });
    expect(cell(broken)).toMatchObject({ loaded: false, reason: "parse-error" });
  });
});

describe("compareAgents and validate --target codex (Codex 0.171 loads long descriptions)", () => {
  /** `count` words of `word`, joined by `gap`. */
  const words = (word: string, count: number, gap: string) =>
    Array.from({ length: count }, () => word).join(gap);
  const length = (text: string) => [...text].length;
  const collapsed = (text: string) => length(text.trim().split(/\s+/).join(" "));

  it("agree on a description's length: both load it, validate warns past 1,024 counted as Codex counts (each run of whitespace is one space)", async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    const descriptions: Record<string, string> = {
      // 999 characters as Codex counts them, 1,331 as written: Codex loads it.
      spaced: `${words("ab", 333, "  ")}c`,
      // 999 as written, 667 counted: under the limit either way.
      short: `${words("a", 333, "  ")}bc`,
      // 1,024 counted, 1,706 as written: exactly the limit.
      "at-limit": `${words("ab", 341, "   ")}   c`,
      // 1,025 counted, 1,366 as written: over the limit.
      over: `${words("ab", 341, "  ")}  cd`,
    };
    expect(collapsed(descriptions.spaced as string)).toBe(999);
    expect(length(descriptions.spaced as string)).toBe(1331);
    expect(length(descriptions.short as string)).toBe(999);
    expect(collapsed(descriptions["at-limit"] as string)).toBe(1024);
    expect(length(descriptions["at-limit"] as string)).toBe(1706);
    expect(collapsed(descriptions.over as string)).toBe(1025);
    for (const [name, description] of Object.entries(descriptions)) {
      await writeSkill(join(skills, name), name, skillText(name, description));
    }
    const report = await compareAgents({
      cwd: project,
      home,
      env: {},
      systemDir: join(home, "etc"),
      agents: ["codex"],
    });
    const verdicts: Record<string, { doctor: string; validate: string }> = {};
    for (const name of Object.keys(descriptions)) {
      const path = join(skills, name, "SKILL.md");
      const cell = report.skills.find((s) => s.location === path)?.cells.codex;
      const findings = await validateSkillFile(path, { target: "codex" });
      const long = findings.find((d) => d.code === "description-too-long");
      verdicts[name] = {
        doctor: cell === undefined ? "missing" : cell.loaded ? "loads" : cell.reason,
        validate: long === undefined ? "loads" : long.severity === "error" ? "too-long" : "loads, warned",
      };
    }
    expect(verdicts).toEqual({
      spaced: { doctor: "loads", validate: "loads" },
      short: { doctor: "loads", validate: "loads" },
      "at-limit": { doctor: "loads", validate: "loads" },
      over: { doctor: "loads", validate: "loads, warned" },
    });
  });
});
