import type { SkillMetadata } from "@skill/core";
import { createSkillIndex, MAX_SEARCH_LIMIT } from "@skill/search";

/**
 * The search index a pack's page carries: each word of the skills' names and descriptions →
 * the skills (positions on the page) that `@skill/search` finds for it, plus those that hold
 * the word itself. The page's script matches what is typed against these words by prefix, so
 * the ranking rules (stems, word forms, words that stand for others) stay in `@skill/search`.
 */
export interface PageIndex {
  /** `[word, positions]`, by word (pairs, not an object: a word such as `__proto__` stays a word). */
  readonly words: readonly (readonly [string, readonly number[]])[];
}

/** Words as the page's script reads a query: runs of letters and digits, lower case. */
const WORD = /[\p{L}\p{N}]+/gu;

/** The most words a page indexes (the first met, skill by skill): a bound on the page's size. */
const MAX_WORDS = 50_000;

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Each word of the skills (at least two characters) → the positions of the skills that hold it. */
function wordsBySkill(skills: readonly SkillMetadata[]): Map<string, Set<number>> {
  const held = new Map<string, Set<number>>();
  skills.forEach((skill, position) => {
    for (const word of [...wordsOf(skill.name), ...wordsOf(skill.description)]) {
      if (word.length < 2) continue;
      let at = held.get(word);
      if (at === undefined) {
        if (held.size === MAX_WORDS) continue;
        at = new Set();
        held.set(word, at);
      }
      at.add(position);
    }
  });
  return held;
}

/** The page's index of `skills` (in page order). */
export function pageIndex(skills: readonly SkillMetadata[]): PageIndex {
  const position = new Map<string, number>();
  skills.forEach((skill, i) => {
    if (!position.has(skill.name)) position.set(skill.name, i);
  });
  const index = createSkillIndex(skills);
  const words: [string, number[]][] = [];
  const held = wordsBySkill(skills);
  for (const word of [...held.keys()].sort()) {
    const found = new Set(held.get(word));
    for (const hit of index.search(word, { limit: MAX_SEARCH_LIMIT })) {
      const at = position.get(hit.name);
      if (at !== undefined) found.add(at);
    }
    words.push([word, [...found].sort((a, b) => a - b)]);
  }
  return { words };
}
