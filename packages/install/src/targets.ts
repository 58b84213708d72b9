import { join } from "node:path";
import { printable, SkillError } from "@skill/core";
import type { DiscoveryPreset } from "@skill/discovery";

type Env = Readonly<Record<string, string | undefined>>;

/** Where an agent reads installed skills, as Vercel's `skills` 1.7.4 installs them for it. */
export interface AgentTarget {
  /** Vercel's agent id (`skills add -a <id>`). */
  readonly id: string;
  /** The `@skill/discovery` preset that reproduces what this agent loads. */
  readonly preset: DiscoveryPreset;
  /** Project skills folder, relative to the project, `/`-separated. `.agents/skills`: the agent reads the canonical copy. */
  readonly projectDir: string;
  /**
   * The folder a global install's folder is built from: the home folder, or the one a
   * variable names (`XDG_CONFIG_HOME`, `CLAUDE_CONFIG_DIR`). Nothing of a global install for
   * this agent is written outside it (by real path).
   */
  readonly globalBase: (home: string, env: Env) => string;
  /** The global skills folder, below {@link AgentTarget.globalBase}. */
  readonly globalDir: (home: string, env: Env) => string;
}

/** `$XDG_CONFIG_HOME` when set, else the home folder (which holds `.config`). */
const configBase = (home: string, env: Env) => env.XDG_CONFIG_HOME || home;
const configDir = (home: string, env: Env) => env.XDG_CONFIG_HOME || join(home, ".config");
const claudeBase = (home: string, env: Env) => env.CLAUDE_CONFIG_DIR?.trim() || home;

/** An agent whose global skills are `dir` below the home folder, which bounds them. */
function inHome(
  id: string,
  preset: DiscoveryPreset,
  dir: string,
  projectDir = ".agents/skills",
): AgentTarget {
  return { id, preset, projectDir, globalBase: (h) => h, globalDir: (h) => join(h, dir) };
}

/** An agent whose global skills are `dir` below `$XDG_CONFIG_HOME` (else `~/.config`), which bounds them. */
function inConfig(
  id: string,
  preset: DiscoveryPreset,
  dir: string,
  projectDir = ".agents/skills",
): AgentTarget {
  return { id, preset, projectDir, globalBase: configBase, globalDir: (h, e) => join(configDir(h, e), dir) };
}

/** Vercel's agent ids for the agents discovery has presets for, and where `skills` puts their skills. */
export const AGENT_TARGETS: readonly AgentTarget[] = Object.freeze([
  inConfig("amp", "amp", "agents/skills"),
  {
    id: "claude-code",
    preset: "claude-code",
    projectDir: ".claude/skills",
    globalBase: claudeBase,
    globalDir: (h, e) => join(e.CLAUDE_CONFIG_DIR?.trim() || join(h, ".claude"), "skills"),
  },
  inHome("codex", "codex", ".agents/skills"),
  inHome("cursor", "cursor", ".cursor/skills"),
  inHome("gemini-cli", "gemini", ".gemini/skills"),
  inHome("github-copilot", "copilot", ".copilot/skills"),
  inConfig("goose", "goose", "goose/skills", ".goose/skills"),
  inConfig("opencode", "opencode", "opencode/skills"),
  inHome("pi", "pi", ".agents/skills"),
] satisfies AgentTarget[]);

/**
 * The agent `name` names: a Vercel id (`gemini-cli`) or the discovery preset's name (`gemini`).
 *
 * @throws SkillError `INVALID_FIELD` (field `agents`) for any other name, listing the ids.
 */
export function agentTarget(name: string): AgentTarget {
  const found = AGENT_TARGETS.find((a) => a.id === name) ?? AGENT_TARGETS.find((a) => a.preset === name);
  if (found === undefined) {
    throw new SkillError(
      "INVALID_FIELD",
      `Unknown agent ${JSON.stringify(printable(String(name)))} (expected one of: ${AGENT_TARGETS.map((a) => a.id).join(", ")})`,
      { field: "agents" },
    );
  }
  return found;
}

/** Each agent of `names` once, in the order given. */
export function agentTargets(names: readonly string[]): AgentTarget[] {
  const chosen: AgentTarget[] = [];
  for (const name of names) {
    const agent = agentTarget(name);
    if (!chosen.includes(agent)) chosen.push(agent);
  }
  return chosen;
}
