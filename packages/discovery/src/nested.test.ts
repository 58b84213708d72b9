import { join } from "node:path";
import { SkillService } from "@skill/core";
import { nestedInstall, removeTempDirs, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { compareAgents } from "./compare.js";
import { classifyShadowed } from "./nested.js";
import type { DiscoveryPreset } from "./presets.js";
import { agentProfile } from "./sources.js";

afterEach(removeTempDirs);

async function load(cwd: string, home: string, preset: DiscoveryPreset = "default") {
  const { sources, rules } = agentProfile({ cwd, home, env: {}, preset });
  const service = new SkillService({ sources, ...rules });
  const report = await service.discoverAndLoad();
  return classifyShadowed(report.shadowed, service.all());
}

describe("classifyShadowed", () => {
  it("marks a skill found inside its parent's folder and in its own as a nested copy, whichever copy wins", async () => {
    const { project, home, inside, own } = await nestedInstall();
    // Last match wins: `parent/child` sorts after `child`, so the copy inside the parent is kept.
    expect(await load(project, home)).toEqual([
      { name: "child", kept: inside, dropped: own, nested: { parent: "parent", inside } },
    ]);
    // Amp keeps the first match: the copy inside the parent is the one dropped.
    expect(await load(project, home, "amp")).toEqual([
      { name: "child", kept: own, dropped: inside, nested: { parent: "parent", inside } },
    ]);
  });

  it("marks every copy of a skill nested two levels deep", async () => {
    const { project, home, skills } = await nestedInstall();
    await writeSkill(join(skills, "outer"));
    await writeSkill(join(skills, "outer", "parent"));
    const deepest = await writeSkill(join(skills, "outer", "parent", "child"));
    const pairs = await load(project, home);
    // `outer/parent/child` against `child` beside `outer`, then against `parent/child`: its parent is `parent`.
    expect(pairs.filter((p) => p.name === "child").map((p) => p.nested)).toEqual([
      { parent: "parent", inside: deepest },
      { parent: "parent", inside: deepest },
    ]);
    expect(pairs.find((p) => p.name === "parent")?.nested).toEqual({
      parent: "outer",
      inside: join(skills, "outer", "parent", "SKILL.md"),
    });
  });

  it("leaves a real shadow between unrelated folders a shadow", async () => {
    const { project, home } = await tempWorld();
    // Two roots of the project, and a folder inside a plain folder (no SKILL.md) beside its namesake.
    const claude = await writeSkill(join(project, ".claude", "skills", "review"));
    const agents = await writeSkill(join(project, ".agents", "skills", "review"));
    const grouped = await writeSkill(join(project, ".agents", "skills", "group", "lint"));
    const plain = await writeSkill(join(project, ".agents", "skills", "lint"));
    expect(await load(project, home)).toEqual([
      { name: "lint", kept: plain, dropped: grouped },
      { name: "review", kept: agents, dropped: claude },
    ]);
  });

  it("leaves a shadow between a nested copy and a namesake in another root, or in another parent, a shadow", async () => {
    const { project, home } = await tempWorld();
    const global = await writeSkill(join(home, ".agents", "skills", "child"));
    await writeSkill(join(project, ".agents", "skills", "parent"));
    const inside = await writeSkill(join(project, ".agents", "skills", "parent", "child"));
    expect(await load(project, home)).toEqual([{ name: "child", kept: inside, dropped: global }]);
    // Two parents that each hold a nested skill of one name: two skills, not one installed twice.
    await writeSkill(join(project, ".agents", "skills", "other"));
    const otherChild = await writeSkill(join(project, ".agents", "skills", "other", "child"));
    expect(await load(project, home)).toEqual([
      { name: "child", kept: otherChild, dropped: global },
      { name: "child", kept: inside, dropped: otherChild },
    ]);
  });

  it("gives back nothing for no shadows, and needs no files", () => {
    expect(classifyShadowed([], [])).toEqual([]);
    const pair = { name: "child", kept: "/r/child/SKILL.md", dropped: "/r/parent/child/SKILL.md" };
    expect(classifyShadowed([pair], [{ name: "parent", location: "/r/parent/SKILL.md" }])).toEqual([
      { ...pair, nested: { parent: "parent", inside: "/r/parent/child/SKILL.md" } },
    ]);
    // Without the parent among the skills, the pair is a plain shadow.
    expect(classifyShadowed([pair], [])).toEqual([pair]);
  });
});

describe("compareAgents on a nested install", () => {
  it("says of a shadowed cell that it is a nested copy, and which copy lies inside the parent", async () => {
    const { project, home, inside, own } = await nestedInstall();
    const report = await compareAgents({ cwd: project, home, env: {}, agents: ["default", "amp", "codex"] });
    const row = (location: string) => report.skills.find((s) => s.location === location)?.cells;
    const nested = { parent: "parent", inside };
    expect(row(own)).toEqual({
      default: { loaded: false, reason: "shadowed", detail: inside, nested },
      amp: { loaded: true, name: "child" },
      codex: { loaded: false, reason: "shadowed", detail: "duplicate-listed", nested },
    });
    expect(row(inside)).toEqual({
      default: { loaded: true, name: "child" },
      amp: { loaded: false, reason: "shadowed", detail: own, nested },
      codex: { loaded: true, name: "child" },
    });
  });

  it("gives a real shadow no nested mark", async () => {
    const { project, home } = await tempWorld();
    const claude = await writeSkill(join(project, ".claude", "skills", "review"));
    const agents = await writeSkill(join(project, ".agents", "skills", "review"));
    const report = await compareAgents({ cwd: project, home, env: {}, agents: ["default"] });
    expect(report.skills.find((s) => s.location === claude)?.cells).toEqual({
      default: { loaded: false, reason: "shadowed", detail: agents },
    });
  });
});
