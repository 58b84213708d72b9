import MiniSearch, { type Options } from "minisearch";
import { fieldTerms } from "./analyze.js";

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

type Frequencies = Map<number, number>;

/**
 * MiniSearch, filled in one pass from documents or from a snapshot. Adding 10,000 documents one
 * by one walks MiniSearch's term tree once per word; this counts terms in hash maps and inserts
 * each distinct term into the tree once, through the index fields MiniSearch leaves `protected`
 * for subclasses. Lengths and frequencies are the ones `MiniSearch#add` records, so later adds,
 * removes and searches agree with it. Ranking is MiniSearch's own.
 */
export class SkillMiniSearch extends MiniSearch<Doc> {
  constructor() {
    super(miniSearchOptions);
  }

  /** An index of `docs`, and every term in it. */
  static of(docs: readonly Doc[]): { mini: SkillMiniSearch; vocabulary: Set<string> } {
    const mini = new SkillMiniSearch();
    const postings = new Map<string, (Frequencies | undefined)[]>();
    const lengths: number[][] = [];
    for (let shortId = 0; shortId < docs.length; shortId++) {
      const doc = docs[shortId] as Doc;
      const counts: number[] = [];
      for (let fieldId = 0; fieldId < FIELDS.length; fieldId++) {
        const field = FIELDS[fieldId] as (typeof FIELDS)[number];
        let distinct = 0;
        for (const t of fieldTerms(doc[field], field)) {
          let byField = postings.get(t);
          if (byField === undefined) {
            byField = [];
            postings.set(t, byField);
          }
          let frequencies = byField[fieldId];
          if (frequencies === undefined) {
            frequencies = new Map();
            byField[fieldId] = frequencies;
          }
          const count = frequencies.get(shortId);
          if (count === undefined) distinct++;
          frequencies.set(shortId, (count ?? 0) + 1);
        }
        counts.push(distinct);
      }
      lengths.push(counts);
    }
    mini.#fill(
      docs.map((doc) => doc.id),
      lengths,
      postings,
    );
    return { mini, vocabulary: new Set(postings.keys()) };
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
    const postings = new Map<string, (Frequencies | undefined)[]>();
    for (const [t, fieldId, positions, counts] of snapshot.terms) {
      if (typeof t !== "string" || !(fieldId >= 0 && fieldId < FIELDS.length) || !Number.isInteger(fieldId)) {
        throw new Error(`malformed term ${String(t)}`);
      }
      if (!Array.isArray(positions) || !Array.isArray(counts) || positions.length !== counts.length) {
        throw new Error(`malformed postings of ${t}`);
      }
      let frequencies: Frequencies | undefined;
      for (let i = 0; i < positions.length; i++) {
        const shortId = moved[positions[i] as number];
        const count = counts[i];
        if (shortId === undefined || !isCount(count) || count === 0)
          throw new Error(`malformed postings of ${t}`);
        if (shortId === -1) continue;
        frequencies ??= new Map();
        frequencies.set(shortId, count);
      }
      if (frequencies === undefined) continue;
      let byField = postings.get(t);
      if (byField === undefined) {
        byField = [];
        postings.set(t, byField);
      }
      if (byField[fieldId] !== undefined) throw new Error(`term ${t} repeated`);
      byField[fieldId] = frequencies;
    }
    mini.#fill(ids, lengths, postings);
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

  #fill(
    ids: readonly string[],
    lengths: readonly number[][],
    postings: Map<string, (Frequencies | undefined)[]>,
  ) {
    if (FIELDS.some((field, fieldId) => this._fieldIds[field] !== fieldId)) {
      throw new Error("MiniSearch numbered the fields differently");
    }
    const totals = FIELDS.map(() => 0);
    ids.forEach((id, shortId) => {
      if (this._idToShortId.has(id)) throw new Error(`document ${id} repeated`);
      this._documentIds.set(shortId, id);
      this._idToShortId.set(id, shortId);
      const counts = lengths[shortId] as number[];
      this._fieldLength.set(shortId, counts);
      counts.forEach((count, fieldId) => {
        totals[fieldId] = (totals[fieldId] as number) + count;
      });
    });
    for (const [t, byField] of postings) {
      const entry = new Map<number, Frequencies>();
      byField.forEach((frequencies, fieldId) => {
        if (frequencies !== undefined) entry.set(fieldId, frequencies);
      });
      this._index.set(t, entry);
    }
    this._documentCount = ids.length;
    this._nextId = ids.length;
    this._avgFieldLength = totals.map((total) => (ids.length === 0 ? 0 : total / ids.length));
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
