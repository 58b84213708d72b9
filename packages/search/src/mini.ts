import MiniSearch from "minisearch";
import { type Doc, FIELDS, miniSearchOptions } from "./fields.js";
import { type Contents, fill } from "./fill.js";
import type { Postings } from "./postings.js";
import { contentsOf, type Snapshot } from "./snapshot.js";
import { insertDocuments, insertTerms, termTreeReachable } from "./term-tree.js";

/** A MiniSearch index and every term in it (a query word found there is not read as a typo). */
export interface Built {
  readonly mini: MiniSearch<Doc>;
  readonly vocabulary: Set<string>;
}

/** An index of `docs`, filled in one pass (see `fill`); ranking is MiniSearch's own. */
export function buildIndex(docs: readonly Doc[]): Built {
  const contents = fill(docs);
  return { mini: miniSearchOf(contents), vocabulary: new Set(contents.terms) };
}

/**
 * The index saved in `snapshot`, with only the documents at positions `keep` says yes to.
 * Throws on anything malformed (the caller builds afresh).
 */
export function loadIndex(snapshot: Snapshot, keep: (position: number, id: string) => boolean): Built {
  const contents = contentsOf(snapshot, keep);
  return { mini: miniSearchOf(contents), vocabulary: new Set(contents.terms) };
}

/**
 * MiniSearch holding `contents`, made by `MiniSearch.loadJS` (what `loadJSON` does after parsing)
 * from its serialized form: the one `toJSON` gives, versioned, which MiniSearch 4 made simple so
 * that other tools could write it. The terms go straight into its term tree, and the documents
 * into its maps of them (term-tree.ts), while those are within reach (`intoTree`), else into the
 * serialized form too. Later adds, removes and searches are MiniSearch's own.
 */
export function miniSearchOf(contents: Contents, intoTree = termTreeReachable()): MiniSearch<Doc> {
  const { ids, lengths, terms, postings } = contents;
  const documents = intoTree ? { documentIds: {}, fieldLength: {} } : serializedDocuments(ids, lengths);
  const mini = MiniSearch.loadJS<Doc>(
    {
      documentCount: ids.length,
      nextId: ids.length,
      ...documents,
      fieldIds: Object.fromEntries(FIELDS.map((field, fieldId) => [field, fieldId])),
      averageFieldLength: averagesOf(lengths),
      storedFields: {},
      dirtCount: 0,
      index: intoTree ? [] : terms.map((t, n) => [t, serialized(postings[n] as Map<number, Postings>)]),
      serializationVersion: 2,
    },
    miniSearchOptions,
  );
  if (intoTree) {
    insertDocuments(mini, ids, lengths);
    insertTerms(mini, terms, postings);
  }
  return mini;
}

/** Per field id, the mean of the documents' distinct-term counts (0 for no documents). */
function averagesOf(lengths: readonly number[][]): number[] {
  const totals = FIELDS.map(() => 0);
  for (const counts of lengths) {
    for (let fieldId = 0; fieldId < FIELDS.length; fieldId++) {
      totals[fieldId] = (totals[fieldId] as number) + (counts[fieldId] as number);
    }
  }
  return totals.map((total) => (lengths.length === 0 ? 0 : total / lengths.length));
}

/** The documents in MiniSearch's serialized form: short id → id, short id → field lengths. */
function serializedDocuments(ids: readonly string[], lengths: readonly number[][]) {
  const documentIds: Record<number, string> = {};
  const fieldLength: Record<number, number[]> = {};
  for (let shortId = 0; shortId < ids.length; shortId++) {
    documentIds[shortId] = ids[shortId] as string;
    fieldLength[shortId] = lengths[shortId] as number[];
  }
  return { documentIds, fieldLength };
}

/** One term's posting lists in MiniSearch's serialized form: field id → short id → frequency. */
function serialized(byField: Map<number, Postings>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [fieldId, postings] of byField) out[fieldId] = Object.fromEntries(postings);
  return out;
}
