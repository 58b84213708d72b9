import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { SkillService } from "@skill/core";
import { agentProfile, compareAgents } from "@skill/discovery";
import type { AgentTarget } from "@skill/install";
import type { Context } from "../../context.js";
import { displayPath } from "../../output.js";

/** Whether an agent will load an installed skill, under which name, or why not. */
export type AgentVerdict =
  | {
      readonly agent: string;
      readonly skill: string;
      readonly loaded: true;
      readonly name: string;
      /** Loaded from the same skill's copy inside its parent's folder (a nested skill), not from this folder. */
      readonly inside?: string;
    }
  | {
      readonly agent: string;
      readonly skill: string;
      readonly loaded: false;
      readonly reason: string;
      readonly detail?: string;
    };

/** The real path of `path` (itself when it has none), each asked of the system once per `cache`. */
function real(path: string, cache: Map<string, string>): string {
  let known = cache.get(path);
  if (known === undefined) {
    try {
      known = realpathSync(path);
    } catch {
      known = path;
    }
    cache.set(path, known);
  }
  return known;
}

/**
 * Runs each agent's preset pipeline (discovery's `agentProfile` into core's `SkillService`,
 * with this project's permissions) and says what it makes of each installed folder. Why
 * not comes from discovery's `compareAgents` (too-deep, dot-folder, shadowed…).
 */
export async function agentVerdicts(
  ctx: Context,
  agents: readonly AgentTarget[],
  installed: readonly { readonly skill: string; readonly dir: string }[],
): Promise<AgentVerdict[]> {
  const verdicts: AgentVerdict[] = [];
  const reals = new Map<string, string>();
  for (const agent of agents) {
    const options = {
      cwd: ctx.cwd,
      home: ctx.home,
      env: ctx.env,
      paths: ctx.config.skills.paths,
      logger: ctx.logger,
    };
    const { sources, rules } = agentProfile({ ...options, preset: agent.preset });
    const service = new SkillService({ sources, permission: ctx.policy, logger: ctx.logger, ...rules });
    await service.discoverAndLoad();
    const loaded = service.all(ctx.agent);
    let report: Awaited<ReturnType<typeof compareAgents>> | undefined;
    // The first loaded skill of each real folder, as `find` over `loaded` would pick it.
    const byFolder = new Map<string, (typeof loaded)[number]>();
    for (const s of loaded) {
      const folder = real(dirname(s.location), reals);
      if (!byFolder.has(folder)) byFolder.set(folder, s);
    }
    for (const { skill, dir } of installed) {
      const folder = real(dir, reals);
      const hit = byFolder.get(folder);
      if (hit) {
        verdicts.push({ agent: agent.id, skill, loaded: true, name: hit.name });
        continue;
      }
      report ??= await compareAgents({
        ...options,
        agents: [agent.preset],
        permission: ctx.policy,
        agent: ctx.agent,
      });
      const row = report.skills.find((s) => real(dirname(s.location), reals) === folder);
      const cell = row?.cells[agent.preset];
      if (row === undefined || cell === undefined) {
        verdicts.push({
          agent: agent.id,
          skill,
          loaded: false,
          reason: "not-scanned",
          detail: "it does not read this folder",
        });
      } else if (cell.loaded) {
        // Discovery finds it, the service does not list it: the agent's permissions hide it.
        verdicts.push({
          agent: agent.id,
          skill,
          loaded: false,
          reason: "denied",
          detail: `--agent ${ctx.agent.name}`,
        });
      } else if (cell.reason === "shadowed" && cell.nested !== undefined) {
        // A nested skill: the agent loads the same skill from its copy inside the parent.
        verdicts.push({ agent: agent.id, skill, loaded: true, name: row.name, inside: cell.nested.parent });
      } else if (cell.reason === "shadowed") {
        const winner = service.get(row.name);
        const by = winner ? displayPath(winner.location, ctx.cwd, ctx.home) : cell.detail;
        verdicts.push({
          agent: agent.id,
          skill,
          loaded: false,
          reason: "shadowed",
          ...(by === undefined ? {} : { detail: `by ${by}` }),
        });
      } else {
        verdicts.push({
          agent: agent.id,
          skill,
          loaded: false,
          reason: cell.reason,
          ...(cell.detail === undefined ? {} : { detail: cell.detail }),
        });
      }
    }
  }
  return verdicts;
}
