import { join } from "node:path";
import { printable } from "@skill/core";
import type { DiscoveryPreset } from "@skill/discovery";
import { UsageError } from "./errors.js";

/** Where an agent reads installed skills, as Vercel's `skills` 1.7.4 installs them for it. */
export interface AgentTarget {
  /** Vercel's agent id (`skills add -a <id>`). */
  readonly id: string;
  /** Our discovery preset reproducing what that agent loads. */
  readonly preset: DiscoveryPreset;
  /** Project skills folder, relative to the project. `.agents/skills`: it reads the canonical copy. */
  readonly projectDir: string;
  /** Global skills folder. */
  readonly globalDir: (home: string, env: Readonly<Record<string, string | undefined>>) => string;
}

const configHome = (home: string, env: Readonly<Record<string, string | undefined>>) =>
  env.XDG_CONFIG_HOME || join(home, ".config");

/** Vercel's agent ids for the agents we have presets for, and where `skills` puts their skills. */
export const AGENT_TARGETS: readonly AgentTarget[] = [
  {
    id: "amp",
    preset: "amp",
    projectDir: ".agents/skills",
    globalDir: (h, e) => join(configHome(h, e), "agents/skills"),
  },
  {
    id: "claude-code",
    preset: "claude-code",
    projectDir: ".claude/skills",
    globalDir: (h, e) => join(e.CLAUDE_CONFIG_DIR?.trim() || join(h, ".claude"), "skills"),
  },
  { id: "codex", preset: "codex", projectDir: ".agents/skills", globalDir: (h) => join(h, ".agents/skills") },
  {
    id: "cursor",
    preset: "cursor",
    projectDir: ".agents/skills",
    globalDir: (h) => join(h, ".cursor/skills"),
  },
  {
    id: "gemini-cli",
    preset: "gemini",
    projectDir: ".agents/skills",
    globalDir: (h) => join(h, ".gemini/skills"),
  },
  {
    id: "github-copilot",
    preset: "copilot",
    projectDir: ".agents/skills",
    globalDir: (h) => join(h, ".copilot/skills"),
  },
  {
    id: "goose",
    preset: "goose",
    projectDir: ".goose/skills",
    globalDir: (h, e) => join(configHome(h, e), "goose/skills"),
  },
  {
    id: "opencode",
    preset: "opencode",
    projectDir: ".agents/skills",
    globalDir: (h, e) => join(configHome(h, e), "opencode/skills"),
  },
  { id: "pi", preset: "pi", projectDir: ".agents/skills", globalDir: (h) => join(h, ".agents/skills") },
];

/** The agent `name` names: a Vercel id (`gemini-cli`) or our preset's name (`gemini`). */
export function agentTarget(name: string): AgentTarget {
  const found = AGENT_TARGETS.find((a) => a.id === name) ?? AGENT_TARGETS.find((a) => a.preset === name);
  if (found === undefined) {
    throw new UsageError(
      `Unknown agent ${JSON.stringify(printable(name))} in --for (expected one of: ${AGENT_TARGETS.map((a) => a.id).join(", ")})`,
    );
  }
  return found;
}
