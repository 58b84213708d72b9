import { dirname, isAbsolute, sep } from "node:path";
import type { ShadowedSkill, SkillMetadata } from "@skill/core";
import { isWithin } from "./paths.js";

/** How a shadowed pair is one skill installed twice, the way nested skills are installed. */
export interface NestedCopy {
  /** The name of the parent skill whose folder holds the copy. */
  readonly parent: string;
  /** The copy inside the parent's folder: the pair's `kept` or its `dropped` location. */
  readonly inside: string;
}

/** A pair of `LoadReport.shadowed`, with `nested` when it is a nested copy and not a real shadow. */
export interface ClassifiedShadow extends ShadowedSkill {
  readonly nested?: NestedCopy;
}

/**
 * Tells the nested copies among a load's shadowed pairs from real shadows. A skill folder
 * `parent/` that holds `parent/child/SKILL.md` is installed (as Vercel's `skills` CLI does) by
 * copying `parent/` whole, `child/` inside it, and by installing `child/` as its own folder
 * beside it: a scan then finds `child` twice. A pair is such a nested copy when one copy lies
 * inside the folder of another skill (its parent: loaded, or itself shadowed) and the other
 * copy's folder sits beside that folder — or, nested deeper, has the same path below their
 * common folder as the first copy has below its parent's. Same-named skills in other roots or
 * in unrelated folders stay plain shadows. Paths only, no I/O.
 *
 * @param shadowed - `LoadReport.shadowed`.
 * @param skills - The loaded skills (`service.all()`): with `shadowed`, every skill a parent can be.
 * @returns `shadowed` in its order, each pair as it was, plus `nested` on the nested copies.
 *
 * @example
 * const report = await service.discoverAndLoad();
 * const real = classifyShadowed(report.shadowed, service.all()).filter((s) => !s.nested);
 */
export function classifyShadowed(
  shadowed: readonly ShadowedSkill[],
  skills: readonly Pick<SkillMetadata, "name" | "location">[],
): ClassifiedShadow[] {
  if (shadowed.length === 0) return [];
  const nameOf = new Map<string, string>();
  for (const s of skills) nameOf.set(dirname(s.location), s.name);
  for (const s of shadowed) {
    nameOf.set(dirname(s.kept), s.name);
    nameOf.set(dirname(s.dropped), s.name);
  }
  return shadowed.map((pair) => {
    // The dropped copy first: when both lie inside parents, it is the one a reader asks about.
    const nested =
      insideParent(pair.dropped, pair.kept, pair.name, nameOf) ??
      insideParent(pair.kept, pair.dropped, pair.name, nameOf);
    return nested === undefined ? pair : { ...pair, nested };
  });
}

/**
 * `copy` as a nested copy of `other`: inside the folder of a skill not called `name` whose
 * containing folder holds `other`'s folder directly, or holds it inside another such skill
 * folder with the same path below it as `copy` has. The parent named is the nearest one.
 */
function insideParent(
  copy: string,
  other: string,
  name: string,
  nameOf: ReadonlyMap<string, string>,
): NestedCopy | undefined {
  if (!isAbsolute(copy) || !isAbsolute(other)) return undefined;
  const folder = dirname(copy);
  const otherFolder = dirname(other);
  if (isWithin(folder, otherFolder)) return undefined; // a namesake inside the skill itself
  let parent: string | undefined;
  for (let dir = dirname(folder); dirname(dir) !== dir; dir = dirname(dir)) {
    const skill = nameOf.get(dir);
    if (skill === undefined || skill === name) continue;
    parent ??= skill;
    const base = dirname(dir).replace(/[\\/]$/, "");
    if (!isWithin(otherFolder, dir) && otherFolder.startsWith(base + sep)) {
      // `other` below `base`, led by a separator: `/child`, or `/parent/child` for a copy in another parent.
      const below = otherFolder.slice(base.length);
      const top = below.indexOf(sep, 1);
      if (top < 0) return { parent, inside: copy };
      if (nameOf.has(base + below.slice(0, top)) && folder.endsWith(below)) return { parent, inside: copy };
    }
  }
  return undefined;
}
