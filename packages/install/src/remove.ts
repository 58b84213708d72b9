import { realpath, rm, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { checkInside, didYouMean, printable, SkillError } from "@skill/core";
import { computedHash, skillFolderName } from "@skill/lock";
import { type LockedSkill, ScopeLock } from "./lock-store.js";
import { whatIsAt } from "./placement.js";
import { layoutOf, type ScopeLayout } from "./scope.js";
import { shower } from "./show.js";
import { AGENT_TARGETS, type AgentTarget, agentTargets } from "./targets.js";
import type { InstallReport, InstallScope } from "./types.js";

/** Options of {@link removeSkills}. */
export interface RemoveOptions extends InstallScope {
  /** Remove only these agents' links and copies (default: every agent's, and then the canonical folder). */
  readonly agents?: readonly string[];
  /** Remove an installed copy edited since it was installed. */
  readonly force?: boolean;
}

/** What a removal did for one skill. */
export interface RemovedSkill {
  readonly name: string;
  /** Paths removed, as messages show them. */
  readonly removed: readonly string[];
  /** Paths kept because another agent still reads them, with why. */
  readonly kept: readonly string[];
  /** Paths in an agent's place that were not installed by us, left alone. */
  readonly left: readonly string[];
}

/** {@link removeSkills}' report: the usual fields, and what happened to each skill. */
export interface RemoveReport extends InstallReport {
  readonly skills: readonly RemovedSkill[];
}

/** The locked skills `names` name, each by its name or its folder; any other name is an error. */
function lockedOf(lock: ScopeLock, names: readonly string[], show: (p: string) => string): LockedSkill[] {
  return names.map((name) => {
    const locked = lock.get(name) ?? lock.byFolder(skillFolderName(name));
    if (locked === undefined) {
      throw new SkillError(
        "NOT_FOUND",
        `${JSON.stringify(printable(name))} was not installed by skill here (it is not in ${show(lock.file)}); nothing was removed.${didYouMean(name, lock.names())}`,
        { path: lock.file },
      );
    }
    return locked;
  });
}

async function refuseEdited(
  layout: ScopeLayout,
  skills: readonly LockedSkill[],
  show: (p: string) => string,
): Promise<void> {
  for (const locked of skills) {
    const canonical = join(layout.canonicalRoot, skillFolderName(locked.name));
    const now = locked.hash === undefined ? undefined : await computedHash(canonical).catch(() => undefined);
    if (now !== undefined && now !== locked.hash) {
      throw new SkillError(
        "WRITE_ERROR",
        `${show(canonical)} was edited since it was installed (its files no longer hash to the lock); nothing was removed (force removes it anyway)`,
        { path: canonical },
      );
    }
  }
}

/** Removes one path of ours after checking it lies inside its bound; returns its real path as it was. */
async function removePath(path: string, within: string, link: boolean): Promise<string> {
  await checkInside(path, { within });
  const real = join(await realpath(dirname(path)), basename(path));
  if (link) await unlink(path);
  else await rm(path, { recursive: true, force: true });
  return real;
}

async function removeOne(
  layout: ScopeLayout,
  locked: LockedSkill,
  only: readonly AgentTarget[] | undefined,
  show: (p: string) => string,
): Promise<{ result: RemovedSkill; written: string[]; gone: boolean }> {
  const folder = skillFolderName(locked.name);
  const canonical = join(layout.canonicalRoot, folder);
  const removed: string[] = [];
  const left: string[] = [];
  const users: string[] = [];
  const written: string[] = [];
  const seen = new Set<string>();
  for (const agent of AGENT_TARGETS) {
    const chosen = only === undefined || only.includes(agent);
    if (layout.readsCanonical(agent)) {
      if (!chosen) users.push(agent.id);
      continue;
    }
    const path = join(layout.agentDir(agent), folder);
    const at = await whatIsAt(path, canonical);
    const ours =
      at.kind === "link-to-canonical" ||
      (at.kind === "copy" && locked.hash !== undefined && at.hash === locked.hash);
    if (!chosen) {
      if (ours) users.push(agent.id);
      continue;
    }
    if (seen.has(path) || at.kind === "absent") continue;
    seen.add(path);
    if (!ours) {
      left.push(`${show(path)} (not installed by skill)`);
      continue;
    }
    written.push(await removePath(path, layout.within(agent), at.kind === "link-to-canonical"));
    removed.push(show(path));
  }
  const kept: string[] = [];
  if (users.length > 0) kept.push(`${show(canonical)} (still used by ${users.join(", ")})`);
  else {
    written.push(await removePath(canonical, layout.within(), false));
    removed.push(show(canonical));
  }
  return { result: { name: locked.name, removed, kept, left }, written, gone: users.length === 0 };
}

/**
 * Removes installed skills: each agent's link (or the copy an install made), and the canonical
 * folder once no agent still reads it; then the lock entry. Only what the scope's lock says was
 * installed here is touched — a name the lock does not hold (`constructor` as much as any) is
 * `NOT_FOUND` and nothing is removed — and no lock file is written when there was none and
 * nothing changed. With `agents`, only those agents' links and copies go.
 *
 * @throws SkillError `NOT_FOUND` (a name not installed here), `WRITE_ERROR` (an installed copy
 *   edited since, without `force`), `UNSAFE_PATH` (a path that leads out of the scope).
 */
export async function removeSkills(names: readonly string[], options: RemoveOptions): Promise<RemoveReport> {
  const layout = layoutOf(options);
  const show = shower(layout);
  const lock = await ScopeLock.load(layout);
  const only = options.agents?.length ? agentTargets(options.agents) : undefined;
  // Every name is checked first: nothing is removed when one of them is not ours to remove.
  const skills = lockedOf(lock, names, show);
  if (only === undefined && !options.force) await refuseEdited(layout, skills, show);
  const results: RemovedSkill[] = [];
  const written: string[] = [];
  for (const locked of skills) {
    const one = await removeOne(layout, locked, only, show);
    results.push(one.result);
    written.push(...one.written);
    if (one.gone) lock.delete(locked.name);
  }
  if (!lock.changed) return { installed: [], refused: [], written, skills: results };
  await lock.save();
  const lockFile = await realpath(lock.file);
  return { installed: [], refused: [], written: [...written, lockFile], lock: lockFile, skills: results };
}
