// Test helper: one home and one project laid out for every agent, and what each agent sees
// there, written out by hand from the preset table (never computed by the code under test).
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { skillText, tempWorld, writeSkill } from "./fixture.js";

export interface AgentsWorld {
  readonly base: string;
  readonly home: string;
  readonly project: string;
  /** `project/app`: the folder the agents run in (two project levels). */
  readonly cwd: string;
  /** Where admin roots live (`<systemDir>/codex/skills`), empty. */
  readonly systemDir: string;
}

/** Builds the tree; returns its folders. Every path below is relative to `base`. */
export async function agentsWorld(): Promise<AgentsWorld> {
  const { base, home, project } = await tempWorld();
  const cwd = join(project, "app");
  const systemDir = join(base, "etc");
  await mkdir(cwd, { recursive: true });
  await mkdir(systemDir, { recursive: true });
  const at = (...parts: string[]) => join(base, ...parts);

  for (const [dir, name] of [
    ["home/.claude/skills/h-claude", "h-claude"],
    ["home/.agents/skills/h-agents", "h-agents"],
    ["home/.config/agents/skills/h-shared", "h-shared"],
    ["home/.codex/skills/h-codex", "h-codex"],
    ["home/.gemini/skills/h-gemini", "h-gemini"],
    ["home/.copilot/skills/h-copilot", "h-copilot"],
    ["home/.cursor/skills/h-cursor", "h-cursor"],
    ["home/.pi/agent/skills/h-pi", "h-pi"],
    ["home/.config/goose/skills/h-goose", "h-goose"],
    ["home/.config/amp/skills/h-amp", "h-amp"],
    ["home/.config/opencode/skills/h-opencode", "h-opencode"],
    ["project/.agents/skills/p-agents", "p-agents"],
    ["project/app/.agents/skills/p-agents", "p-agents"],
    ["project/.agents/skills/deep/a/b/c/d/e/f", "very-deep"],
    ["project/.agents/skills/.curated/dotted", "dotted"],
    ["project/.claude/skills/p-claude", "p-claude"],
    ["project/.claude/skills/h-claude", "h-claude"],
    ["project/.claude/skills/group/grouped", "grouped"],
    ["project/.codex/skills/p-codex", "p-codex"],
    ["project/app/.codex/skills/app-codex", "app-codex"],
    ["project/.gemini/skills/p-gemini", "p-gemini"],
  ] as const) {
    await writeSkill(at(dir), name);
  }
  await writeSkill(at("project/.agents/skills/verbose"), "verbose", skillText("verbose", "x".repeat(1100)));
  const nameless = "---\ndescription: A skill without a name.\n---\n\nBody.\n";
  await writeSkill(at("project/.claude/skills/unnamed"), undefined, nameless);
  await writeSkill(at("project/app/.agents/skills/anon"), undefined, nameless);
  await writeSkill(
    at("project/.github/skills/manual-only"),
    undefined,
    "---\nname: manual-only\ndescription: Only when asked.\ndisable-model-invocation: true\n---\n\nBody.\n",
  );
  // A SKILL.md that is itself a symlink, to a file outside every root.
  await writeSkill(at("project/shared/linked-file"), "linked-file");
  await mkdir(at("project/.agents/skills/linked-file"), { recursive: true });
  await symlink(at("project/shared/linked-file/SKILL.md"), at("project/.agents/skills/linked-file/SKILL.md"));
  // A symlinked skill folder whose target is gone.
  await symlink("../../missing-skill", at("project/.agents/skills/gone"));
  // What git writes on a checkout without symlinks: the link target as file content.
  await writeFile(at("project/.claude/skills/stubbed"), "../../shared/stubbed");
  return { base, home, project, cwd, systemDir };
}

/** Each preset's loaded skills: `name` → location relative to the world's base. */
export const EXPECTED_LOADS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  default: {
    "h-claude": "project/.claude/skills/h-claude/SKILL.md",
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-shared": "home/.config/agents/skills/h-shared/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
    dotted: "project/.agents/skills/.curated/dotted/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    grouped: "project/.claude/skills/group/grouped/SKILL.md",
  },
  agents: {
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-shared": "home/.config/agents/skills/h-shared/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
    dotted: "project/.agents/skills/.curated/dotted/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
  },
  opencode: {
    "h-claude": "project/.claude/skills/h-claude/SKILL.md",
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-opencode": "home/.config/opencode/skills/h-opencode/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
    dotted: "project/.agents/skills/.curated/dotted/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    grouped: "project/.claude/skills/group/grouped/SKILL.md",
  },
  "claude-code": {
    "h-claude": "home/.claude/skills/h-claude/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    unnamed: "project/.claude/skills/unnamed/SKILL.md",
  },
  codex: {
    anon: "project/app/.agents/skills/anon/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "app-codex": "project/app/.codex/skills/app-codex/SKILL.md",
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-codex": "home/.codex/skills/h-codex/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "p-codex": "project/.codex/skills/p-codex/SKILL.md",
  },
  gemini: {
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-gemini": "home/.gemini/skills/h-gemini/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
  },
  copilot: {
    anon: "project/app/.agents/skills/anon/SKILL.md",
    unnamed: "project/.claude/skills/unnamed/SKILL.md",
    grouped: "project/.claude/skills/group/grouped/SKILL.md",
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-claude": "project/.claude/skills/h-claude/SKILL.md",
    "h-copilot": "home/.copilot/skills/h-copilot/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "manual-only": "project/.github/skills/manual-only/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
  },
  cursor: {
    "h-cursor": "home/.cursor/skills/h-cursor/SKILL.md",
    "h-claude": "project/.claude/skills/h-claude/SKILL.md",
    "h-codex": "home/.codex/skills/h-codex/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
    dotted: "project/.agents/skills/.curated/dotted/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    grouped: "project/.claude/skills/group/grouped/SKILL.md",
    "p-codex": "project/.codex/skills/p-codex/SKILL.md",
    "app-codex": "project/app/.codex/skills/app-codex/SKILL.md",
  },
  pi: {
    anon: "project/app/.agents/skills/anon/SKILL.md",
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-pi": "home/.pi/agent/skills/h-pi/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
  },
  goose: {
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-shared": "home/.config/agents/skills/h-shared/SKILL.md",
    "h-goose": "home/.config/goose/skills/h-goose/SKILL.md",
    "h-claude": "project/.claude/skills/h-claude/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "very-deep": "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md",
    dotted: "project/.agents/skills/.curated/dotted/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    grouped: "project/.claude/skills/group/grouped/SKILL.md",
  },
  amp: {
    dotted: "project/.agents/skills/.curated/dotted/SKILL.md",
    grouped: "project/.claude/skills/group/grouped/SKILL.md",
    "h-agents": "home/.agents/skills/h-agents/SKILL.md",
    "h-amp": "home/.config/amp/skills/h-amp/SKILL.md",
    "h-claude": "project/.claude/skills/h-claude/SKILL.md",
    "h-shared": "home/.config/agents/skills/h-shared/SKILL.md",
    "linked-file": "project/.agents/skills/linked-file/SKILL.md",
    "p-agents": "project/app/.agents/skills/p-agents/SKILL.md",
    "p-claude": "project/.claude/skills/p-claude/SKILL.md",
    verbose: "project/.agents/skills/verbose/SKILL.md",
  },
};

/** Agent order of the cell strings below. */
export const DOCTOR_AGENTS = [
  "default",
  "agents",
  "opencode",
  "claude-code",
  "codex",
  "gemini",
  "copilot",
  "cursor",
  "pi",
  "goose",
  "amp",
] as const;

const ns = "not-scanned";

/**
 * Every row of `skill doctor` on the world: location (relative to base) → name and one cell per
 * agent of {@link DOCTOR_AGENTS}: `ok` (loaded under the row's name) or the reason id.
 */
export const EXPECTED_CELLS: Readonly<
  Record<string, { readonly name: string; readonly cells: readonly string[] }>
> = {
  // biome-ignore format: one row per skill reads as the matrix it is
  "home/.claude/skills/h-claude/SKILL.md": { name: "h-claude", cells: ["shadowed", ns, "shadowed", "ok", ns, ns, ns, "shadowed", ns, "shadowed", "shadowed"] },
  // biome-ignore format: matrix row
  "home/.agents/skills/h-agents/SKILL.md": { name: "h-agents", cells: ["ok", "ok", "ok", ns, "ok", "ok", "ok", ns, "ok", "ok", "ok"] },
  // biome-ignore format: matrix row
  "home/.config/agents/skills/h-shared/SKILL.md": { name: "h-shared", cells: ["ok", "ok", ns, ns, ns, ns, ns, ns, ns, "ok", "ok"] },
  // biome-ignore format: matrix row
  "home/.codex/skills/h-codex/SKILL.md": { name: "h-codex", cells: [ns, ns, ns, ns, "ok", ns, ns, "ok", ns, ns, ns] },
  // biome-ignore format: matrix row
  "home/.gemini/skills/h-gemini/SKILL.md": { name: "h-gemini", cells: [ns, ns, ns, ns, ns, "ok", ns, ns, ns, ns, ns] },
  // biome-ignore format: matrix row
  "home/.copilot/skills/h-copilot/SKILL.md": { name: "h-copilot", cells: [ns, ns, ns, ns, ns, ns, "ok", ns, ns, ns, ns] },
  // biome-ignore format: matrix row
  "home/.cursor/skills/h-cursor/SKILL.md": { name: "h-cursor", cells: [ns, ns, ns, ns, ns, ns, ns, "ok", ns, ns, ns] },
  // biome-ignore format: matrix row
  "home/.pi/agent/skills/h-pi/SKILL.md": { name: "h-pi", cells: [ns, ns, ns, ns, ns, ns, ns, ns, "ok", ns, ns] },
  // biome-ignore format: matrix row
  "home/.config/goose/skills/h-goose/SKILL.md": { name: "h-goose", cells: [ns, ns, ns, ns, ns, ns, ns, ns, ns, "ok", ns] },
  // biome-ignore format: matrix row
  "home/.config/amp/skills/h-amp/SKILL.md": { name: "h-amp", cells: [ns, ns, ns, ns, ns, ns, ns, ns, ns, ns, "ok"] },
  // biome-ignore format: matrix row
  "home/.config/opencode/skills/h-opencode/SKILL.md": { name: "h-opencode", cells: [ns, ns, "ok", ns, ns, ns, ns, ns, ns, ns, ns] },
  // biome-ignore format: matrix row
  "project/.agents/skills/p-agents/SKILL.md": { name: "p-agents", cells: ["shadowed", "shadowed", "shadowed", ns, "shadowed", ns, "shadowed", "shadowed", "shadowed", "shadowed", "shadowed"] },
  // biome-ignore format: matrix row
  "project/app/.agents/skills/p-agents/SKILL.md": { name: "p-agents", cells: ["ok", "ok", "ok", ns, "ok", "ok", "ok", "ok", "ok", "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.agents/skills/deep/a/b/c/d/e/f/SKILL.md": { name: "very-deep", cells: ["ok", "ok", "ok", ns, "too-deep", ns, "ok", "ok", "ok", "ok", "too-deep"] },
  // biome-ignore format: matrix row
  "project/.agents/skills/.curated/dotted/SKILL.md": { name: "dotted", cells: ["ok", "ok", "ok", ns, "dot-folder", ns, "dot-folder", "ok", "dot-folder", "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.agents/skills/verbose/SKILL.md": { name: "verbose", cells: ["ok", "ok", "ok", ns, "ok", ns, "too-long", "ok", "ok", "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.agents/skills/linked-file/SKILL.md": { name: "linked-file", cells: ["ok", "ok", "ok", ns, "symlinked-file", ns, "ok", "ok", "ok", "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.agents/skills/gone": { name: "gone", cells: ["dangling-symlink", "dangling-symlink", "dangling-symlink", ns, "dangling-symlink", ns, "dangling-symlink", "dangling-symlink", "dangling-symlink", "dangling-symlink", "dangling-symlink"] },
  // biome-ignore format: matrix row
  "project/app/.agents/skills/anon/SKILL.md": { name: "anon", cells: ["name-missing", "name-missing", "name-missing", ns, "ok", "name-missing", "ok", "name-missing", "ok", "name-missing", "name-missing"] },
  // biome-ignore format: matrix row
  "project/.claude/skills/p-claude/SKILL.md": { name: "p-claude", cells: ["ok", ns, "ok", "ok", ns, ns, "ok", "ok", ns, "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.claude/skills/h-claude/SKILL.md": { name: "h-claude", cells: ["ok", ns, "ok", "shadowed", ns, ns, "ok", "ok", ns, "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.claude/skills/group/grouped/SKILL.md": { name: "grouped", cells: ["ok", ns, "ok", "too-deep", ns, ns, "ok", "ok", ns, "ok", "ok"] },
  // biome-ignore format: matrix row
  "project/.claude/skills/unnamed/SKILL.md": { name: "unnamed", cells: ["name-missing", ns, "name-missing", "ok", ns, ns, "ok", "name-missing", ns, "name-missing", "name-missing"] },
  // biome-ignore format: matrix row
  "project/.claude/skills/stubbed": { name: "stubbed", cells: ["git-symlink-stub", ns, "git-symlink-stub", "git-symlink-stub", ns, ns, "git-symlink-stub", "git-symlink-stub", ns, "git-symlink-stub", "git-symlink-stub"] },
  // biome-ignore format: matrix row
  "project/.codex/skills/p-codex/SKILL.md": { name: "p-codex", cells: [ns, ns, ns, ns, "ok", ns, ns, "ok", ns, ns, ns] },
  // biome-ignore format: matrix row
  "project/app/.codex/skills/app-codex/SKILL.md": { name: "app-codex", cells: [ns, ns, ns, ns, "ok", ns, ns, "ok", ns, ns, ns] },
  // biome-ignore format: matrix row
  "project/.github/skills/manual-only/SKILL.md": { name: "manual-only", cells: [ns, ns, ns, ns, ns, ns, "ok", ns, ns, ns, ns] },
};
