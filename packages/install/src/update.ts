import { join } from "node:path";
import { compareCodeUnits, didYouMean, printable, SkillError } from "@skill/core";
import { skillFolderName } from "@skill/lock";
import { fileChanges } from "./changes.js";
import { type CheckOptions, checkSkill, type SkillCheck } from "./check.js";
import { FetchSession, portsOf } from "./fetch-locked.js";
import { type LockedSkill, ScopeLock, sourceText } from "./lock-store.js";
import { planPlacement, whatIsAt } from "./placement.js";
import { plannedSkill } from "./plan-add.js";
import { registerPlan } from "./plan-state.js";
import { layoutOf, type ScopeLayout } from "./scope.js";
import { shower } from "./show.js";
import { AGENT_TARGETS, type AgentTarget } from "./targets.js";
import type { InstallPlan, PlannedSkill, RefusedSkill } from "./types.js";

/** Options of {@link planUpdate}. */
export interface UpdateOptions extends CheckOptions {
  /** Only these locked skills (default: every one). */
  readonly names?: readonly string[];
  /** Replace installed copies edited since they were installed. */
  readonly force?: boolean;
}

/** A plan of {@link planUpdate}: what has a newer version, and what is up to date already. */
export interface UpdatePlan extends InstallPlan {
  /** Locked skills whose source holds nothing newer. */
  readonly current: readonly string[];
  /** Locked skills whose installed copy was edited since it was installed (left as it is unless updated with `force`). */
  readonly edited: readonly string[];
}

/** Why a checked skill cannot be updated, if it cannot. */
function refusal(check: SkillCheck, force: boolean, show: (p: string) => string): RefusedSkill | undefined {
  const name = check.name;
  if (check.upstream.status === "error")
    return { name, code: "REMOTE_ERROR", reason: check.upstream.message };
  if (check.installed.status === "missing") {
    return {
      name,
      code: "NOT_FOUND",
      reason: `${show(check.path)} is not installed (a restore puts it back)`,
    };
  }
  if (check.installed.status === "edited" && check.upstream.status === "outdated" && !force) {
    const files = check.installed.files;
    const which = files
      ? ` (${[...files.changed, ...files.added, ...files.removed].map(printable).join(", ")})`
      : "";
    return {
      name,
      code: "WRITE_ERROR",
      reason: `${show(check.path)} was edited since it was installed${which}; force replaces it`,
    };
  }
  return undefined;
}

/** The agents holding a copy of this skill that an earlier install made (links follow the canonical copy). */
async function copyHolders(layout: ScopeLayout, check: SkillCheck): Promise<AgentTarget[]> {
  const ours = new Set([
    check.skill.hash,
    check.installed.status === "edited" ? check.installed.hash : undefined,
  ]);
  const holders: AgentTarget[] = [];
  const seen = new Set<string>();
  for (const agent of AGENT_TARGETS) {
    if (layout.readsCanonical(agent)) continue;
    const path = join(layout.agentDir(agent), skillFolderName(check.name));
    if (seen.has(path)) continue;
    seen.add(path);
    const at = await whatIsAt(path, check.path);
    if (at.kind === "copy" && at.hash !== undefined && ours.has(at.hash)) holders.push(agent);
  }
  return holders;
}

/**
 * Plans `skill update`: for each locked skill (or those of `names`) whose source holds a newer
 * version, the new folder (`staged`, to review: capabilities, audit findings, files) replacing
 * the installed one, and the copies an earlier install made for agents. Skills whose source
 * cannot be reached, that are not installed, or whose installed copy was edited (without
 * `force`) are `refused`. Apply with `applyPlan` (its `review` may confirm skill by skill).
 *
 * @throws SkillError `NOT_FOUND` (no lock, or a name it does not hold).
 */
export async function planUpdate(options: UpdateOptions): Promise<UpdatePlan> {
  const layout = layoutOf(options);
  const show = shower(layout);
  const lock = await ScopeLock.existing(layout, "update");
  const names = options.names ?? [];
  const missing = names.filter((n) => !lock.has(n));
  if (missing.length > 0) {
    throw new SkillError(
      "NOT_FOUND",
      `${missing.map((n) => JSON.stringify(printable(n))).join(", ")} ${missing.length === 1 ? "is" : "are"} not in ${show(lock.file)}; nothing was changed.${missing.length === 1 ? didYouMean(missing[0] as string, lock.names()) : ""}`,
      { path: lock.file },
    );
  }
  const wanted = (names.length > 0 ? [...new Set(names)] : lock.names()).sort(compareCodeUnits);
  const session = new FetchSession();
  try {
    const ports = portsOf(layout, options);
    const checks: SkillCheck[] = [];
    for (const name of wanted)
      checks.push(await checkSkill(layout, lock.file, lock.get(name) as LockedSkill, ports, session));
    const refused = checks
      .map((c) => refusal(c, options.force === true, show))
      .filter((r): r is RefusedSkill => r !== undefined);
    const pending = checks.filter(
      (c) => c.upstream.status === "outdated" && !refused.some((r) => r.name === c.name),
    );
    const planned: {
      skill: PlannedSkill;
      placement: Awaited<ReturnType<typeof planPlacement>>;
      entry: LockedSkill & { hash: string };
    }[] = [];
    for (const check of pending) {
      const fetched = check.fetched as NonNullable<SkillCheck["fetched"]>;
      const placement = await planPlacement(
        layout,
        lock,
        {
          name: check.name,
          from: fetched.dir,
          hash: fetched.hash,
          agents: await copyHolders(layout, check),
          copy: true,
          force: true,
        },
        show,
      );
      planned.push({
        placement,
        skill: {
          ...plannedSkill(placement, sourceText(check.skill), fetched.commit),
          files: await fileChanges(check.path, fetched.dir),
          ...(check.installed.status === "edited" ? { edited: true } : {}),
        },
        entry: {
          ...check.skill,
          hash: fetched.hash,
          ...(fetched.digest === undefined ? {} : { wellKnownDigest: fetched.digest }),
        },
      });
    }
    const current = checks
      .filter((c) => c.upstream.status === "current" && c.installed.status !== "missing")
      .map((c) => c.name);
    const edited = checks.filter((c) => c.installed.status === "edited").map((c) => c.name);
    const plan: UpdatePlan = { skills: planned.map((p) => p.skill), refused, skipped: [], current, edited };
    return registerPlan(plan, {
      layout,
      lock,
      placements: planned.map((p) => p.placement),
      entries: planned.map((p) => p.entry),
      cleanup: () => session.close(),
    }) as UpdatePlan;
  } catch (error) {
    await session.close();
    throw error;
  }
}
