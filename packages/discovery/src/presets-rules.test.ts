// Each preset's load and scan rules on the edge cases of scripts/agents-real/run.mjs, with what
// the real agent loaded there (its raw listing under scripts/agents-real/raw/main/<agent>/):
// the exact set of (key, displayName, path) a preset loads from one root.
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { removeTempDirs, tempWorld, writeTree } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { compareAgents } from "./compare.js";
import type { DiscoveryOptions } from "./discovery-options.js";
import type { DiscoveryPreset } from "./presets.js";
import { agentProfile } from "./sources.js";

afterEach(removeTempDirs);

const fm = (fields: string, body = "Body line.") => `---\n${fields}\n---\n${body}\n`;

/** The edge cases, as files below one root (folder → SKILL.md text). */
function edgeCases(): Record<string, string | Uint8Array> {
  return {
    "plain/SKILL.md": fm("name: plain\ndescription: A plain skill."),
    "no-description/SKILL.md": fm("name: no-description", "First body line."),
    "empty-description/SKILL.md": fm('name: empty-description\ndescription: ""'),
    "long-description/SKILL.md": fm(`name: long-description\ndescription: ${"long ".repeat(227).trim()}`),
    "no-name/SKILL.md": fm("description: No name field."),
    "Bad_Name/SKILL.md": fm("name: Bad_Name!\ndescription: An invalid name."),
    "broken-yaml/SKILL.md": fm("name: broken-yaml\ndescription: tag broken: yaml: here\n  - [unclosed"),
    "no-frontmatter/SKILL.md": "No frontmatter at all.\n",
    "bom/SKILL.md": Buffer.from(`\uFEFF${fm("name: bom\ndescription: Starts with a BOM.")}`),
    "node_modules/pkg/in-node-modules/SKILL.md": fm(
      "name: in-node-modules\ndescription: Inside node_modules.",
    ),
    "parent/SKILL.md": fm("name: parent\ndescription: Holds a child skill."),
    "parent/child/SKILL.md": fm("name: child\ndescription: Inside a skill folder."),
    "folder-x/SKILL.md": fm("name: named-y\ndescription: Name differs from folder."),
  };
}

type Row = readonly [key: string, displayName: string | undefined, path: string];

/** What `preset` loads from `cwd`, as (key, displayName, path relative to `base`), sorted by path. */
async function loads(base: string, options: DiscoveryOptions & { preset: DiscoveryPreset }): Promise<Row[]> {
  const { sources, rules } = agentProfile({ env: {}, systemDir: join(base, "no-etc"), ...options });
  const service = new SkillService({ sources, ...rules });
  await service.discoverAndLoad();
  return service
    .all()
    .filter((s) => s.location.startsWith(`${base}/`))
    .map((s): Row => [s.name, s.displayName, s.location.slice(base.length + 1)])
    .sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
}

/** Rows for skills under `root` (relative to base), given as [key, folder path] or [key, path, displayName]. */
function rows(root: string, list: readonly (readonly [string, string, string?])[]): Row[] {
  return list
    .map(([key, folder, shown]): Row => [key, shown, `${root}/${folder}/SKILL.md`])
    .sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
}

async function world(rootName: ".agents" | ".claude") {
  const { base, home, project } = await tempWorld();
  await writeTree(join(project, rootName, "skills"), edgeCases());
  return { base, home, project, root: `project/${rootName}/skills` };
}

describe("each preset on the edge cases, as the real agent loaded them", () => {
  it("opencode 1.18.33: no description and an empty one load, node_modules is entered, broken YAML is repaired, a BOM is dropped; no name or no frontmatter does not load", async () => {
    const { base, home, project, root } = await world(".agents");
    expect(await loads(base, { cwd: project, home, preset: "opencode" })).toEqual(
      rows(root, [
        ["Bad_Name!", "Bad_Name"],
        ["bom", "bom"],
        ["broken-yaml", "broken-yaml"],
        ["empty-description", "empty-description"],
        ["named-y", "folder-x"],
        ["long-description", "long-description"],
        ["no-description", "no-description"],
        ["in-node-modules", "node_modules/pkg/in-node-modules"],
        ["parent", "parent"],
        ["child", "parent/child"],
        ["plain", "plain"],
      ]),
    );
  });

  it("claude-code 2.1.332: keyed by folder with the name beside it; no description, no frontmatter, broken YAML, a BOM and an invalid name load; depth 1 only, a root-level SKILL.md does not", async () => {
    const { base, home, project, root } = await world(".claude");
    await writeTree(join(project, ".claude", "skills"), {
      "SKILL.md": fm("name: root-level\ndescription: Directly in the root."),
      "dup-a/SKILL.md": fm("name: dup-skill\ndescription: One."),
      "dup-b/SKILL.md": fm("name: dup-skill\ndescription: Two."),
    });
    expect(await loads(base, { cwd: project, home, preset: "claude-code" })).toEqual(
      rows(root, [
        ["Bad_Name", "Bad_Name", "Bad_Name!"],
        ["bom", "bom"],
        ["broken-yaml", "broken-yaml"],
        ["dup-a", "dup-a", "dup-skill"],
        ["dup-b", "dup-b", "dup-skill"],
        ["empty-description", "empty-description"],
        ["folder-x", "folder-x", "named-y"],
        ["long-description", "long-description"],
        ["no-description", "no-description"],
        ["no-frontmatter", "no-frontmatter"],
        ["no-name", "no-name"],
        ["parent", "parent"],
        ["plain", "plain"],
      ]),
    );
    const { sources, rules } = agentProfile({ cwd: project, home, env: {}, preset: "claude-code" });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    // Claude Code lists these with the body's first line as the description.
    expect(service.get("no-description")?.description).toBe("First body line.");
    expect(service.get("no-frontmatter")?.description).toBe("No frontmatter at all.");
    expect(service.get("broken-yaml")?.description).toBe("Body line.");
  });

  it("codex 0.171.0: long descriptions, no name and node_modules load; a BOM, broken YAML and a missing or empty description do not", async () => {
    const { base, home, project, root } = await world(".agents");
    expect(await loads(base, { cwd: project, home, preset: "codex" })).toEqual(
      rows(root, [
        ["Bad_Name!", "Bad_Name"],
        ["named-y", "folder-x"],
        ["long-description", "long-description"],
        ["no-name", "no-name"],
        ["in-node-modules", "node_modules/pkg/in-node-modules"],
        ["parent", "parent"],
        ["child", "parent/child"],
        ["plain", "plain"],
      ]),
    );
  });

  it("gemini 0.61.0: an empty description loads, a missing one does not; a BOM does not; depth 1; no workspace skills in an untrusted folder", async () => {
    const { base, home, project, root } = await world(".agents");
    const trusted = rows(root, [
      ["Bad_Name!", "Bad_Name"],
      ["broken-yaml", "broken-yaml"],
      ["empty-description", "empty-description"],
      ["named-y", "folder-x"],
      ["long-description", "long-description"],
      ["parent", "parent"],
      ["plain", "plain"],
    ]);
    expect(await loads(base, { cwd: project, home, preset: "gemini" })).toEqual(trusted);
    expect(await loads(base, { cwd: project, home, preset: "gemini", trusted: true })).toEqual(trusted);
    await writeTree(join(home, ".gemini", "skills"), {
      "user/SKILL.md": fm("name: user\ndescription: Mine."),
    });
    expect(await loads(base, { cwd: project, home, preset: "gemini", trusted: false })).toEqual([
      ["user", undefined, "home/.gemini/skills/user/SKILL.md"],
    ]);
  });

  it("copilot 1.0.102: a skill folder is a leaf, node_modules is entered, no name and no description load; a long description, an invalid name and broken YAML do not", async () => {
    const { base, home, project, root } = await world(".agents");
    expect(await loads(base, { cwd: project, home, preset: "copilot" })).toEqual(
      rows(root, [
        ["bom", "bom"],
        ["empty-description", "empty-description"],
        ["named-y", "folder-x"],
        ["no-description", "no-description"],
        ["no-name", "no-name"],
        ["in-node-modules", "node_modules/pkg/in-node-modules"],
        ["parent", "parent"],
        ["plain", "plain"],
      ]),
    );
  });

  it("pi 0.73.1: a skill folder is a leaf, no name loads; a BOM, broken YAML and a missing or empty description do not; node_modules is not entered", async () => {
    const { base, home, project, root } = await world(".agents");
    expect(await loads(base, { cwd: project, home, preset: "pi" })).toEqual(
      rows(root, [
        ["Bad_Name!", "Bad_Name"],
        ["named-y", "folder-x"],
        ["long-description", "long-description"],
        ["no-name", "no-name"],
        ["parent", "parent"],
        ["plain", "plain"],
      ]),
    );
  });

  it("amp 0.0.1790142911: an invalid name, broken YAML and no name do not load; a BOM does", async () => {
    const { base, home, project, root } = await world(".agents");
    expect(await loads(base, { cwd: project, home, preset: "amp" })).toEqual(
      rows(root, [
        ["bom", "bom"],
        ["named-y", "folder-x"],
        ["long-description", "long-description"],
        ["parent", "parent"],
        ["child", "parent/child"],
        ["plain", "plain"],
      ]),
    );
  });

  it("copilot and pi: a SKILL.md directly in a root makes the whole root one skill; symlinked folders inside are not followed", async () => {
    const { base, home, project, root } = await world(".agents");
    await writeTree(join(project, ".agents", "skills"), {
      "SKILL.md": fm("name: root-level\ndescription: Directly in the root."),
    });
    await writeTree(join(base, "elsewhere"), { "linked/SKILL.md": fm("name: linked\ndescription: Linked.") });
    await symlink(join(base, "elsewhere", "linked"), join(project, ".agents", "skills", "linked"));
    for (const preset of ["copilot", "pi"] as const) {
      expect(await loads(base, { cwd: project, home, preset }), preset).toEqual([
        ["root-level", undefined, `${root}/SKILL.md`],
      ]);
    }
    // Without leafSkills the root-level file is one skill among the others.
    expect((await loads(base, { cwd: project, home, preset: "amp" })).map((r) => r[0])).toContain(
      "root-level",
    );
  });
});

describe("compareAgents says what a registry cannot hold", () => {
  it("Codex lists every duplicate (duplicate-listed); opencode's winner changes between runs (nondeterministic); Claude Code's key and displayName", async () => {
    const { base, home, project } = await tempWorld();
    await writeTree(base, {
      "home/.agents/skills/dup/SKILL.md": fm("name: dup-skill\ndescription: In the home."),
      "project/.agents/skills/dup/SKILL.md": fm("name: dup-skill\ndescription: In the project."),
      "project/.claude/skills/folder-x/SKILL.md": fm("name: named-y\ndescription: Named."),
    });
    const report = await compareAgents({
      cwd: project,
      home,
      env: {},
      systemDir: join(base, "no-etc"),
      agents: ["codex", "opencode", "claude-code", "agents"],
    });
    const cells = (rel: string) => report.skills.find((s) => s.location === join(base, rel))?.cells;
    expect(cells("home/.agents/skills/dup/SKILL.md")).toEqual({
      codex: { loaded: false, reason: "shadowed", detail: "duplicate-listed" },
      opencode: { loaded: false, reason: "shadowed", detail: "nondeterministic" },
      "claude-code": { loaded: false, reason: "not-scanned" },
      agents: { loaded: false, reason: "shadowed", detail: join(project, ".agents/skills/dup/SKILL.md") },
    });
    expect(cells("project/.agents/skills/dup/SKILL.md")).toEqual({
      codex: { loaded: true, name: "dup-skill" },
      opencode: { loaded: true, name: "dup-skill", detail: "nondeterministic" },
      "claude-code": { loaded: false, reason: "not-scanned" },
      agents: { loaded: true, name: "dup-skill" },
    });
    expect(cells("project/.claude/skills/folder-x/SKILL.md")?.["claude-code"]).toEqual({
      loaded: true,
      name: "folder-x",
      displayName: "named-y",
    });
  });

  it("names why a preset passes over a child skill (leaf) and a root-level SKILL.md (too-shallow)", async () => {
    const { base, home, project } = await tempWorld();
    await writeTree(base, {
      "project/.agents/skills/parent/SKILL.md": fm("name: parent\ndescription: Parent."),
      "project/.agents/skills/parent/child/SKILL.md": fm("name: child\ndescription: Child."),
      "home/.claude/skills/SKILL.md": fm("name: root-level\ndescription: Root."),
    });
    const report = await compareAgents({ cwd: project, home, env: {}, agents: ["copilot", "claude-code"] });
    const cells = (rel: string) => report.skills.find((s) => s.location === join(base, rel))?.cells;
    expect(cells("project/.agents/skills/parent/child/SKILL.md")?.copilot).toEqual({
      loaded: false,
      reason: "not-scanned",
      detail: `leaf: ${join(project, ".agents/skills/parent/child")}`,
    });
    expect(cells("home/.claude/skills/SKILL.md")?.["claude-code"]).toEqual({
      loaded: false,
      reason: "not-scanned",
      detail: `too-shallow: ${join(home, ".claude/skills/SKILL.md")}`,
    });
  });
});
