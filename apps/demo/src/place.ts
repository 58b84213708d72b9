import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { printable } from "@skill/core";
import { computedHash, type HashedFile, skillFolderName } from "@skill/lock";
import type { AgentTarget } from "./agent-targets.js";
import {
  agentDir,
  canonicalRoot,
  copySkill,
  linkSkill,
  linkStaysInside,
  readsCanonical,
  type Scope,
  type ScopeLock,
  whatIsAt,
} from "./install.js";

/** One skill to put into a scope: its canonical copy and each agent's link. */
export interface Placement {
  /** The skill's name (the lock's key). */
  readonly skill: string;
  /** The folder to copy from. */
  readonly from: string;
  /** computedHash of `from`. */
  readonly hash: string;
  /** The bytes `hash` covers, as `hashFolder` read them: copied instead of reading `from` again. */
  readonly files?: readonly HashedFile[];
  readonly agents: readonly AgentTarget[];
  /** Copies for the agents that do not read `.agents/skills`, instead of links. */
  readonly copy: boolean;
  /** Replace what skill did not install (or what was edited since). */
  readonly force: boolean;
}

/** What a placement will do, checked before anything is touched. */
export interface PlacementPlan {
  readonly placement: Placement;
  readonly folder: string;
  readonly canonical: string;
  /** Agent folders to link (or copy) into, one per path. */
  readonly targets: readonly { readonly agents: string[]; readonly path: string; readonly copy: boolean }[];
  /** Agents that read the canonical copy itself. */
  readonly direct: readonly string[];
  /** What `--force` replaces (or would). */
  readonly replaces: readonly string[];
  /** Why it cannot go ahead without `--force`. */
  readonly blocked: readonly string[];
}

/** Looks at what is in the way of a placement; never writes. */
export async function planPlacement(
  scope: Scope,
  lock: ScopeLock,
  placement: Placement,
  show: (path: string) => string,
): Promise<PlacementPlan> {
  const folder = skillFolderName(placement.skill);
  const canonical = join(canonicalRoot(scope), folder);
  const blocked: string[] = [];
  const replaces: string[] = [];
  const locked = lock.byFolder(folder);
  const info = await lstat(canonical).catch(() => undefined);
  if (info !== undefined) {
    const here = show(canonical);
    if (!info.isDirectory() || info.isSymbolicLink()) {
      blocked.push(`${here} is ${info.isSymbolicLink() ? "a link" : "a file"} that skill did not install`);
    } else if (locked === undefined) {
      blocked.push(`${here} exists and was not installed by skill (it is not in ${show(lock.file)})`);
    } else if (locked.name !== placement.skill) {
      blocked.push(`${here} holds the installed skill ${JSON.stringify(printable(locked.name))}`);
    } else {
      const current = await computedHash(canonical).catch(() => undefined);
      if (current !== placement.hash && locked.hash !== undefined && current !== locked.hash) {
        blocked.push(
          `${here} was edited since it was installed (its files no longer hash to the lock's ${locked.hash.slice(0, 12)}…)`,
        );
      }
    }
  }
  if (blocked.length > 0) replaces.push(show(canonical));

  const byPath = new Map<string, { agents: string[]; path: string; copy: boolean }>();
  const direct: string[] = [];
  for (const agent of placement.agents) {
    if (readsCanonical(agent, scope)) {
      direct.push(agent.id);
      continue;
    }
    const path = join(agentDir(agent, scope), folder);
    const known = byPath.get(path);
    if (known) {
      known.agents.push(agent.id);
      continue;
    }
    const inside = await linkStaysInside(scope.root, path, canonicalRoot(scope));
    byPath.set(path, { agents: [agent.id], path, copy: placement.copy || !inside });
  }
  for (const target of byPath.values()) {
    const at = await whatIsAt(target.path, canonical);
    const here = show(target.path);
    if (at.kind === "absent" || at.kind === "link-to-canonical") continue;
    if (
      at.kind === "copy" &&
      locked?.name === placement.skill &&
      locked.hash !== undefined &&
      at.hash === locked.hash
    ) {
      continue; // a copy an earlier `--copy` install made, unedited
    }
    const what = at.kind === "copy" ? "a folder that skill did not install (or one edited since)" : at.what;
    blocked.push(`${here} is ${what}`);
    replaces.push(here);
  }
  return {
    placement,
    folder,
    canonical,
    targets: [...byPath.values()],
    direct,
    replaces,
    blocked: placement.force ? [] : blocked,
  };
}

/** What a placement did, per agent folder. */
export interface Placed {
  readonly canonical: string;
  readonly links: readonly {
    readonly agents: readonly string[];
    readonly path: string;
    readonly target?: string;
  }[];
}

/** Carries out a checked plan: the canonical copy, then each agent's link or copy. */
export async function applyPlacement(plan: PlacementPlan): Promise<Placed> {
  const { placement, canonical } = plan;
  await copySkill(placement.from, canonical, placement.files);
  const links: { agents: string[]; path: string; target?: string }[] = [];
  for (const target of plan.targets) {
    if (target.copy) {
      await copySkill(canonical, target.path);
      links.push({ agents: target.agents, path: target.path });
    } else {
      links.push({
        agents: target.agents,
        path: target.path,
        target: await linkSkill(target.path, canonical),
      });
    }
  }
  return { canonical, links };
}
