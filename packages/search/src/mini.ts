import MiniSearch from "minisearch";
import { asciiRuns, fieldWords } from "./analyze.js";
import { type Doc, FIELDS, miniSearchOptions } from "./fields.js";
import { Postings } from "./postings.js";
import { Records } from "./records.js";

/**
 * The saved form of an index: per document (in order) its id and the distinct-term count of
 * each field, and per term and field the positions of the documents holding it with their
 * frequencies. Plain arrays: quick to parse and to load.
 */
export interface Snapshot {
  readonly docs: readonly (readonly [string, ...number[]])[];
  readonly terms: readonly (readonly [string, number, readonly number[], readonly number[]])[];
}

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
