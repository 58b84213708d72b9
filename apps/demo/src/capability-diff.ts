import type { Capabilities, CapabilityDiff } from "@skill/audit";
import { printable } from "@skill/core";

type Kind = Exclude<keyof Capabilities, "hooks">;

/** How each kind is named in a diff line: `+ tool Bash(*)`, `+ exec scripts/install.sh`. */
const LABELS: readonly (readonly [Kind, string])[] = [
  ["tools", "tool"],
  ["executables", "exec"],
  ["commands", "command"],
  ["hosts", "host"],
  ["env", "env"],
];

function entry(text: string): string {
  const flat = printable(text.replace(/\s+/g, " ").trim());
  const chars = [...flat];
  return chars.length > 60 ? `${chars.slice(0, 59).join("")}…` : flat;
}

function side(sign: "+" | "-", changes: CapabilityDiff["gained"], max: number): string {
  const items: string[] = [];
  for (const [kind, label] of LABELS)
    for (const value of changes[kind]) items.push(`${sign} ${label} ${entry(value)}`);
  if (changes.hooks) items.push(`${sign} hooks`);
  if (items.length > max) return [...items.slice(0, max), `(${items.length - max} more)`].join(", ");
  return items.join(", ");
}

/**
 * A capability diff in one or two lines, gained first: `+ tool Bash(*), + exec
 * scripts/install.sh, + host evil.example`, then `- host old.example`. No lines when nothing
 * changed. Entries are made printable and cut to 60 characters; at most `max` per line.
 */
export function formatCapabilityDiff(diff: CapabilityDiff, options: { max?: number } = {}): string[] {
  if (!diff.changed) return [];
  const max = options.max ?? 12;
  return [side("+", diff.gained, max), side("-", diff.lost, max)].filter((line) => line !== "");
}
