import type { Capabilities, CapabilityDiff } from "./types.js";

const LISTS = ["tools", "executables", "commands", "hosts", "env"] as const;

function minus(a: readonly string[], b: readonly string[]): string[] {
  const drop = new Set(b);
  return [...new Set(a.filter((x) => !drop.has(x)))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/**
 * What a skill gained and lost between two audits (`before` the update, `after` it). List
 * entries compare exactly; `hooks` is gained when it turns on and lost when it turns off.
 */
export function diffCapabilities(before: Capabilities, after: Capabilities): CapabilityDiff {
  const gained = {} as Record<(typeof LISTS)[number], string[]>;
  const lost = {} as Record<(typeof LISTS)[number], string[]>;
  for (const kind of LISTS) {
    gained[kind] = minus(after[kind], before[kind]);
    lost[kind] = minus(before[kind], after[kind]);
  }
  const hooksGained = after.hooks && !before.hooks;
  const hooksLost = before.hooks && !after.hooks;
  const changed = hooksGained || hooksLost || LISTS.some((k) => gained[k].length > 0 || lost[k].length > 0);
  return { changed, gained: { ...gained, hooks: hooksGained }, lost: { ...lost, hooks: hooksLost } };
}
