import { SkillError } from "@skill/core";
import type { LockedSkill, ScopeLock } from "./lock-store.js";
import type { PlacementPlan } from "./placement.js";
import type { ScopeLayout } from "./scope.js";
import type { InstallPlan } from "./types.js";

/** What `applyPlan` needs of a plan beyond its plain data: kept aside, by plan. */
export interface PlanState {
  readonly layout: ScopeLayout;
  readonly lock: ScopeLock;
  /** One per `plan.skills` entry, in its order. */
  readonly placements: readonly PlacementPlan[];
  /** The lock entry each placed skill gets, in the same order; none for a restore (the lock is not changed). */
  readonly entries?: readonly (LockedSkill & { readonly hash: string })[];
  /** Write the lock even when nothing is placed (a restore that reformats it). */
  readonly saveLock?: boolean;
  /** Removes what the plan fetched (clones, pulls). */
  readonly cleanup: () => Promise<void>;
  closed: boolean;
}

const STATES = new WeakMap<InstallPlan, PlanState>();

/** Freezes `plan` and keeps `state` for it. */
export function registerPlan(plan: InstallPlan, state: Omit<PlanState, "closed">): InstallPlan {
  const frozen = Object.freeze(plan);
  STATES.set(frozen, { ...state, closed: false });
  return frozen;
}

/** The state of a plan made here and not applied or discarded yet. */
export function stateOf(plan: InstallPlan): PlanState {
  const state = STATES.get(plan);
  if (state === undefined || state.closed) {
    throw new SkillError(
      "INVALID_FIELD",
      state === undefined
        ? "Not a plan from planAdd, planUpdate or restore: pass the plan object it returned"
        : "This plan was applied or discarded already: plan again",
      { field: "plan" },
    );
  }
  return state;
}

/** Removes what a plan fetched without applying it (a clone, a pull). Harmless on a plan already applied or discarded. */
export async function discardPlan(plan: InstallPlan): Promise<void> {
  const state = STATES.get(plan);
  if (state === undefined || state.closed) return;
  state.closed = true;
  await state.cleanup();
}
