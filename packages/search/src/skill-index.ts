import {
  compareCodeUnits,
  isMapping,
  quote,
  SkillError,
  type SkillHit,
  type SkillMetadata,
  type SkillSearch,
} from "@skill/core";
import MiniSearch from "minisearch";
import { ANALYZER, fieldTerms, term, words } from "./analyze.js";
import { type Doc, FIELDS, miniSearchOptions } from "./fields.js";
import { buildIndex, loadIndex } from "./mini.js";
import { type Ranking, rankingOf, type SkillIndexOptions } from "./ranking.js";
import { EXPANSION_WEIGHT, expansionsOfTerm, isFiller } from "./request-words.js";
import { FORMAT, FORMAT_VERSION, fingerprint, type Persisted, readPersisted } from "./saved-index.js";
import { docOf, sameSkill, sameText } from "./skill-doc.js";
import { snapshotOf } from "./snapshot.js";

/** Hits returned when a search gives no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 8;
/** The most hits one search returns, whatever `limit` asks. */
export const MAX_SEARCH_LIMIT = 100;

/** A ranked search over skill metadata that follows the registry (see {@link createSkillIndex}). */
export interface SkillIndex extends SkillSearch {
  /** Skills held. */
  readonly size: number;
  /**
   * Best first, at most `limit` (default 8, at most 100); equal scores in name order. `[]` for
   * an empty or unmatched query, or a query that is not a string; never throws.
   */
  search(query: string, options?: { readonly limit?: number }): readonly SkillHit[];
  /**
   * Makes the index hold exactly `skills` (by name; the first of a repeated name counts), touching
   * only what differs. A skill counts as changed when its location, description, frontmatter or
   * summary do.
   */
  replace(skills: readonly SkillMetadata[]): { added: number; changed: number; removed: number };
  /** A JSON-safe snapshot for {@link loadSkillIndex} (store it beside a head cache for warm starts). */
  toJSON(): unknown;
}

/** Longest query read, in UTF-16 code units, and most distinct words searched: the rest is ignored. */
const MAX_QUERY_LENGTH = 2_000;
const MAX_QUERY_TERMS = 32;

/**
 * An index of `skills` (their names, descriptions, `metadata` keywords, `when_to_use`, and the
 * body's summary when the load took one; nothing is read). Build it from what the agent may see,
 * e.g. `service.all(agent)`, so a denied skill is never found.
 *
 * @throws SkillError `INVALID_FIELD` when `skills` is not a list or an option is out of range
 * @example
 * const index = createSkillIndex(service.all(agent));
 * index.search("fill in a PDF form"); // [{ name: "pdf", score: 160.396857, terms: ["fill", "pdf", "form"] }, …]
 */
export function createSkillIndex(
  skills: readonly SkillMetadata[],
  options: SkillIndexOptions = {},
): SkillIndex {
  const list = checkList(skills);
  return new Index(rankingOf(options)).rebuild(byName(list), list);
}

/**
 * An index of `skills` that reuses `json` (from {@link SkillIndex.toJSON}) for every skill whose
 * location, description, frontmatter and summary are unchanged, and indexes the rest. Anything else in
 * `json` — another version, another format, damage — gives a freshly built index; never throws
 * for it.
 *
 * @throws SkillError `INVALID_FIELD` when `skills` is not a list or an option is out of range
 */
export function loadSkillIndex(
  json: unknown,
  skills: readonly SkillMetadata[],
  options: SkillIndexOptions = {},
): SkillIndex {
  const ranking = rankingOf(options);
  const list = checkList(skills);
  const wanted = byName(list);
  const persisted = readPersisted(json);
  if (persisted) {
    try {
      // Documents of skills that are gone or changed are left out as the index is loaded, so no
      // stale term lingers to skew a ranking.
      const { mini, vocabulary } = loadIndex(persisted.index, (position, name) => {
        const skill = wanted.get(name);
        return skill !== undefined && persisted.fingerprints[position] === fingerprint(skill);
      });
      const fresh = [...wanted.values()].filter((skill) => !mini.has(skill.name));
      return new Index(ranking).adopt(mini, vocabulary, wanted, list, fresh);
    } catch {
      // Not an index this version can read: build afresh below.
    }
  }
  return new Index(ranking).rebuild(wanted, list);
}

class Index implements SkillIndex {
  readonly #ranking: Ranking;
  #mini = new MiniSearch<Doc>(miniSearchOptions);
  /** Every term indexed since the last rebuild: a query word found here is not looked up fuzzily. */
  #vocabulary = new Set<string>();
  /** What each indexed name was indexed from. */
  #held = new Map<string, SkillMetadata>();
  /** A copy of the list the index was last made to hold. */
  #list: readonly SkillMetadata[] = [];

  constructor(ranking: Ranking) {
    this.#ranking = ranking;
  }

  get size(): number {
    return this.#held.size;
  }

  search(query: string, options?: { readonly limit?: number }): readonly SkillHit[] {
    if (typeof query !== "string" || this.#held.size === 0) return [];
    const limit = limitOf(options);
    if (limit === 0) return [];
    const text = query.length > MAX_QUERY_LENGTH ? query.slice(0, MAX_QUERY_LENGTH) : query;
    const { said, searched, added } = queryTerms(text, this.#vocabulary);
    if (said.size === 0) return [];
    const { boost, fuzzy, prefix } = this.#ranking;
    const vocabulary = this.#vocabulary;
    let results: Results;
    try {
      results = this.#mini.search([...searched.keys()].join(" "), {
        tokenize: (s) => s.split(" "),
        processTerm: (t) => t,
        boost: { ...boost },
        // A word the index knows is taken as meant; only unknown words are read as typos (an
        // added word is always known). A word the request did not say is taken exactly.
        fuzzy: (t) => (fuzzy > 0 && t.length >= 4 && !vocabulary.has(t) ? fuzzy : false),
        prefix: (t) => prefix && t.length >= 4 && searched.get(t) === t,
        boostTerm: (t) => (searched.get(t) === t ? 1 : EXPANSION_WEIGHT),
        combineWith: "OR",
      });
    } catch {
      return [];
    }
    // MiniSearch multiplies a score by the number of query terms matched; here a word the
    // request said counts once, whether a skill matched it or words it stands for.
    const floor = added ? rescore(results, searched, limit) : floorOf(results, limit);
    const hits: SkillHit[] = [];
    for (const r of results) {
      const score = rounded(r.score);
      if (score < floor) {
        if (added) continue;
        break; // in MiniSearch's order: nothing after it scores more
      }
      const terms = new Set(r.queryTerms.map((t) => said.get(searched.get(t) ?? t) ?? t));
      hits.push({ name: String(r.id), score, terms: [...terms] });
    }
    hits.sort((a, b) => b.score - a.score || compareCodeUnits(a.name, b.name));
    return hits.slice(0, limit);
  }

  replace(skills: readonly SkillMetadata[]): { added: number; changed: number; removed: number } {
    const inPlace = this.#inPlace(checkList(skills));
    if (inPlace !== undefined) return inPlace;
    const next = byName(skills);
    const gone: string[] = [];
    for (const name of this.#held.keys()) if (!next.has(name)) gone.push(name);
    const fresh: SkillMetadata[] = [];
    const stale: SkillMetadata[] = [];
    let changed = 0;
    for (const [name, skill] of next) {
      const old = this.#held.get(name);
      if (old === undefined) fresh.push(skill);
      else if (old !== skill && !sameSkill(old, skill)) {
        changed++;
        if (!sameText(docOf(old), docOf(skill))) {
          stale.push(old);
          fresh.push(skill);
        }
      }
    }
    const counts = { added: fresh.length - stale.length, changed, removed: gone.length };
    if (gone.length + fresh.length > Math.max(64, next.size / 4)) {
      this.rebuild(next, skills);
      return counts;
    }
    // `remove` (not `discard`) takes every term of the old document out now: a discarded one
    // lingers in the term lists until a search meets it, and skews the scores of that search.
    for (const name of gone) this.#mini.remove(docOf(this.#held.get(name) as SkillMetadata));
    for (const old of stale) this.#mini.remove(docOf(old));
    for (const skill of fresh) this.#add(docOf(skill));
    this.#held = next;
    this.#list = skills.slice();
    return counts;
  }

  /**
   * {@link replace} for the common call: the list given last time with a few skills replaced
   * by others of the same name, found by comparing the two lists position by position (a
   * registry keeps the objects of unchanged skills). Works only while every entry of the list
   * is a distinct, valid name that the index holds; `undefined` for anything else, which the
   * caller handles by name.
   */
  #inPlace(skills: readonly SkillMetadata[]): { added: 0; changed: number; removed: 0 } | undefined {
    const list = this.#list;
    const held = this.#held;
    if (skills.length !== list.length || held.size !== list.length) return undefined;
    const at: number[] = [];
    for (let i = 0; i < list.length; i++) {
      if (skills[i] === list[i]) continue;
      const name = (skills[i] as Partial<SkillMetadata> | null)?.name;
      if (name !== (list[i] as SkillMetadata).name || at.length === 64) return undefined;
      at.push(i);
    }
    let changed = 0;
    for (const i of at) {
      const old = list[i] as SkillMetadata;
      const skill = skills[i] as SkillMetadata;
      if (sameSkill(old, skill)) continue;
      changed++;
      const before = docOf(old);
      const doc = docOf(skill);
      if (!sameText(before, doc)) {
        this.#mini.remove(before);
        this.#add(doc);
      }
    }
    for (const i of at) held.set((skills[i] as SkillMetadata).name, skills[i] as SkillMetadata);
    this.#list = skills.slice();
    return { added: 0, changed, removed: 0 };
  }

  toJSON(): Persisted {
    const index = snapshotOf(this.#mini);
    return {
      format: FORMAT,
      version: FORMAT_VERSION,
      analyzer: ANALYZER,
      fingerprints: index.docs.map(([name]) => fingerprint(this.#held.get(name) as SkillMetadata)),
      index,
    };
  }

  /** Indexes `skills` (by name, from `list`) from scratch, in one pass (much faster than adding them one by one). */
  rebuild(skills: Map<string, SkillMetadata>, list: readonly SkillMetadata[]): this {
    const { mini, vocabulary } = buildIndex(Array.from(skills.values(), docOf));
    this.#mini = mini;
    this.#vocabulary = vocabulary;
    this.#held = skills;
    this.#list = list.slice();
    return this;
  }

  /** Takes over a loaded index, then indexes the skills it lacks. */
  adopt(
    mini: MiniSearch<Doc>,
    vocabulary: Set<string>,
    skills: Map<string, SkillMetadata>,
    list: readonly SkillMetadata[],
    fresh: readonly SkillMetadata[],
  ): this {
    if (fresh.length > Math.max(64, skills.size / 4)) return this.rebuild(skills, list);
    this.#mini = mini;
    this.#vocabulary = vocabulary;
    this.#held = skills;
    this.#list = list.slice();
    for (const skill of fresh) this.#add(docOf(skill));
    return this;
  }

  #add(doc: Doc): void {
    this.#mini.add(doc);
    for (const field of FIELDS) for (const t of fieldTerms(doc[field], field)) this.#vocabulary.add(t);
  }
}

type Results = ReturnType<MiniSearch<Doc>["search"]>;

/** A score as hits report it: six decimals, so that equal scores compare equal. */
function rounded(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}

/**
 * The terms to search for a query. `said`: each term of the request, with the word typed for it
 * (hits report the user's words); words that say nothing on their own are left out unless
 * nothing else is left. `searched`: each term to search → the term of the request it counts
 * as: itself, or for a term one of the request's words stands for (`added`), that word's term
 * (only terms the index holds are added).
 */
function queryTerms(
  text: string,
  vocabulary: ReadonlySet<string>,
): { said: Map<string, string>; searched: Map<string, string>; added: boolean } {
  const all = new Map<string, string>();
  for (const word of words(text)) {
    const t = term(word);
    if (t === null || all.has(t)) continue;
    all.set(t, word.toLowerCase());
    if (all.size === MAX_QUERY_TERMS) break;
  }
  let said = new Map<string, string>();
  for (const [t, word] of all) if (!isFiller(t)) said.set(t, word);
  if (said.size === 0) said = all;
  const searched = new Map<string, string>();
  for (const t of said.keys()) searched.set(t, t);
  for (const t of said.keys()) {
    for (const other of expansionsOfTerm(t)) {
      if (!searched.has(other) && vocabulary.has(other)) searched.set(other, t);
    }
  }
  return { said, searched, added: searched.size > said.size };
}

/**
 * Rescores `results` by how many of the request's terms each matched, itself or through terms
 * it stands for, and gives the rounded score of the `limit`-th best (0 when fewer).
 */
function rescore(results: Results, searched: ReadonlyMap<string, string>, limit: number): number {
  const best: number[] = [];
  for (const r of results) {
    const terms = r.queryTerms;
    let counted = 0;
    for (let i = 0; i < terms.length; i++) {
      const of = searched.get(terms[i] as string);
      let first = true;
      for (let j = 0; j < i && first; j++) if (searched.get(terms[j] as string) === of) first = false;
      if (first) counted++;
    }
    r.score = (r.score / terms.length) * counted;
    // The `limit` best scores so far, best first.
    if (best.length < limit || r.score > (best[limit - 1] as number)) {
      let at = Math.min(best.length, limit - 1);
      while (at > 0 && (best[at - 1] as number) < r.score) at--;
      best.splice(at, 0, r.score);
      if (best.length > limit) best.pop();
    }
  }
  return best.length < limit ? 0 : rounded(best[limit - 1] as number);
}

/** The rounded score of the `limit`-th of `results` (sorted best first), 0 when fewer. */
function floorOf(results: Results, limit: number): number {
  const last = results[Math.min(limit, results.length) - 1];
  return last === undefined ? 0 : rounded(last.score);
}

function checkList(skills: unknown): readonly SkillMetadata[] {
  if (Array.isArray(skills)) return skills;
  throw new SkillError("INVALID_FIELD", `Expected a list of skills to index, found ${quote(skills)}`);
}

/** Skills by name, first of a repeated name kept; entries without a name are left out. */
function byName(skills: readonly SkillMetadata[]): Map<string, SkillMetadata> {
  const out = new Map<string, SkillMetadata>();
  for (const skill of skills) {
    const name = (skill as Partial<SkillMetadata> | null)?.name;
    if (typeof name === "string" && name !== "" && !out.has(name)) out.set(name, skill);
  }
  return out;
}

function limitOf(options: { readonly limit?: number } | undefined): number {
  const limit = isMapping(options) ? options.limit : undefined;
  if (typeof limit !== "number" || Number.isNaN(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.max(0, Math.min(MAX_SEARCH_LIMIT, Math.floor(limit)));
}
