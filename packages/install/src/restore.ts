import { realpath } from "node:fs/promises";
import { compareCodeUnits, errorMessage, printable, SkillError, type SkillErrorCode } from "@skill/core";
import { computedHash } from "@skill/lock";
import { applyPlan } from "./apply.js";
import { type FetchPorts, FetchSession, fetchLocked, portsOf } from "./fetch-locked.js";
import { type LockedSkill, ScopeLock, sourceText } from "./lock-store.js";
import { plannedSkill, planPlacements } from "./plan-add.js";
import { registerPlan } from "./plan-state.js";
import { layoutOf } from "./scope.js";
import { shower } from "./show.js";
import { agentTargets } from "./targets.js";
import type { ApplyOptions, GitPort, InstallReport, InstallScope, SitePort } from "./types.js";

/** Options of {@link restore}. */
export interface RestoreOptions extends InstallScope, ApplyOptions {
  /** The agents to place each skill for (Vercel ids or preset names). */
  readonly agents: readonly string[];
  /** Refuse a lock that would be rewritten (not in the form it is written in). */
  readonly frozen?: boolean;
  readonly copy?: boolean;
  /** Replace what is in the way, or an installed copy edited since. */
  readonly force?: boolean;
  readonly git?: GitPort;
  readonly fetchSite?: SitePort;
}

/** One locked skill fetched and checked against its lock: the folder to install, or why not. */
async function fetchChecked(
  lockFile: string,
  skill: LockedSkill,
  ports: FetchPorts,
  session: FetchSession,
  show: (path: string) => string,
): Promise<{ dir: string; commit?: string } | { code: SkillErrorCode; problem: string }> {
  const name = printable(skill.name);
  let fetched: Awaited<ReturnType<typeof fetchLocked>>;
  try {
    fetched = await fetchLocked(lockFile, skill, ports, session);
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "ABORTED") throw error;
    const code = SkillError.isInstance(error) ? error.code : "READ_ERROR";
    return { code, problem: `${name}: ${printable(errorMessage(error))}` };
  }
  // A site serves one version: the lock pins it by the index's digest.
  if (skill.wellKnownDigest !== undefined && fetched.digest !== skill.wellKnownDigest) {
    const now =
      fetched.digest === undefined ? "it without a digest" : `${printable(fetched.digest.slice(0, 19))}…`;
    return {
      code: "INTEGRITY_ERROR",
      problem: `${name}: ${printable(skill.sourceUrl ?? skill.source)} now serves ${now}, ${show(lockFile)} pins ${printable(skill.wellKnownDigest.slice(0, 19))}… (an update takes the new version)`,
    };
  }
  if (skill.hash === undefined) {
    return {
      code: "INTEGRITY_ERROR",
      problem: `${name}: ${show(lockFile)} holds no hash of its files to check them against`,
    };
  }
  const hash = await computedHash(fetched.dir);
  if (hash !== skill.hash) {
    return {
      code: "INTEGRITY_ERROR",
      problem: `${name}: the files of ${sourceText(skill)} hash to ${hash.slice(0, 12)}…, ${show(lockFile)} says ${printable(skill.hash.slice(0, 12))}…`,
    };
  }
  return { dir: fetched.dir, ...(fetched.commit === undefined ? {} : { commit: fetched.commit }) };
}

/**
 * `skill install`: every skill of the scope's lock back into its folder and each agent's, from
 * the source and ref the lock names (a local path relative to the lock's folder; a lock
 * Vercel's `skills` wrote for a local folder finds the skill by name in it), refusing bytes
 * that do not hash to the lock. All or nothing: one problem, and nothing is written.
 *
 * @throws SkillError `NOT_FOUND` (no lock), `INVALID_FIELD` (`frozen` and the lock would be
 *   rewritten), `INTEGRITY_ERROR` (bytes or digest not as locked), `WRITE_ERROR` (something in
 *   the way), `UNSAFE_PATH`, and what fetching a source throws; the message names every problem.
 */
export async function restore(options: RestoreOptions): Promise<InstallReport> {
  const layout = layoutOf(options);
  const show = shower(layout);
  const lock = await ScopeLock.existing(layout, "install");
  const formatted = lock.text();
  if (options.frozen && formatted !== lock.original) {
    throw new SkillError(
      "INVALID_FIELD",
      `frozen: ${show(lock.file)} would change (it is not in the form it is written in: sorted, 2-space JSON); install without frozen and commit the result`,
      { path: lock.file, field: "lock" },
    );
  }
  const agents = agentTargets(options.agents);
  const session = new FetchSession();
  const ports = portsOf(layout, options);
  try {
    const problems: { code: SkillErrorCode; problem: string }[] = [];
    const ready: { skill: LockedSkill & { hash: string }; dir: string; commit?: string }[] = [];
    for (const name of lock.names().sort(compareCodeUnits)) {
      const skill = lock.get(name) as LockedSkill;
      const got = await fetchChecked(lock.file, skill, ports, session, show);
      if ("problem" in got) problems.push(got);
      else ready.push({ skill: skill as LockedSkill & { hash: string }, ...got });
    }
    const placements = await planPlacements(
      layout,
      lock,
      ready.map((r) => ({ name: r.skill.name, dir: r.dir })),
      { agents, copy: options.copy === true, force: options.force === true },
    );
    for (const p of placements)
      for (const b of p.blocked)
        problems.push({ code: "WRITE_ERROR", problem: `${printable(p.placement.name)}: ${b}` });
    if (problems.length > 0) {
      const blocked = placements.some((p) => p.blocked.length > 0);
      throw new SkillError(
        (problems[0] as { code: SkillErrorCode }).code,
        `Not installing: ${problems.map((p) => p.problem).join("; ")}. Nothing was changed${blocked ? "; force replaces what is in the way" : ""}`,
        { path: lock.file },
      );
    }
    const plan = registerPlan(
      {
        skills: placements.map((p, i) =>
          plannedSkill(p, sourceText(ready[i]?.skill as LockedSkill), ready[i]?.commit),
        ),
        refused: [],
        skipped: [],
      },
      {
        layout,
        lock,
        placements,
        saveLock: formatted !== lock.original,
        cleanup: () => session.close(),
      },
    );
    const report = await applyPlan(plan, options.review === undefined ? {} : { review: options.review });
    return { ...report, lock: report.lock ?? (await realpath(lock.file)) };
  } finally {
    await session.close();
  }
}
