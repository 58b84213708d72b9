import { dirname, isAbsolute } from "node:path";
import { printable, quote, type SkillError } from "../spec/errors.js";
import { isNonLocal, originLabel } from "../spec/origin.js";
import type { LoadFailure } from "../spec/report.js";
import type { FileKey, SkillHead, SourceEntry } from "../spec/skill-source.js";
import type { Diagnostic, ShadowedSkill, SkillMetadata } from "../spec/types.js";

/** What reading and parsing one entry gave. */
export type Outcome =
  | { readonly ok: true; readonly skill: SkillMetadata; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly error: SkillError; readonly diagnostics: readonly Diagnostic[] };

/** Where a slot's metadata came from when its SKILL.md was not read. */
export interface HeadOrigin {
  readonly head: SkillHead;
  /** `source`: the entry carried it (a mismatch on read is tampering); `cache`: the head cache. */
  readonly from: "source" | "cache";
  /** The file state the cached head was stored for. */
  readonly key?: FileKey;
}

/** One entry of one source, with what it gave the last time it was read. */
export interface Slot {
  readonly location: string;
  readonly entry: SourceEntry;
  /** The id of the source that returned it. */
  readonly source?: string;
  /** Who vouches for it: the entry's origin, else the source id, else `manual`. */
  readonly origin: string;
  /** The source keeps the first of two same-named skills (`precedence: "first-wins"`). */
  readonly firstWins?: boolean;
  /**
   * What makes two slots the same skill file: `dev:ino` for a file on disk, the URI for an
   * entry with its own `read`. Unknown (a file that could not be opened): never a duplicate.
   */
  readonly identity?: string;
  /** Set when the metadata came from a head instead of the SKILL.md bytes. */
  readonly head?: HeadOrigin;
  readonly outcome: Outcome;
  /**
   * For a slot that loaded: its skill's own name and the skill, so that the slot is its own
   * {@link Winner} when it wins that name (most do); only a renamed winner is another object.
   */
  readonly key?: string;
  readonly skill?: SkillMetadata;
}

/** A slot that holds a name in the registry. */
export interface Winner extends Slot {
  readonly outcome: Outcome & { readonly ok: true };
  /** The name it is registered under: its own, or `<label>:<name>` for a non-local skill that met a local one. */
  readonly key: string;
  /** What the registry shows: the parsed skill, renamed to `key` when needed. */
  readonly skill: SkillMetadata;
}

/** The registry that a list of slots in precedence order resolves to. */
export interface Resolution {
  /** The winning slot of every registered name. */
  readonly winners: ReadonlyMap<string, Winner>;
  readonly shadowed: readonly ShadowedSkill[];
  readonly failed: readonly LoadFailure[];
  /** Findings of every slot kept (a file reached twice counts once), in precedence order. */
  readonly diagnostics: readonly Diagnostic[];
  /** Folders of every loaded SKILL.md on disk, shadowed ones too (unsorted: sort on use). */
  readonly dirs: ReadonlySet<string>;
}

/** Renamed copies, so that the same parse renamed twice is the same object (updates compare identity). */
const renamed = new WeakMap<SkillMetadata, Map<string, SkillMetadata>>();

function registered(skill: SkillMetadata, key: string): SkillMetadata {
  if (skill.name === key) return skill;
  let byKey = renamed.get(skill);
  if (!byKey) {
    byKey = new Map();
    renamed.set(skill, byKey);
  }
  let copy = byKey.get(key);
  if (!copy) {
    copy = Object.freeze({ ...skill, name: key });
    byKey.set(key, copy);
  }
  return copy;
}

/** The label a non-local skill's key is prefixed with: its source id's label. */
function labelOf(slot: Slot): string {
  return originLabel(slot.source ?? slot.origin);
}

/**
 * The one precedence rule, for a full load, an update and a single `load` alike. `slots`
 * come lowest precedence first (sources in order, each source's entries in order).
 * - The same file reached twice counts once, at its highest-precedence position, silently.
 * - Local skills: a later skill of the same name replaces an earlier one (unless the later
 *   one's source keeps the first match) and the pair is reported as shadowed.
 * - A remote or MCP skill never replaces a local one: when a local skill holds (or later
 *   takes) the name, the non-local one is registered as `<label>:<name>` with a
 *   `name-collision` finding. Non-local skills among themselves follow the local rule.
 * The result depends on the order of `slots` alone, never on I/O timing.
 */
export function resolvePrecedence(slots: readonly Slot[]): Resolution {
  // Plain loops: an update at 10,000 skills runs this whole, so every pass counts.
  const count = slots.length;
  const last = new Map<string, number>();
  let identities = 0;
  for (let i = 0; i < count; i++) {
    const identity = (slots[i] as Slot).identity;
    if (identity === undefined) continue;
    last.set(identity, i);
    identities++;
  }
  // Most registries reach no file twice: then no slot needs looking up again.
  const reachedTwice = last.size < identities;
  const local = new Map<string, Slot>();
  const nonLocal: Slot[] = [];
  const shadowed: ShadowedSkill[] = [];
  const failed: LoadFailure[] = [];
  const diagnostics: Diagnostic[] = [];
  const onDisk: string[] = [];
  const contend = (into: Map<string, Slot>, name: string, slot: Slot) => {
    const previous = into.get(name);
    if (previous && slot.firstWins) {
      shadowed.push({ name, kept: previous.location, dropped: slot.location });
      return;
    }
    if (previous) shadowed.push({ name, kept: slot.location, dropped: previous.location });
    into.set(name, slot);
  };
  for (let i = 0; i < count; i++) {
    const slot = slots[i] as Slot;
    if (reachedTwice && slot.identity !== undefined && last.get(slot.identity) !== i) continue;
    const outcome = slot.outcome;
    for (const d of outcome.diagnostics) diagnostics.push(d);
    if (!outcome.ok) {
      failed.push({ path: slot.location, error: outcome.error });
      continue;
    }
    onDisk.push(slot.location);
    if (isNonLocal(slot.origin)) nonLocal.push(slot);
    else contend(local, outcome.skill.name, slot);
  }

  const winners = new Map<string, Winner>();
  for (const [name, slot] of local) winners.set(name, winner(slot, name));
  const others = new Map<string, Slot>();
  for (const slot of nonLocal) {
    const name = (slot.outcome as { skill: SkillMetadata }).skill.name;
    const key = local.has(name) ? `${labelOf(slot)}:${name}` : name;
    if (key !== name) {
      diagnostics.push({
        code: "name-collision",
        severity: "warning",
        message: `Skill ${quote(name)} from ${slot.origin} has the name of a local skill (${(local.get(name) as Slot).location}); it is registered as ${quote(key)}`,
        path: slot.location,
        field: "name",
      });
    }
    contend(others, key, slot);
  }
  for (const [key, slot] of others) {
    if (winners.has(key)) continue; // a local skill literally named `<label>:<name>` keeps it
    winners.set(key, winner(slot, key));
  }
  for (const s of shadowed) diagnostics.push(shadowDiagnostic(s));
  let dirs: Set<string> | undefined;
  return {
    winners,
    shadowed,
    failed,
    diagnostics,
    // Made on first use (`dirs()`): a load or an update should not pay for what nobody reads.
    get dirs() {
      if (dirs === undefined) {
        dirs = new Set();
        for (const location of onDisk) if (isAbsolute(location)) dirs.add(dirname(location));
      }
      return dirs;
    },
  };
}

/**
 * The resolution once `old` is replaced by `fresh`, when that cannot move any other name: both
 * are the same file (location, identity, origin) under the same name, and `old` held its key.
 * Then every other winner, every shadowed pair, every failure and every folder stay as they
 * were, and only the winner of that key and the slot's own findings change. `undefined` when
 * only a full {@link resolvePrecedence} can tell (renamed, failed, shadowed, another file).
 */
export function replaceWinner(
  before: Resolution,
  old: Slot,
  fresh: Slot,
): { resolution: Resolution; key: string } | undefined {
  if (!old.outcome.ok || !fresh.outcome.ok) return undefined;
  if (
    fresh.location !== old.location ||
    fresh.identity !== old.identity ||
    fresh.origin !== old.origin ||
    fresh.firstWins !== old.firstWins
  ) {
    return undefined;
  }
  const name = old.outcome.skill.name;
  if (fresh.outcome.skill.name !== name) return undefined;
  const keys = isNonLocal(old.origin) ? [name, `${labelOf(old)}:${name}`] : [name];
  const key = keys.find((k) => before.winners.get(k)?.outcome === old.outcome);
  if (key === undefined) return undefined;
  const diagnostics = replaced(before.diagnostics, old.outcome.diagnostics, fresh.outcome.diagnostics);
  if (diagnostics === undefined) return undefined;
  const winners = new Map(before.winners);
  winners.set(key, winner(fresh, key));
  return {
    resolution: {
      winners,
      shadowed: [...before.shadowed],
      failed: [...before.failed],
      diagnostics,
      get dirs() {
        return before.dirs;
      },
    },
    key,
  };
}

/**
 * `list` with the run `from` (found by identity) replaced by `to`; `undefined` when `from` is
 * not one run of `list`, or is empty while `to` is not (nothing says where it would go).
 */
export function replaced<T>(list: readonly T[], from: readonly T[], to: readonly T[]): T[] | undefined {
  if (from.length === 0) return to.length === 0 ? [...list] : undefined;
  const at = list.indexOf(from[0] as T);
  if (at === -1 || list.indexOf(from[0] as T, at + 1) !== -1) return undefined;
  for (let j = 1; j < from.length; j++) if (list[at + j] !== from[j]) return undefined;
  return [...list.slice(0, at), ...to, ...list.slice(at + from.length)];
}

/** The winner made of a slot, by slot and key: an update rebuilds the registry from mostly the same slots. */
const winnersOf = new WeakMap<Slot, Winner>();

function winner(slot: Slot, key: string): Winner {
  if (slot.key === key && slot.skill !== undefined && slot.outcome.ok && slot.skill === slot.outcome.skill) {
    return slot as Winner;
  }
  const known = winnersOf.get(slot);
  if (known !== undefined && known.key === key) return known;
  const skill = (slot.outcome as { skill: SkillMetadata }).skill;
  const made: Winner = {
    ...slot,
    outcome: slot.outcome as Winner["outcome"],
    key,
    skill: registered(skill, key),
  };
  winnersOf.set(slot, made);
  return made;
}

export function shadowDiagnostic(s: ShadowedSkill): Diagnostic {
  return {
    code: "duplicate-name",
    severity: "warning",
    message: `Duplicate skill name: ${printable(s.name)} (${s.kept} replaces ${s.dropped})`,
    path: s.dropped,
    field: "name",
  };
}
