import MiniSearch, { type Options } from "minisearch";
import { asciiRuns, fieldTerms, fieldWords, term } from "./analyze.js";

/** The fields of a skill that are indexed, in field-id order. */
export const FIELDS = ["name", "description", "keywords"] as const;

/** What MiniSearch indexes of one skill. */
export interface Doc {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly keywords: string;
}

/**
 * The saved form of an index: per document (in order) its id and the distinct-term count of
 * each field, and per term and field the positions of the documents holding it with their
 * frequencies. Plain arrays: quick to parse and to load.
 */
export interface Snapshot {
  readonly docs: readonly (readonly [string, ...number[]])[];
  readonly terms: readonly (readonly [string, number, readonly number[], readonly number[]])[];
}

// Documents are removed, never discarded, so there is nothing to vacuum (MiniSearch's own
// vacuuming runs on timers); its logger would print to the console.
export const miniSearchOptions: Options<Doc> = {
  idField: "id",
  fields: [...FIELDS],
  storeFields: [],
  tokenize: (text: string, field?: string) => fieldTerms(text, field),
  processTerm: (t: string) => t,
  autoVacuum: false,
  logger: () => {},
};

/**
 * The documents holding one term in one field, with the term's frequency in each: the
 * `Map<shortId, frequency>` MiniSearch keeps, packed as a range of two shared arrays (ids
 * ascending) while it is only read. The first write (a later `add` or `remove`) turns it into a
 * plain `Map`. Reads walk the ids in order, so `get` checks the slot after the last one found
 * before searching.
 */
export class Postings {
  #ids: Int32Array;
  #counts: Int32Array;
  readonly #start: number;
  #end: number;
  #map: Map<number, number> | undefined;
  #cursor: number;

  /** `ids[start..end)` strictly ascending, `counts` beside them (the arrays are kept, not copied). */
  constructor(ids: Int32Array, counts: Int32Array, start = 0, end = ids.length) {
    this.#ids = ids;
    this.#counts = counts;
    this.#start = start;
    this.#end = end;
    this.#cursor = start;
  }

  get size(): number {
    return this.#map === undefined ? this.#end - this.#start : this.#map.size;
  }

  get(id: number): number | undefined {
    if (this.#map !== undefined) return this.#map.get(id);
    const at = this.#find(id);
    return at < 0 ? undefined : this.#counts[at];
  }

  has(id: number): boolean {
    return this.#map === undefined ? this.#find(id) >= 0 : this.#map.has(id);
  }

  set(id: number, count: number): this {
    this.#unpack().set(id, count);
    return this;
  }

  delete(id: number): boolean {
    return this.#unpack().delete(id);
  }

  keys(): IterableIterator<number> {
    return this.#map === undefined ? this.#ids.subarray(this.#start, this.#end).values() : this.#map.keys();
  }

  *entries(): IterableIterator<[number, number]> {
    if (this.#map !== undefined) {
      yield* this.#map.entries();
      return;
    }
    const ids = this.#ids;
    const counts = this.#counts;
    for (let i = this.#start; i < this.#end; i++) yield [ids[i] as number, counts[i] as number];
  }

  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries();
  }

  #find(id: number): number {
    const ids = this.#ids;
    const next = this.#cursor;
    if (next < this.#end && ids[next] === id) {
      this.#cursor = next + 1;
      return next;
    }
    let lo = this.#start;
    let hi = this.#end - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = ids[mid] as number;
      if (at === id) {
        this.#cursor = mid + 1;
        return mid;
      }
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  #unpack(): Map<number, number> {
    if (this.#map === undefined) {
      const map = new Map<number, number>();
      for (let i = this.#start; i < this.#end; i++)
        map.set(this.#ids[i] as number, this.#counts[i] as number);
      this.#map = map;
      // Let go of the shared arrays' range: the map is the posting list from now on.
      this.#ids = EMPTY;
      this.#counts = EMPTY;
      this.#end = this.#start;
    }
    return this.#map;
  }
}

const EMPTY = new Int32Array(0);

/**
 * A `Map` from short ids to values, as MiniSearch keeps each document's id and field lengths,
 * held in an array indexed by short id. MiniSearch numbers documents in the order it adds them
 * and never reuses a number, so ascending ids are the order a `Map` would iterate them in.
 * Values are never `undefined`.
 */
class ByShortId<V> {
  readonly #values: (V | undefined)[];
  #size: number;

  /** `values[shortId]` for short ids 0 to `values.length - 1` (the array is kept, not copied). */
  constructor(values: V[]) {
    this.#values = values;
    this.#size = values.length;
  }

  get size(): number {
    return this.#size;
  }

  get(id: number): V | undefined {
    return this.#values[id];
  }

  has(id: number): boolean {
    return this.#values[id] !== undefined;
  }

  set(id: number, value: V): this {
    if (this.#values[id] === undefined) this.#size++;
    this.#values[id] = value;
    return this;
  }

  delete(id: number): boolean {
    if (this.#values[id] === undefined) return false;
    this.#values[id] = undefined;
    this.#size--;
    return true;
  }

  *entries(): IterableIterator<[number, V]> {
    const values = this.#values;
    for (let id = 0; id < values.length; id++) {
      const value = values[id];
      if (value !== undefined) yield [id, value];
    }
  }

  [Symbol.iterator](): IterableIterator<[number, V]> {
    return this.entries();
  }
}

/** An Int32Array that doubles when full. */
class Grow {
  array: Int32Array;
  constructor(size: number, fill = 0) {
    this.array = new Int32Array(size);
    if (fill !== 0) this.array.fill(fill);
  }
  /** Makes room for index `at`, new slots set to `fill`. */
  reserve(at: number, fill = 0): Int32Array {
    if (at >= this.array.length) {
      const next = new Int32Array(Math.max(at + 1, this.array.length * 2));
      next.set(this.array);
      if (fill !== 0) next.fill(fill, this.array.length);
      this.array = next;
    }
    return this.array;
  }
}

/** Per ASCII code: 1 for the letters and digits, the characters of a word in plain text. */
const WORD_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  WORD_CHAR[c] = (ch >= "0" && ch <= "9") || (ch >= "A" && ch <= "Z") || (ch >= "a" && ch <= "z") ? 1 : 0;
}

/** Whether `text` holds `word` at `start`. */
function sameChars(word: string, text: string, start: number): boolean {
  for (let k = 0; k < word.length; k++) if (word.charCodeAt(k) !== text.charCodeAt(start + k)) return false;
  return true;
}

/**
 * What a one-pass fill records: per (term, field, document) the count, in document order, with
 * each word looked up once in a table of the fill. A record of the document being filled is
 * found again through the last record of its key, which is the document's when it comes at or
 * after the document's first. A class of small methods, so that the engine compiles the
 * per-word work early in a process's first fill.
 */
class Records {
  /** Word as the tokenizer found it (case kept) → its term's number (-1: a stop word). */
  readonly #byWord = new Map<string, number>();
  readonly #byTerm = new Map<string, number>();
  readonly terms: string[] = [];
  /** Per key (term × fields + field): its last record, -1 before the first. */
  readonly #lastAt = new Grow(4096 * FIELDS.length, -1);
  /** Per record: its key, and how often its term is in its document's field. */
  readonly keyOf = new Grow(1 << 16);
  readonly countOf = new Grow(1 << 16);
  count = 0;

  /**
   * Records the words of one field of the document whose records start at `first`; returns how
   * many distinct terms the field has.
   */
  field(words: readonly string[], fieldId: number, first: number): number {
    // Room for a record per word, so that recording needs no check.
    const keyOf = this.keyOf.reserve(this.count + words.length);
    const countOf = this.countOf.reserve(this.count + words.length);
    let distinct = 0;
    for (let w = 0; w < words.length; w++) {
      const n = this.#number(words[w] as string);
      if (n >= 0) distinct += this.#record(n * FIELDS.length + fieldId, first, keyOf, countOf);
    }
    return distinct;
  }

  /**
   * {@link field} for a field whose words are the runs of ASCII letters and digits of `text`
   * (see `asciiRuns`): they are found by one scan of the text and looked up in a table of the
   * build by their characters, so a word the build has met needs no string of its own. Records
   * exactly what `field(fieldWords(text, field), fieldId, first)` does.
   */
  runs(text: string, fieldId: number, first: number): number {
    // At most one record per two characters (a word and a separator).
    const keyOf = this.keyOf.reserve(this.count + (text.length >> 1) + 1);
    const countOf = this.countOf.reserve(this.count + (text.length >> 1) + 1);
    let distinct = 0;
    const length = text.length;
    let i = 0;
    while (i < length) {
      let c = text.charCodeAt(i);
      if (c >= 128 || WORD_CHAR[c] === 0) {
        i++;
        continue;
      }
      const start = i;
      let hash = 0;
      do {
        hash = (Math.imul(hash, 31) + c) | 0;
        if (++i === length) break;
        c = text.charCodeAt(i);
      } while (c < 128 && WORD_CHAR[c] === 1);
      const n = this.#lookup(text, start, i, hash);
      if (n >= 0) distinct += this.#record(n * FIELDS.length + fieldId, first, keyOf, countOf);
    }
    return distinct;
  }

  /**
   * Counts one more of `key` in the document whose records start at `first`, in the record
   * arrays given (room made): 1 for the key's first record in the document, else 0.
   */
  #record(key: number, first: number, keyOf: Int32Array, countOf: Int32Array): number {
    const lastAt = this.#lastAt.array;
    const at = lastAt[key] as number;
    if (at >= first) {
      countOf[at] = (countOf[at] as number) + 1;
      return 0;
    }
    const r = this.count++;
    lastAt[key] = r;
    keyOf[r] = key;
    countOf[r] = 1;
    return 1;
  }

  /** Words met by {@link runs}: open addressing, each slot an entry number plus one (0: empty). */
  #slots = new Int32Array(1 << 14);
  readonly #entryWord: string[] = [];
  readonly #entryHash = new Grow(1 << 13);
  readonly #entryTerm = new Grow(1 << 13);

  /** The term number of `text[start..end)`, a word whose hash is `hash`. */
  #lookup(text: string, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const hashes = this.#entryHash.array;
    let s = hash & mask;
    for (;;) {
      const e = slots[s] as number;
      if (e === 0) break;
      if (hashes[e - 1] === hash) {
        const word = this.#entryWord[e - 1] as string;
        if (word.length === end - start && sameChars(word, text, start)) {
          return this.#entryTerm.array[e - 1] as number;
        }
      }
      s = (s + 1) & mask;
    }
    const word = text.slice(start, end);
    const n = this.#number(word);
    const e = this.#entryWord.length;
    this.#entryWord.push(word);
    this.#entryHash.reserve(e)[e] = hash;
    this.#entryTerm.reserve(e)[e] = n;
    slots[s] = e + 1;
    // Kept at most half full, so that a probe ends soon.
    if ((e + 1) * 2 > slots.length) this.#grow();
    return n;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    const hashes = this.#entryHash.array;
    for (let e = 0; e < this.#entryWord.length; e++) {
      let s = (hashes[e] as number) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = e + 1;
    }
    this.#slots = slots;
  }

  #number(word: string): number {
    const known = this.#byWord.get(word);
    if (known !== undefined) return known;
    const t = term(word);
    let n = -1;
    if (t !== null) {
      n = this.#byTerm.get(t) ?? -1;
      if (n === -1) {
        n = this.terms.length;
        this.terms.push(t);
        this.#byTerm.set(t, n);
        this.#lastAt.reserve(n * FIELDS.length + FIELDS.length - 1, -1);
      }
    }
    this.#byWord.set(word, n);
    return n;
  }
}

/**
 * MiniSearch, filled in one pass from documents or from a snapshot. Adding 10,000 documents one
 * by one walks MiniSearch's term tree once per word and grows a `Map` per term; this looks each
 * word up once in a table of the build, records (term and field, document, count) in flat
 * arrays, sorts them by term with one counting pass, and inserts each distinct term into the tree
 * once, through the index fields MiniSearch leaves `protected` for subclasses. Lengths and
 * frequencies are the ones `MiniSearch#add` records, so later adds, removes and searches agree
 * with it. Ranking is MiniSearch's own.
 */
export class SkillMiniSearch extends MiniSearch<Doc> {
  constructor() {
    super(miniSearchOptions);
  }

  /** An index of `docs`, and every term in it. */
  static of(docs: readonly Doc[]): { mini: SkillMiniSearch; vocabulary: Set<string> } {
    const mini = new SkillMiniSearch();
    const F = FIELDS.length;
    const records = new Records();
    const ids: string[] = [];
    const lengths: number[][] = [];
    // Per document: where its records start, and (last) where they end.
    const firstOf = new Int32Array(docs.length + 1);
    for (let shortId = 0; shortId < docs.length; shortId++) {
      const doc = docs[shortId] as Doc;
      ids.push(doc.id);
      const first = records.count;
      firstOf[shortId] = first;
      const counts = new Array<number>(F);
      for (let fieldId = 0; fieldId < F; fieldId++) {
        const field = FIELDS[fieldId] as (typeof FIELDS)[number];
        const text = doc[field];
        counts[fieldId] = asciiRuns(text, field)
          ? records.runs(text, fieldId, first)
          : records.field(fieldWords(text, field), fieldId, first);
      }
      lengths.push(counts);
    }
    firstOf[docs.length] = records.count;
    const { terms, count } = records;
    const keyOf = records.keyOf;
    const countOf = records.countOf;
    // Counting sort by key; records are in document order, so each key's ids come out ascending.
    const keys = terms.length * F;
    const starts = new Int32Array(keys + 1);
    const keyArray = keyOf.array;
    for (let i = 0; i < count; i++) {
      const k = (keyArray[i] as number) + 1;
      starts[k] = (starts[k] as number) + 1;
    }
    for (let k = 0; k < keys; k++) starts[k + 1] = (starts[k + 1] as number) + (starts[k] as number);
    const shortIds = new Int32Array(count);
    const frequencies = new Int32Array(count);
    const fill = starts.slice(0, keys);
    const countArray = countOf.array;
    for (let shortId = 0; shortId < docs.length; shortId++) {
      const end = firstOf[shortId + 1] as number;
      for (let i = firstOf[shortId] as number; i < end; i++) {
        const k = keyArray[i] as number;
        const to = fill[k] as number;
        fill[k] = to + 1;
        shortIds[to] = shortId;
        frequencies[to] = countArray[i] as number;
      }
    }
    mini.#documents(ids, lengths);
    for (let n = 0; n < terms.length; n++) {
      const entry = new Map<number, Postings>();
      for (let fieldId = 0; fieldId < F; fieldId++) {
        const from = starts[n * F + fieldId] as number;
        const to = starts[n * F + fieldId + 1] as number;
        if (from !== to) entry.set(fieldId, new Postings(shortIds, frequencies, from, to));
      }
      mini.#term(terms[n] as string, entry);
    }
    return { mini, vocabulary: new Set(terms) };
  }

  /**
   * The index saved by {@link snapshot}, with only the documents at positions `keep` says yes
   * to. Throws on anything malformed (the caller builds afresh).
   */
  static load(
    snapshot: Snapshot,
    keep: (position: number, id: string) => boolean,
  ): { mini: SkillMiniSearch; vocabulary: Set<string> } {
    const mini = new SkillMiniSearch();
    const ids: string[] = [];
    const lengths: number[][] = [];
    // Old position → new short id, or -1 for a document left out.
    const moved = new Int32Array(snapshot.docs.length).fill(-1);
    snapshot.docs.forEach((entry, position) => {
      const [id, ...counts] = entry;
      if (typeof id !== "string" || counts.length !== FIELDS.length || !counts.every(isCount)) {
        throw new Error(`malformed document ${position}`);
      }
      if (!keep(position, id)) return;
      moved[position] = ids.length;
      ids.push(id);
      lengths.push(counts);
    });
    const postings = new Map<string, (Postings | undefined)[]>();
    for (const [t, fieldId, positions, counts] of snapshot.terms) {
      if (typeof t !== "string" || !(fieldId >= 0 && fieldId < FIELDS.length) || !Number.isInteger(fieldId)) {
        throw new Error(`malformed term ${String(t)}`);
      }
      if (!Array.isArray(positions) || !Array.isArray(counts) || positions.length !== counts.length) {
        throw new Error(`malformed postings of ${t}`);
      }
      const ids: number[] = [];
      const frequencies: number[] = [];
      for (let i = 0; i < positions.length; i++) {
        const shortId = moved[positions[i] as number];
        const count = counts[i];
        if (shortId === undefined || !isCount(count) || count === 0)
          throw new Error(`malformed postings of ${t}`);
        if (shortId === -1) continue;
        // Short ids follow positions, so ascending positions give ascending ids.
        if (ids.length > 0 && shortId <= (ids[ids.length - 1] as number))
          throw new Error(`malformed postings of ${t}`);
        ids.push(shortId);
        frequencies.push(count);
      }
      if (ids.length === 0) continue;
      let byField = postings.get(t);
      if (byField === undefined) {
        byField = [];
        postings.set(t, byField);
      }
      if (byField[fieldId] !== undefined) throw new Error(`term ${t} repeated`);
      byField[fieldId] = new Postings(Int32Array.from(ids), Int32Array.from(frequencies));
    }
    mini.#documents(ids, lengths);
    for (const [t, byField] of postings) {
      const entry = new Map<number, Postings>();
      byField.forEach((frequencies, fieldId) => {
        if (frequencies !== undefined) entry.set(fieldId, frequencies);
      });
      mini.#term(t, entry);
    }
    return { mini, vocabulary: new Set(postings.keys()) };
  }

  /** The index as a {@link Snapshot}: documents renumbered in order, every live posting. */
  snapshot(): Snapshot {
    const position = new Map<number, number>();
    const docs: [string, ...number[]][] = [];
    for (const [shortId, id] of this._documentIds) {
      position.set(shortId, docs.length);
      docs.push([String(id), ...(this._fieldLength.get(shortId) ?? FIELDS.map(() => 0))]);
    }
    const terms: [string, number, number[], number[]][] = [];
    for (const [t, byField] of this._index) {
      for (const [fieldId, frequencies] of byField) {
        const positions: number[] = [];
        const counts: number[] = [];
        for (const [shortId, count] of frequencies) {
          const at = position.get(shortId);
          if (at === undefined) continue;
          positions.push(at);
          counts.push(count);
        }
        if (positions.length > 0) terms.push([t, fieldId, positions, counts]);
      }
    }
    return { docs, terms };
  }

  /** Holds documents `ids` (short ids 0, 1, …) with the distinct-term counts of their fields. */
  #documents(ids: string[], lengths: number[][]) {
    if (FIELDS.some((field, fieldId) => this._fieldIds[field] !== fieldId)) {
      throw new Error("MiniSearch numbered the fields differently");
    }
    const totals = FIELDS.map(() => 0);
    for (let shortId = 0; shortId < ids.length; shortId++) {
      const id = ids[shortId] as string;
      if (this._idToShortId.has(id)) throw new Error(`document ${id} repeated`);
      this._idToShortId.set(id, shortId);
      const counts = lengths[shortId] as number[];
      for (let fieldId = 0; fieldId < counts.length; fieldId++) {
        totals[fieldId] = (totals[fieldId] as number) + (counts[fieldId] as number);
      }
    }
    // MiniSearch reads and writes these only through get, set, delete, has and iteration.
    this._documentIds = new ByShortId(ids) as unknown as Map<number, string>;
    this._fieldLength = new ByShortId(lengths) as unknown as Map<number, number[]>;
    this._documentCount = ids.length;
    this._nextId = ids.length;
    this._avgFieldLength = totals.map((total) => (ids.length === 0 ? 0 : total / ids.length));
  }

  /** Indexes term `t` with its posting list per field id. */
  #term(t: string, entry: Map<number, Postings>) {
    // MiniSearch reads and writes a posting list only through get, set, delete, has, size,
    // keys and iteration, all of which `Postings` has.
    this._index.set(t, entry as unknown as Map<number, Map<number, number>>);
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
