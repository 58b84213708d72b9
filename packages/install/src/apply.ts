import { realpath } from "node:fs/promises";
import { SkillError } from "@skill/core";
import { inOrder } from "./limit.js";
import { applyPlacement } from "./placement.js";
import { type PlanState, stateOf } from "./plan-state.js";
import type { ApplyOptions, InstallPlan, InstallReport, RefusedSkill } from "./types.js";

/** Skills placed at once. */
const PARALLEL = 8;

/** The names `review` let through: all, none, or the ones it listed. */
async function reviewed(plan: InstallPlan, options: ApplyOptions): Promise<ReadonlySet<string>> {
  const all = new Set(plan.skills.map((s) => s.name));
  if (options.review === undefined) return all;
  const answer = await options.review(plan);
  if (answer === true) return all;
  if (answer === false) return new Set();
  return new Set(answer.filter((name) => all.has(name)));
}

/** Refuses the whole plan, before anything is written, when a skill is blocked and `force` was not given. */
function refuseBlocked(plan: InstallPlan): void {
  const blocked = plan.skills.flatMap((s) => s.blocked ?? []);
  if (blocked.length === 0) return;
  throw new SkillError(
    "WRITE_ERROR",
    `Not installing: ${blocked.join("; ")}. Nothing was changed; force replaces ${blocked.length === 1 ? "it" : "them"}`,
  );
}

/** Places the skills `chosen` names (and only those), then writes the lock; returns what was done. */
async function place(
  plan: InstallPlan,
  state: PlanState,
  chosen: ReadonlySet<string>,
): Promise<InstallReport> {
  const { layout, lock } = state;
  const picked = state.placements.map((p, i) => ({ p, i })).filter(({ p }) => chosen.has(p.placement.name));
  let placed = 0;
  const written = await inOrder(picked, PARALLEL, async ({ p }) => {
    const paths = await applyPlacement(layout, p);
    layout.progress({ step: "place", name: p.placement.name, done: ++placed, total: picked.length });
    return paths;
  });
  const now = new Date().toISOString();
  const entries = state.entries ?? [];
  for (const { i } of picked) {
    const entry = entries[i];
    if (entry !== undefined) lock.set(entry, now);
  }
  const report = {
    installed: await Promise.all(
      picked.map(async ({ p }) => ({
        name: p.placement.name,
        folder: await realpath(p.canonical),
        computedHash: p.placement.hash,
      })),
    ),
    written: written.flat(),
  };
  if ((picked.length === 0 || state.entries === undefined) && !state.saveLock) {
    return { ...report, refused: plan.refused };
  }
  layout.progress({ step: "lock" });
  await lock.save();
  const lockFile = await realpath(lock.file);
  return { ...report, refused: plan.refused, written: [...report.written, lockFile], lock: lockFile };
}

/**
 * Carries out a plan of {@link planAdd}, {@link planUpdate} or {@link restore}'s: after
 * `review` (which may let all, none, or some of the skills through), each skill's canonical copy
 * is written whole through core's `stageSkillFolder` and each agent's link through `linkInside`
 * (copies where a link would leave a bound), then the lock. Nothing is written outside the
 * scope: every destination was checked when planning and is checked again when written. A
 * blocked skill (something in the way, without `force`) refuses the whole plan before anything
 * is written. The fetched source is removed afterwards, whatever happens.
 *
 * @throws SkillError `WRITE_ERROR` (blocked, or a write failed), `UNSAFE_PATH`, `INVALID_FIELD`
 *   (not a plan made here, or one applied already), `ABORTED`.
 */
export async function applyPlan(plan: InstallPlan, options: ApplyOptions = {}): Promise<InstallReport> {
  const state = stateOf(plan);
  state.closed = true;
  try {
    const chosen = await reviewed(plan, options);
    if (chosen.size > 0) refuseBlocked({ ...plan, skills: plan.skills.filter((s) => chosen.has(s.name)) });
    const report = await place(plan, state, chosen);
    const declined: RefusedSkill[] = plan.skills
      .filter((s) => !chosen.has(s.name))
      .map((s) => ({ name: s.name, code: "ABORTED", reason: "not confirmed in review" }));
    return declined.length === 0 ? report : { ...report, refused: [...report.refused, ...declined] };
  } finally {
    await state.cleanup();
  }
}
