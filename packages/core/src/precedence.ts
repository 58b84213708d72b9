import { dirname, isAbsolute } from "node:path";
import { printable, type SkillError } from "./errors.js";
import type { Diagnostic, LoadFailure, ShadowedSkill, SkillMetadata, SourceEntry } from "./types.js";

/** What reading and parsing one entry gave. */
export type Outcome =
  | { readonly ok: true; readonly skill: SkillMetadata; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly error: SkillError; readonly diagnostics: readonly Diagnostic[] };

/** One entry of one source, with what it gave the last time it was read. */
export interface Slot {
  readonly location: string;
  readonly entry: SourceEntry;
  /** The id of the source that returned it. */
  readonly source?: string;
  /**
   * What makes two slots the same skill file: `dev:ino` for a file on disk, the URI for an
   * entry with its own `read`. Unknown (a file that could not be opened): never a duplicate.
   */
  readonly identity?: string;
  readonly outcome: Outcome;
}

/** The registry that a list of slots in precedence order resolves to. */
export interface Resolution {
  /** The winning slot of every name. */
  readonly winners: ReadonlyMap<string, Slot & { readonly outcome: { readonly ok: true } }>;
  readonly shadowed: readonly ShadowedSkill[];
  readonly failed: readonly LoadFailure[];
  /** Findings of every slot kept (a file reached twice counts once), in precedence order. */
  readonly diagnostics: readonly Diagnostic[];
  /** Folders of every loaded SKILL.md on disk, shadowed ones too (unsorted: sort on use). */
  readonly dirs: ReadonlySet<string>;
}

type Winner = Slot & { readonly outcome: { readonly ok: true } };

/**
 * The one precedence rule, for a full load, an update and a single `load` alike. `slots`
 * come lowest precedence first (sources in order, each source's entries in order). The same
 * file reached twice counts once, at its highest-precedence position, silently; a later skill
 * of the same name replaces an earlier one and the pair is reported as shadowed. The result
 * depends on the order of `slots` alone, never on I/O timing.
 */
export function resolvePrecedence(slots: readonly Slot[]): Resolution {
  const last = new Map<string, number>();
  slots.forEach((slot, i) => {
    if (slot.identity !== undefined) last.set(slot.identity, i);
  });
  const winners = new Map<string, Winner>();
  const shadowed: ShadowedSkill[] = [];
  const failed: LoadFailure[] = [];
  const diagnostics: Diagnostic[] = [];
  const dirs = new Set<string>();
  slots.forEach((slot, i) => {
    if (slot.identity !== undefined && last.get(slot.identity) !== i) return;
    const outcome = slot.outcome;
    diagnostics.push(...outcome.diagnostics);
    if (!outcome.ok) {
      failed.push({ path: slot.location, error: outcome.error });
      return;
    }
    const name = outcome.skill.name;
    if (isAbsolute(slot.location)) dirs.add(dirname(slot.location));
    const previous = winners.get(name);
    if (previous) shadowed.push({ name, kept: slot.location, dropped: previous.location });
    winners.set(name, slot as Winner);
  });
  for (const s of shadowed) diagnostics.push(shadowDiagnostic(s));
  return { winners, shadowed, failed, diagnostics, dirs };
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
