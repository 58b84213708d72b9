import { lstat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { SkillError } from "@skill/core";
import { globalLockPath, PROJECT_LOCK_FILE } from "@skill/lock";
import { AGENT_TARGETS, type AgentTarget } from "./targets.js";
import type { InstallProgress, InstallScope } from "./types.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The folders of one install scope, worked out once. */
export interface ScopeLayout {
  readonly global: boolean;
  /** The project folder, or the home folder. */
  readonly root: string;
  readonly home: string;
  readonly env: Env;
  /** `<root>/.agents/skills`: the canonical copies. */
  readonly canonicalRoot: string;
  /** `skills-lock.json` of the project, or the global lock. */
  readonly lockFile: string;
  readonly signal: AbortSignal | undefined;
  /** Told each step (the scope's `onProgress`, or nothing). */
  readonly progress: (event: InstallProgress) => void;
  /** The folder nothing for `agent` (or, without one, for the canonical copy) is written outside of. */
  within(agent?: AgentTarget): string;
  /** The folder `agent` reads skills from in this scope. */
  agentDir(agent: AgentTarget): string;
  /** Whether `agent` reads the canonical copy itself (no link needed). */
  readsCanonical(agent: AgentTarget): boolean;
}

function checkScope(options: InstallScope): void {
  if (options.scope !== "project" && options.scope !== "global") {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid scope: expected "project" or "global", found ${JSON.stringify(String(options.scope))}`,
      { field: "scope" },
    );
  }
  for (const field of ["cwd", "home"] as const) {
    if (typeof options[field] !== "string" || options[field] === "") {
      throw new SkillError("INVALID_FIELD", `Invalid ${field}: expected a folder path`, { field });
    }
  }
}

/**
 * The layout of `options`' scope. Project: everything inside `cwd`. Global: the canonical
 * copies in `<home>/.agents/skills`, each agent's folder inside its base (the home folder, or
 * the folder `XDG_CONFIG_HOME` or `CLAUDE_CONFIG_DIR` names).
 */
export function layoutOf(options: InstallScope): ScopeLayout {
  checkScope(options);
  const global = options.scope === "global";
  const home = resolve(options.home);
  const root = global ? home : resolve(options.cwd);
  const env = options.env ?? {};
  const canonicalRoot = join(root, ".agents", "skills");
  const agentDir = (agent: AgentTarget) =>
    global ? resolve(agent.globalDir(home, env)) : join(root, ...agent.projectDir.split("/"));
  return {
    global,
    root,
    home,
    env,
    canonicalRoot,
    lockFile: global ? globalLockPath({ home, env }) : join(root, PROJECT_LOCK_FILE),
    signal: options.signal,
    progress: options.onProgress ?? (() => {}),
    within: (agent) => (global && agent !== undefined ? resolve(agent.globalBase(home, env)) : root),
    agentDir,
    readsCanonical: (agent) => agentDir(agent) === canonicalRoot,
  };
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}

/**
 * The agents to install for when none are named, as Vercel's `skills` picks them: every agent
 * that reads `.agents/skills`, and each other one whose folder (`.claude`, `.goose`…) exists in
 * the scope. Vercel agent ids, in {@link AGENT_TARGETS} order.
 */
export async function detectAgents(options: InstallScope): Promise<string[]> {
  const layout = layoutOf(options);
  const found: string[] = [];
  for (const agent of AGENT_TARGETS) {
    if (layout.readsCanonical(agent)) {
      found.push(agent.id);
      continue;
    }
    const top = layout.global
      ? dirname(layout.agentDir(agent))
      : join(layout.root, agent.projectDir.split("/")[0] as string);
    if (await exists(top)) found.push(agent.id);
  }
  return found;
}
