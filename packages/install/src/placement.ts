import type { Stats } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { checkInside, linkInside, printable } from "@skill/core";
import { computedHash, type HashedFile, skillFolderName } from "@skill/lock";
import { copySkillFolder } from "./copy.js";
import type { ScopeLock } from "./lock-store.js";
import type { ScopeLayout } from "./scope.js";
import type { AgentTarget } from "./targets.js";
import type { PlannedSkill } from "./types.js";

/** One skill to put into a scope: its canonical copy and each agent's way to it. */
export interface Placement {
  /** The skill's name (the lock's key). */
  readonly name: string;
  /** The folder to copy from (inside the source by real path). */
  readonly from: string;
  /** `computedHash` of `from`. */
  readonly hash: string;
  /** The bytes `hash` covers, as `hashFolder` read them, when they were kept. */
  readonly files?: readonly HashedFile[];
  readonly agents: readonly AgentTarget[];
  /** Copies for the agents that do not read `.agents/skills`, instead of links. */
  readonly copy: boolean;
  /** Replace what is in the way. */
  readonly force: boolean;
}

/** What is at an agent's path for a skill. */
export type AtPath =
  | { readonly kind: "absent" }
  | { readonly kind: "link-to-canonical" }
  | { readonly kind: "copy"; readonly hash: string | undefined }
  | { readonly kind: "other"; readonly what: string };

export async function whatIsAt(path: string, canonical: string): Promise<AtPath> {
  let info: Stats;
  try {
    info = await lstat(path);
  } catch {
    return { kind: "absent" };
  }
  if (info.isSymbolicLink()) {
    const [a, b] = await Promise.all([
      realpath(path).catch(() => undefined),
      realpath(canonical).catch(() => undefined),
    ]);
    if (a !== undefined && a === b) return { kind: "link-to-canonical" };
    const target = await readlink(path).catch(() => "?");
    // A link left dangling by a deleted canonical copy (a fresh checkout) still points at it.
    const parent = await realpath(dirname(path)).catch(() => dirname(path));
    const home = await realpath(dirname(canonical)).catch(() => dirname(canonical));
    if (a === undefined && resolve(parent, target) === join(home, basename(canonical))) {
      return { kind: "link-to-canonical" };
    }
    return { kind: "other", what: `a link to ${printable(target)}` };
  }
  if (info.isDirectory()) return { kind: "copy", hash: await computedHash(path).catch(() => undefined) };
  return { kind: "other", what: "a file" };
}

/** A planned placement: where each agent gets the skill, and what stands in the way. */
export interface PlacementPlan {
  readonly placement: Placement;
  readonly canonical: string;
  readonly agents: PlannedSkill["agents"];
  readonly replaces?: PlannedSkill["replaces"];
  /** Why it cannot go ahead without `force` (empty with `force`). */
  readonly blocked: readonly string[];
  /** With `force`: the paths in the way that it replaces. */
  readonly overrides: readonly string[];
}

/** Whether an agent's folder and the canonical copy share a bound, so a link between them stays inside it. */
async function sameBound(layout: ScopeLayout, agent: AgentTarget): Promise<boolean> {
  const [a, b] = await Promise.all(
    [layout.within(agent), layout.within()].map((dir) => realpath(dir).catch(() => resolve(dir))),
  );
  return a === b;
}

/** What stands at the canonical folder: nothing, an earlier install of this skill, or something in the way. */
async function canonicalState(
  lock: ScopeLock,
  placement: Placement,
  canonical: string,
  show: (path: string) => string,
): Promise<{ blocked?: string; replaces?: PlannedSkill["replaces"] }> {
  const info = await lstat(canonical).catch(() => undefined);
  if (info === undefined) return {};
  const here = show(canonical);
  const locked = lock.byFolder(basename(canonical));
  const current = info.isDirectory() ? await computedHash(canonical).catch(() => undefined) : undefined;
  const replaces = current === undefined ? undefined : { computedHash: current, folder: canonical };
  if (!info.isDirectory() || info.isSymbolicLink()) {
    return {
      blocked: `${here} is ${info.isSymbolicLink() ? "a link" : "a file"} that skill did not install`,
    };
  }
  if (locked === undefined) {
    return {
      blocked: `${here} exists and was not installed by skill (it is not in ${show(lock.file)})`,
      ...(replaces ? { replaces } : {}),
    };
  }
  if (current !== placement.hash && locked.hash !== undefined && current !== locked.hash) {
    return {
      blocked: `${here} was edited since it was installed (its files no longer hash to the lock's ${locked.hash.slice(0, 12)}…)`,
      ...(replaces ? { replaces } : {}),
    };
  }
  return replaces ? { replaces } : {};
}

/** Looks at what is in the way of a placement and checks every destination against its bound; never writes. */
export async function planPlacement(
  layout: ScopeLayout,
  lock: ScopeLock,
  placement: Placement,
  show: (path: string) => string,
): Promise<PlacementPlan> {
  const folder = skillFolderName(placement.name);
  const canonical = join(layout.canonicalRoot, folder);
  await checkInside(canonical, { within: layout.within() });
  const state = await canonicalState(lock, placement, canonical, show);
  const blocked = state.blocked === undefined ? [] : [state.blocked];
  const inTheWay = state.blocked === undefined ? [] : [canonical];
  const locked = lock.byFolder(folder);
  const agents: { agent: string; how: "canonical" | "link" | "copy"; path: string }[] = [];
  const seen = new Set<string>();
  for (const agent of placement.agents) {
    if (layout.readsCanonical(agent)) {
      agents.push({ agent: agent.id, how: "canonical", path: canonical });
      continue;
    }
    const path = join(layout.agentDir(agent), folder);
    const how = placement.copy || !(await sameBound(layout, agent)) ? "copy" : "link";
    // A link replaces what is at its path (never writes through it); a copy's folder must itself stay inside.
    await checkInside(how === "link" ? dirname(path) : path, { within: layout.within(agent) });
    agents.push({ agent: agent.id, how, path });
    if (seen.has(path)) continue;
    seen.add(path);
    const at = await whatIsAt(path, canonical);
    if (at.kind === "absent" || at.kind === "link-to-canonical") continue;
    // A copy an earlier `copy` install made, unedited.
    if (
      at.kind === "copy" &&
      locked?.name === placement.name &&
      locked.hash !== undefined &&
      at.hash === locked.hash
    ) {
      continue;
    }
    blocked.push(
      `${show(path)} is ${at.kind === "copy" ? "a folder that skill did not install (or one edited since)" : at.what}`,
    );
  }
  return {
    placement,
    canonical,
    agents,
    ...(state.replaces ? { replaces: state.replaces } : {}),
    blocked: placement.force ? [] : blocked,
    overrides: placement.force ? inTheWay : [],
  };
}

/** Carries out a checked plan: the canonical copy, then each agent's link or copy. Returns the real paths written. */
export async function applyPlacement(layout: ScopeLayout, plan: PlacementPlan): Promise<string[]> {
  const { placement, canonical } = plan;
  const signal = layout.signal;
  await copySkillFolder(placement.from, canonical, {
    within: layout.within(),
    ...(placement.files === undefined ? {} : { files: placement.files }),
    ...(signal === undefined ? {} : { signal }),
  });
  const written = [await realpath(canonical)];
  const done = new Set<string>();
  for (const target of plan.agents) {
    if (target.how === "canonical" || done.has(target.path)) continue;
    done.add(target.path);
    const agent = placement.agents.find((a) => a.id === target.agent) as AgentTarget;
    const within = layout.within(agent);
    if (target.how === "copy") {
      await copySkillFolder(canonical, target.path, { within, ...(signal === undefined ? {} : { signal }) });
    } else {
      await linkInside(target.path, canonical, { within });
    }
    written.push(join(await realpath(dirname(target.path)), basename(target.path)));
  }
  return written;
}
