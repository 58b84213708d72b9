import { compareCodeUnits, type SkillHit, type SkillMetadata, type SkillSearch } from "@skill/core";

/**
 * A small search over names and descriptions for the CLI's skill tools: each query word (or
 * its first five letters, for word forms) found in a skill scores, name hits double. Enough
 * for `skill_search` to be offered and answer; a harness uses a real index (`@skill/search`).
 */
export function wordSearch(): SkillSearch {
  let skills: readonly { name: string; words: string }[] = [];
  return {
    replace(list: readonly SkillMetadata[]) {
      skills = list.map((s) => ({ name: s.name, words: `${s.name} ${s.description}`.toLowerCase() }));
    },
    search(query: string, options?: { readonly limit?: number }): SkillHit[] {
      const words = query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 1);
      const hits: SkillHit[] = [];
      for (const s of skills) {
        const terms = words.filter((w) => s.words.includes(w.length > 5 ? w.slice(0, 5) : w));
        if (terms.length === 0) continue;
        const score = terms.reduce((sum, w) => sum + (s.name.includes(w) ? 2 : 1), 0);
        hits.push({ name: s.name, score, terms });
      }
      return hits
        .sort((a, b) => b.score - a.score || compareCodeUnits(a.name, b.name))
        .slice(0, options?.limit ?? 8);
    },
  };
}
