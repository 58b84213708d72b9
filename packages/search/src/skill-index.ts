import { createHash } from "node:crypto";
import {
  compareCodeUnits,
  quote,
  SkillError,
  type SkillHit,
  type SkillMetadata,
  type SkillSearch,
} from "@skill/core";
import MiniSearch, { type AsPlainObject, type Options } from "minisearch";
import { ANALYZER, fieldTerms, term, words } from "./analyze.js";

/** Hits returned when a search gives no `limit`. */
export const DEFAULT_SEARCH_LIMIT = 8;
/** The most hits one search returns, whatever `limit` asks. */
export const MAX_SEARCH_LIMIT = 100;

/** How an index ranks. Every option has a default; none changes what is indexed. */
export interface SkillIndexOptions {
  /**
   * Weight of a match in each field. `keywords` is the `when_to_use` frontmatter field and the
   * `metadata` keywords and tags. Default `{ name: 3, description: 1, keywords: 1 }`.
   */
  readonly boost?: { readonly name?: number; readonly description?: number; readonly keywords?: number };
  /**
   * Typo tolerance for query words of four letters or more: the edit distance allowed, as a
   * fraction of the word's length (0.2: one typo in a word of 4 to 7 letters). 0 turns it off.
   * Default 0.2.
   */
  readonly fuzzy?: number;
  /** Let a query word of four letters or more match longer words it begins (`kube` → kubernetes). Default `true`. */
  readonly prefix?: boolean;
}

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
   * only what differs. A skill counts as changed when its location, description or frontmatter do.
   */
  replace(skills: readonly SkillMetadata[]): { added: number; changed: number; removed: number };
  /** A JSON-safe snapshot for {@link loadSkillIndex} (store it beside a head cache for warm starts). */
  toJSON(): unknown;
}

const FORMAT = "@skill/search index";
const FORMAT_VERSION = 1;
/** Longest query read, in UTF-16 code units, and most distinct words searched: the rest is ignored. */
const MAX_QUERY_LENGTH = 2_000;
const MAX_QUERY_TERMS = 32;
/** Longest text indexed from one field of one skill. */
const MAX_FIELD_LENGTH = 10_000;

interface Doc {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly keywords: string;
}

interface Ranking {
  readonly boost: { readonly name: number; readonly description: number; readonly keywords: number };
  readonly fuzzy: number;
  readonly prefix: boolean;
}

interface Persisted {
  readonly format: typeof FORMAT;
  readonly version: typeof FORMAT_VERSION;
  readonly analyzer: string;
  /** `[name, fingerprint]` in name order. */
  readonly skills: readonly (readonly [string, string])[];
  readonly index: unknown;
}

/**
 * An index of `skills` (their names, descriptions, `when_to_use` and `metadata` keywords; never
 * a body). Build it from what the agent may see, e.g. `service.all(agent)`, so a denied skill is
 * never found.
 *
 * @throws SkillError `INVALID_FIELD` when `skills` is not a list or an option is out of range
 * @example
 * const index = createSkillIndex(service.all(agent));
 * index.search("fill in a PDF form"); // [{ name: "pdf", score: 24.1, terms: ["fill", "pdf", "form"] }, …]
 */
export function createSkillIndex(
  skills: readonly SkillMetadata[],
  options: SkillIndexOptions = {},
): SkillIndex {
  return new Index(rankingOf(options)).rebuild(byName(checkList(skills)));
}

/**
 * An index of `skills` that reuses `json` (from {@link SkillIndex.toJSON}) for every skill whose
 * location, description and frontmatter are unchanged, and indexes the rest. Anything else in
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
  const wanted = byName(checkList(skills));
  const persisted = readPersisted(json);
  if (persisted) {
    try {
      const known = new Map(persisted.skills);
      const plain = persisted.index as AsPlainObject;
      const saved = Object.entries(plain.documentIds);
      if (saved.length === known.size && saved.every(([, name]) => known.has(name))) {
        // Documents of skills that are gone or changed are cut from the saved form before it
        // is loaded, so no stale term lingers to skew a ranking.
        const keep = new Set<string>();
        for (const [shortId, name] of saved) {
          const skill = wanted.get(name);
          if (skill !== undefined && known.get(name) === fingerprint(skill)) keep.add(shortId);
        }
        const pruned = keep.size === saved.length ? plain : prune(plain, keep);
        const mini = MiniSearch.loadJS<Doc>(pruned, miniSearchOptions);
        if (mini.documentCount === keep.size) {
          const fresh = [...wanted.values()].filter((skill) => !mini.has(skill.name));
          return new Index(ranking).adopt(mini, new Set(pruned.index.map(([t]) => t)), wanted, fresh);
        }
      }
    } catch {
      // Not an index this version can read: build afresh below.
    }
  }
  return new Index(ranking).rebuild(wanted);
}

class Index implements SkillIndex {
  readonly #ranking: Ranking;
  #mini: MiniSearch<Doc> = new MiniSearch<Doc>(miniSearchOptions);
  /** Every term indexed since the last rebuild: a query word found here is not looked up fuzzily. */
  #vocabulary = new Set<string>();
  /** What each indexed name was indexed from. */
  #held = new Map<string, SkillMetadata>();

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
    // Each query term, and the word the user typed for it (hits report the user's words).
    const typed = new Map<string, string>();
    for (const word of words(text)) {
      const t = term(word);
      if (t === null || typed.has(t)) continue;
      typed.set(t, word.toLowerCase());
      if (typed.size === MAX_QUERY_TERMS) break;
    }
    if (typed.size === 0) return [];
    const { boost, fuzzy, prefix } = this.#ranking;
    const vocabulary = this.#vocabulary;
    let results: ReturnType<MiniSearch<Doc>["search"]>;
    try {
      results = this.#mini.search([...typed.keys()].join(" "), {
        tokenize: (s) => s.split(" "),
        processTerm: (t) => t,
        boost: { ...boost },
        // A word the index knows is taken as meant; only unknown words are read as typos.
        fuzzy: (t) => (fuzzy > 0 && t.length >= 4 && !vocabulary.has(t) ? fuzzy : false),
        prefix: (t) => prefix && t.length >= 4,
        combineWith: "OR",
      });
    } catch {
      return [];
    }
    // MiniSearch sorts by score; only the first `limit`, and whatever ties the last of them,
    // need a hit made and the name order applied.
    const rounded = (score: number) => Math.round(score * 1e6) / 1e6;
    const last = results[Math.min(limit, results.length) - 1];
    const floor = last === undefined ? 0 : rounded(last.score);
    const hits: SkillHit[] = [];
    for (const r of results) {
      const score = rounded(r.score);
      if (score < floor) break;
      hits.push({ name: String(r.id), score, terms: r.queryTerms.map((t) => typed.get(t) ?? t) });
    }
    hits.sort((a, b) => b.score - a.score || compareCodeUnits(a.name, b.name));
    return hits.slice(0, limit);
  }

  replace(skills: readonly SkillMetadata[]): { added: number; changed: number; removed: number } {
    const next = byName(checkList(skills));
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
      this.rebuild(next);
      return counts;
    }
    // `remove` (not `discard`) takes every term of the old document out now: a discarded one
    // lingers in the term lists until a search meets it, and skews the scores of that search.
    for (const name of gone) this.#mini.remove(docOf(this.#held.get(name) as SkillMetadata));
    for (const old of stale) this.#mini.remove(docOf(old));
    for (const skill of fresh) this.#add(docOf(skill));
    this.#held = next;
    return counts;
  }

  toJSON(): Persisted {
    const names = [...this.#held.keys()].sort(compareCodeUnits);
    return {
      format: FORMAT,
      version: FORMAT_VERSION,
      analyzer: ANALYZER,
      skills: names.map((name) => [name, fingerprint(this.#held.get(name) as SkillMetadata)] as const),
      index: this.#mini.toJSON(),
    };
  }

  /** Indexes `skills` from scratch, in one pass (much faster than adding them one by one). */
  rebuild(skills: Map<string, SkillMetadata>): this {
    const mini = new BulkMiniSearch([...skills.values()].map(docOf));
    this.#mini = mini;
    this.#vocabulary = mini.vocabulary;
    this.#held = skills;
    return this;
  }

  /** Takes over a loaded index, then indexes the skills it lacks. */
  adopt(
    mini: MiniSearch<Doc>,
    vocabulary: Set<string>,
    skills: Map<string, SkillMetadata>,
    fresh: readonly SkillMetadata[],
  ): this {
    if (fresh.length > Math.max(64, skills.size / 4)) return this.rebuild(skills);
    this.#mini = mini;
    this.#vocabulary = vocabulary;
    this.#held = skills;
    for (const skill of fresh) this.#add(docOf(skill));
    return this;
  }

  #add(doc: Doc): void {
    this.#mini.add(doc);
    for (const field of FIELDS) for (const t of fieldTerms(doc[field], field)) this.#vocabulary.add(t);
  }
}

const FIELDS = ["name", "description", "keywords"] as const;

/**
 * A MiniSearch index of `docs` filled in one pass. Adding 10,000 documents one by one walks
 * MiniSearch's term tree once per word; this counts terms in a hash map and inserts each
 * distinct term into the tree once, through the index fields MiniSearch leaves `protected` for
 * subclasses. Lengths and frequencies are the ones `MiniSearch#add` records, so later adds,
 * removes and searches agree with it.
 */
class BulkMiniSearch extends MiniSearch<Doc> {
  constructor(docs: readonly Doc[]) {
    super(miniSearchOptions);
    // Per term and field: document → frequency, and the last document counted (documents come
    // in order, so a repeat within one document is the only case that reads the map).
    const postings = new Map<string, { frequencies: (Map<number, number> | undefined)[]; last: number[] }>();
    const totals = FIELDS.map(() => 0);
    for (let shortId = 0; shortId < docs.length; shortId++) {
      const doc = docs[shortId] as Doc;
      this._documentIds.set(shortId, doc.id);
      this._idToShortId.set(doc.id, shortId);
      const lengths: number[] = [];
      for (const field of FIELDS) {
        const fieldId = this._fieldIds[field] as number;
        let distinct = 0;
        for (const t of fieldTerms(doc[field], field)) {
          let posting = postings.get(t);
          if (posting === undefined) {
            posting = { frequencies: [], last: [] };
            postings.set(t, posting);
          }
          let frequencies = posting.frequencies[fieldId];
          if (frequencies === undefined) {
            frequencies = new Map();
            posting.frequencies[fieldId] = frequencies;
          }
          if (posting.last[fieldId] === shortId) {
            frequencies.set(shortId, (frequencies.get(shortId) as number) + 1);
          } else {
            frequencies.set(shortId, 1);
            posting.last[fieldId] = shortId;
            distinct++;
          }
        }
        lengths[fieldId] = distinct;
        totals[fieldId] = (totals[fieldId] as number) + distinct;
      }
      this._fieldLength.set(shortId, lengths);
    }
    for (const [t, posting] of postings) {
      const byField = new Map<number, Map<number, number>>();
      posting.frequencies.forEach((frequencies, fieldId) => {
        if (frequencies !== undefined) byField.set(fieldId, frequencies);
      });
      this._index.set(t, byField);
    }
    this._documentCount = docs.length;
    this._nextId = docs.length;
    this._avgFieldLength = totals.map((total) => (docs.length === 0 ? 0 : total / docs.length));
    this.vocabulary = new Set(postings.keys());
  }

  readonly vocabulary: Set<string>;
}

// Documents are removed, never discarded, so there is nothing to vacuum (MiniSearch's own
// vacuuming runs on timers); its logger would print to the console.
const miniSearchOptions: Options<Doc> = {
  idField: "id",
  fields: [...FIELDS],
  storeFields: [],
  tokenize: (text: string, field?: string) => fieldTerms(text, field),
  processTerm: (t: string) => t,
  autoVacuum: false,
  logger: () => {},
};

/** `plain` with only the documents of `keep` (short ids), its counts and averages redone. */
function prune(plain: AsPlainObject, keep: ReadonlySet<string>): AsPlainObject {
  const documentIds: AsPlainObject["documentIds"] = {};
  const fieldLength: AsPlainObject["fieldLength"] = {};
  const totals: number[] = [];
  for (const shortId of keep) {
    documentIds[shortId] = plain.documentIds[shortId];
    const lengths = plain.fieldLength[shortId] ?? [];
    fieldLength[shortId] = lengths;
    lengths.forEach((length, fieldId) => {
      totals[fieldId] = (totals[fieldId] ?? 0) + length;
    });
  }
  const index: AsPlainObject["index"] = [];
  for (const [t, byField] of plain.index) {
    const entry: Record<string, Record<string, number>> = {};
    let any = false;
    for (const [fieldId, frequencies] of Object.entries(byField)) {
      const kept: Record<string, number> = {};
      let some = false;
      for (const [shortId, count] of Object.entries(frequencies as Record<string, number>)) {
        if (!keep.has(shortId)) continue;
        kept[shortId] = count;
        some = true;
      }
      if (some) {
        entry[fieldId] = kept;
        any = true;
      }
    }
    if (any) index.push([t, entry]);
  }
  const count = keep.size;
  return {
    ...plain,
    documentCount: count,
    documentIds,
    fieldLength,
    averageFieldLength: plain.averageFieldLength.map((_, fieldId) =>
      count === 0 ? 0 : (totals[fieldId] ?? 0) / count,
    ),
    storedFields: {},
    dirtCount: 0,
    index,
  };
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

function docOf(skill: SkillMetadata): Doc {
  const frontmatter = isRecord(skill.frontmatter) ? skill.frontmatter : {};
  const metadata = isRecord(frontmatter.metadata) ? frontmatter.metadata : {};
  const keywords = [frontmatter.when_to_use, metadata.keywords, metadata.tags].flatMap(textsOf).join("\n");
  return {
    id: skill.name,
    name: cut(skill.name),
    description: cut(typeof skill.description === "string" ? skill.description : ""),
    keywords: cut(keywords),
  };
}

function textsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

function cut(text: string): string {
  return text.length > MAX_FIELD_LENGTH ? text.slice(0, MAX_FIELD_LENGTH) : text;
}

function sameText(a: Doc, b: Doc): boolean {
  return a.name === b.name && a.description === b.description && a.keywords === b.keywords;
}

function sameSkill(a: SkillMetadata, b: SkillMetadata): boolean {
  return (
    a.location === b.location && a.description === b.description && sameValue(a.frontmatter, b.frontmatter, 0)
  );
}

function sameValue(a: unknown, b: unknown, depth: number): boolean {
  if (Object.is(a, b)) return true;
  if (depth > 32 || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  const recordB = b as Record<string, unknown>;
  for (const key of keysA) {
    if (!Object.hasOwn(recordB, key)) return false;
    if (!sameValue((a as Record<string, unknown>)[key], recordB[key], depth + 1)) return false;
  }
  return true;
}

/** What a persisted document was made from: location, description and frontmatter. */
function fingerprint(skill: SkillMetadata): string {
  let text: string;
  try {
    text = JSON.stringify([skill.location, skill.description, skill.frontmatter]);
  } catch {
    return ""; // matches no persisted fingerprint, so the skill is indexed afresh
  }
  return createHash("sha256").update(text).digest("base64url");
}

function readPersisted(json: unknown): Persisted | undefined {
  if (!isRecord(json)) return undefined;
  if (json.format !== FORMAT || json.version !== FORMAT_VERSION || json.analyzer !== ANALYZER)
    return undefined;
  if (!isRecord(json.index) || !Array.isArray(json.skills)) return undefined;
  const ok = json.skills.every(
    (entry: unknown) =>
      Array.isArray(entry) &&
      entry.length === 2 &&
      typeof entry[0] === "string" &&
      typeof entry[1] === "string",
  );
  return ok ? (json as unknown as Persisted) : undefined;
}

function rankingOf(options: SkillIndexOptions): Ranking {
  if (!isRecord(options)) {
    throw new SkillError("INVALID_FIELD", `Expected search options as an object, found ${quote(options)}`);
  }
  const boost = options.boost ?? {};
  if (!isRecord(boost)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Expected 'boost' as an object of field weights, found ${quote(boost)}`,
      {
        field: "boost",
      },
    );
  }
  const weight = (field: "name" | "description" | "keywords", fallback: number): number => {
    const value = boost[field] ?? fallback;
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    throw new SkillError(
      "INVALID_FIELD",
      `Expected 'boost.${field}' to be a number of 0 or more, found ${quote(value)}`,
      { field: `boost.${field}` },
    );
  };
  const fuzzy = options.fuzzy ?? 0.2;
  if (typeof fuzzy !== "number" || !(fuzzy >= 0 && fuzzy < 1)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Expected 'fuzzy' to be a number from 0 up to 1, found ${quote(fuzzy)}`,
      {
        field: "fuzzy",
      },
    );
  }
  const prefix = options.prefix ?? true;
  if (typeof prefix !== "boolean") {
    throw new SkillError("INVALID_FIELD", `Expected 'prefix' to be true or false, found ${quote(prefix)}`, {
      field: "prefix",
    });
  }
  return {
    boost: {
      name: weight("name", 3),
      description: weight("description", 1),
      keywords: weight("keywords", 1),
    },
    fuzzy,
    prefix,
  };
}

function limitOf(options: { readonly limit?: number } | undefined): number {
  const limit = isRecord(options) ? options.limit : undefined;
  if (typeof limit !== "number" || Number.isNaN(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.max(0, Math.min(MAX_SEARCH_LIMIT, Math.floor(limit)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
