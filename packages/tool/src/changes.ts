import { compareCodeUnits, type SkillMetadata } from "@skill/core";

/**
 * The skills a change note compares, by name. Skills are frozen objects, so holding them costs
 * nothing; they are serialized only when two differ by identity.
 */
export type Snapshot = ReadonlyMap<string, SkillMetadata>;

/** Names a change note spells out per kind before "and N more". */
const SHOWN = 10;

/** JSON with keys sorted, so two parses of one file compare equal whatever their key order. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareCodeUnits(a, b)),
        )
      : v,
  );
}

/** The skills as a change note compares them, by name. */
export function snapshot(skills: readonly SkillMetadata[]): Snapshot {
  return new Map(skills.map((s) => [s.name, s]));
}

/** Whether a change note counts `before` → `after` as a change: location, description or frontmatter. */
function differ(before: SkillMetadata, after: SkillMetadata): boolean {
  return (
    before !== after &&
    stable([before.location, before.description, before.frontmatter]) !==
      stable([after.location, after.description, after.frontmatter])
  );
}

function names(list: readonly string[]): string {
  const shown = list.slice(0, SHOWN).join(", ");
  return list.length > SHOWN ? `${shown} and ${list.length - SHOWN} more` : shown;
}

/**
 * One short note for the model about what changed between two snapshots, or `undefined`
 * when nothing did: "Skills changed since the last note: added a; changed b; removed c. …"
 */
export function changeNote(before: Snapshot, after: Snapshot, tool: string): string | undefined {
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [name, skill] of after) {
    const old = before.get(name);
    if (old === undefined) added.push(name);
    else if (differ(old, skill)) changed.push(name);
  }
  for (const name of before.keys()) if (!after.has(name)) removed.push(name);
  if (added.length + changed.length + removed.length === 0) return undefined;
  const parts = [
    ...(added.length > 0 ? [`added ${names(added.sort(compareCodeUnits))}`] : []),
    ...(changed.length > 0 ? [`changed ${names(changed.sort(compareCodeUnits))}`] : []),
    ...(removed.length > 0 ? [`removed ${names(removed.sort(compareCodeUnits))}`] : []),
  ];
  // The tool's description holds still for the session: this note is how the model hears.
  const load =
    added.length + changed.length > 0 ? ` The ${tool} tool loads them by name, listed or not.` : "";
  const reload = changed.length > 0 ? " Load a changed skill again before following it." : "";
  return `Skills changed since the last note: ${parts.join("; ")}.${load}${reload}`;
}
