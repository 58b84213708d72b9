import { isAbsolute } from "node:path";
import { isInside } from "../files/inside.js";
import { printable, quote, SkillError } from "../spec/errors.js";
import type { SkillEvents } from "../spec/logging.js";
import type { LoadFailure, LoadReport } from "../spec/report.js";
import type { AgentInfo, PermissionAction, PermissionPolicy } from "../spec/service-options.js";
import type { SkillSource, SkippedPath } from "../spec/skill-source.js";
import type { Diagnostic, ShadowedSkill, SkillMetadata } from "../spec/types.js";
import { didYouMean } from "../util/did-you-mean.js";
import { compareCodeUnits } from "../util/text.js";
import { failureDiagnostic } from "./outcome.js";
import {
  type Resolution,
  replaced,
  replaceWinner,
  resolvePrecedence,
  type Slot,
  type Winner,
} from "./precedence.js";

/** Names a NOT_FOUND message lists before "and N more". */
const MAX_LISTED_NAMES = 20;

/** What one source gave on its last scan. */
export interface Group {
  /** `undefined` for skills added one by one with `load()`. */
  readonly source?: SkillSource;
  readonly dirs: readonly string[];
  readonly slots: readonly Slot[];
  readonly diagnostics: readonly Diagnostic[];
  readonly skipped?: readonly SkippedPath[];
  readonly failure?: LoadFailure;
}

/** One state of the registry: built whole, swapped in whole. */
export interface Registry {
  /** One per source in precedence order, then the `load()` group. */
  readonly groups: readonly Group[];
  readonly resolution: Resolution;
  readonly report: LoadReport;
  /** `dirs()`, sorted on first use: an update should not pay for a sort nobody reads. */
  sortedDirs?: string[];
  /** The winners by skill name (code-unit order, ties in registry order), sorted on first use by `all()`. */
  sortedWinners?: readonly Winner[];
}

const NO_SLOTS: readonly Slot[] = [];

export function emptyGroup(source?: SkillSource): Group {
  return { ...(source ? { source } : {}), dirs: [], slots: NO_SLOTS, diagnostics: [] };
}

export function buildRegistry(groups: readonly Group[]): Registry {
  // Plain loops, no flatMap: an update at 10,000 skills builds a registry whole.
  const slots: Slot[] = [];
  const sourceFailures: LoadFailure[] = [];
  const skipped: SkippedPath[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const g of groups) {
    for (const slot of g.slots) slots.push(slot);
    if (g.failure) sourceFailures.push(g.failure);
    if (g.skipped) for (const s of g.skipped) skipped.push(s);
    for (const d of g.diagnostics) diagnostics.push(d);
  }
  const resolution = resolvePrecedence(slots);
  for (const f of sourceFailures) diagnostics.push({ ...failureDiagnostic(f.error, f.path), source: f.path });
  for (const d of resolution.diagnostics) diagnostics.push(d);
  const failed = [...sourceFailures];
  for (const f of resolution.failed) failed.push(f);
  const report: LoadReport = {
    loaded: resolution.winners.size,
    failed,
    shadowed: resolution.shadowed,
    diagnostics,
    ...(skipped.length > 0 ? { skipped } : {}),
  };
  return { groups, resolution, report };
}

/**
 * The registry with re-read slots in place of their old ones, without resolving every name
 * again: only when each location is held by one slot, and its re-read is the same file under
 * the same name that won before (see `replaceWinner`). Gives the keys whose skill changed, as
 * {@link diffWinners} would; `undefined` when a full {@link buildRegistry} is needed.
 */
export function patchRegistry(
  current: Registry,
  fresh: ReadonlyMap<string, Slot | undefined>,
): { registry: Registry; changed: string[] } | undefined {
  const groups = [...current.groups];
  let resolution = current.resolution;
  let diagnostics: readonly Diagnostic[] = current.report.diagnostics;
  const changed = new Set<string>();
  for (const [location, slot] of fresh) {
    if (!slot) return undefined;
    let held: { group: number; at: number } | undefined;
    for (let g = 0; g < groups.length; g++) {
      const slots = (groups[g] as Group).slots;
      for (let i = 0; i < slots.length; i++) {
        if ((slots[i] as Slot).location !== location) continue;
        if (held) return undefined;
        held = { group: g, at: i };
      }
    }
    if (!held) return undefined;
    const group = groups[held.group] as Group;
    const old = group.slots[held.at] as Slot;
    const next = replaceWinner(resolution, old, slot);
    const report = next && replaced(diagnostics, old.outcome.diagnostics, slot.outcome.diagnostics);
    if (!next || !report) return undefined;
    const slots = [...group.slots];
    slots[held.at] = slot;
    groups[held.group] = { ...group, slots };
    if (resolution.winners.get(next.key)?.skill !== next.resolution.winners.get(next.key)?.skill) {
      changed.add(next.key);
    }
    resolution = next.resolution;
    diagnostics = report;
  }
  const report: LoadReport = {
    ...current.report,
    failed: [...current.report.failed],
    shadowed: resolution.shadowed,
    diagnostics,
    ...(current.report.skipped ? { skipped: [...current.report.skipped] } : {}),
  };
  return { registry: { groups, resolution, report }, changed: [...changed].sort(compareCodeUnits) };
}

/**
 * What an agent may do with a winner. Both its registry key and its own frontmatter name
 * are checked, and the stricter answer holds: renaming a skill never escapes a deny.
 */
export function actionOf(
  policy: PermissionPolicy | undefined,
  agent: AgentInfo | undefined,
  winner: Winner,
): PermissionAction {
  if (!agent || !policy) return "allow";
  const byKey = policy.evaluate(agent, "skill", winner.key);
  const own = winner.outcome.skill.name;
  if (own === winner.key || byKey === "deny") return byKey;
  const byName = policy.evaluate(agent, "skill", own);
  if (byName === "deny") return "deny";
  return byKey === "ask" || byName === "ask" ? "ask" : "allow";
}

/** Answers lookups on one registry for an agent: a denied skill is, for that agent, missing. */
export class Lookups {
  readonly #registry: Registry;
  readonly #policy: PermissionPolicy | undefined;
  readonly #unfiltered: ((agent: AgentInfo) => void) | undefined;

  /** `unfiltered`: told of an agent whose own permission rules no policy applies (none given). */
  constructor(
    registry: Registry,
    policy: PermissionPolicy | undefined,
    unfiltered?: (agent: AgentInfo) => void,
  ) {
    this.#registry = registry;
    this.#policy = policy;
    this.#unfiltered = unfiltered;
  }

  #check(agent: AgentInfo | undefined): void {
    if (agent?.permission !== undefined && this.#policy === undefined) this.#unfiltered?.(agent);
  }

  visible(name: string, agent: AgentInfo | undefined): Winner | undefined {
    this.#check(agent);
    const winner = this.#registry.resolution.winners.get(name);
    if (!winner || actionOf(this.#policy, agent, winner) === "deny") return undefined;
    return winner;
  }

  /** The winner of that name for `agent`, or `NOT_FOUND` exactly as for a name that does not exist. */
  require(name: string, agent: AgentInfo | undefined): Winner {
    const winner = this.visible(name, agent);
    if (!winner) throw this.notFound(name, agent);
    return winner;
  }

  access(name: string, agent: AgentInfo): PermissionAction | undefined {
    const winner = this.visible(name, agent);
    return winner ? actionOf(this.#policy, agent, winner) : undefined;
  }

  all(agent: AgentInfo | undefined): SkillMetadata[] {
    this.#check(agent);
    // Sorted once per registry: a harness asks for the list on every turn, a doctor per agent.
    const registry = this.#registry;
    registry.sortedWinners ??= [...registry.resolution.winners.values()].sort((a, b) =>
      compareCodeUnits(a.skill.name, b.skill.name),
    );
    const out: SkillMetadata[] = [];
    for (const winner of registry.sortedWinners) {
      if (actionOf(this.#policy, agent, winner) === "deny") continue;
      out.push(winner.skill);
    }
    return out;
  }

  notFound(name: string, agent: AgentInfo | undefined): SkillError {
    const visible = this.all(agent).map((s) => s.name);
    const names = visible.map((n) => printable(n));
    const shown = names.slice(0, MAX_LISTED_NAMES).join(", ");
    const more = names.length > MAX_LISTED_NAMES ? ` and ${names.length - MAX_LISTED_NAMES} more` : "";
    return new SkillError(
      "NOT_FOUND",
      `Skill ${quote(name)} not found.${didYouMean(name, visible)} Available skills: ${names.length > 0 ? shown + more : "none"}`,
    );
  }
}

/** The group a new location belongs to: the deepest dir holding it; on a tie, the later source. */
export function ownerOf(groups: readonly Group[], location: string): Group | undefined {
  if (!isAbsolute(location)) return undefined;
  let best: Group | undefined;
  let depth = -1;
  for (const group of groups) {
    if (!group.source) continue;
    for (const dir of group.dirs) {
      if (!isInside(dir, location)) continue;
      if (dir.length >= depth) {
        depth = dir.length;
        best = group;
      }
    }
  }
  return best;
}

export function findSlot(
  groups: readonly Group[],
  location: string,
): { group: Group; slot: Slot } | undefined {
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i] as Group;
    const slot = group.slots.find((s) => s.location === location);
    if (slot) return { group, slot };
  }
  return undefined;
}

export function pairKey(s: ShadowedSkill): string {
  return `${s.name}\0${s.kept}\0${s.dropped}`;
}

/** Names added, changed (another skill object or location won) and removed between two registries. */
export function diffWinners(before: Resolution, after: Resolution): SkillEvents["skill.changed"] {
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [name, winner] of after.winners) {
    const old = before.winners.get(name);
    if (!old) added.push(name);
    else if (old.skill !== winner.skill) changed.push(name);
  }
  for (const name of before.winners.keys()) if (!after.winners.has(name)) removed.push(name);
  return {
    added: added.sort(compareCodeUnits),
    changed: changed.sort(compareCodeUnits),
    removed: removed.sort(compareCodeUnits),
  };
}

/** The registry with re-read slots put in place, added or removed, every name resolved again. */
export function rebuildRegistry(current: Registry, read: ReadonlyMap<string, Slot | undefined>): Registry {
  const groups = current.groups.map((group) => {
    let slots: Slot[] | undefined;
    for (const [location, fresh] of read) {
      const at = group.slots.findIndex((s) => s.location === location);
      if (at === -1) continue;
      slots ??= [...group.slots];
      if (fresh) slots[at] = fresh;
      else slots.splice(at, 1);
    }
    return slots ? { ...group, slots } : group;
  });
  for (const [location, fresh] of read) {
    if (!fresh || findSlot(groups, location)) continue;
    const group = ownerOf(groups, location);
    if (!group) continue;
    const slots = [...group.slots];
    let at = slots.findIndex((s) => compareCodeUnits(s.location, location) > 0);
    if (at === -1) at = slots.length;
    slots.splice(at, 0, fresh);
    groups[groups.indexOf(group)] = { ...group, slots };
  }

  return buildRegistry(groups);
}
