import MiniSearch from "minisearch";
import { type Doc, FIELDS, miniSearchOptions } from "./fields.js";
import { type Contents, fill } from "./fill.js";
import type { Postings } from "./postings.js";
import { contentsOf, type Snapshot } from "./snapshot.js";
import { insertTerms, termTreeReachable } from "./term-tree.js";

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
 * that other tools could write it. The terms go straight into its term tree (term-tree.ts) while
 * that is within reach (`intoTree`), else into the serialized form too. Later adds, removes and
 * searches are MiniSearch's own.
 */
export function miniSearchOf(contents: Contents, intoTree = termTreeReachable()): MiniSearch<Doc> {
  const { ids, lengths, terms, postings } = contents;
  const documentIds: Record<number, string> = {};
  const fieldLength: Record<number, number[]> = {};
  const totals = FIELDS.map(() => 0);
  for (let shortId = 0; shortId < ids.length; shortId++) {
    documentIds[shortId] = ids[shortId] as string;
    const counts = lengths[shortId] as number[];
    fieldLength[shortId] = counts;
    for (let fieldId = 0; fieldId < FIELDS.length; fieldId++) {
      totals[fieldId] = (totals[fieldId] as number) + (counts[fieldId] as number);
    }
  }
  const mini = MiniSearch.loadJS<Doc>(
    {
      documentCount: ids.length,
      nextId: ids.length,
      documentIds,
      fieldIds: Object.fromEntries(FIELDS.map((field, fieldId) => [field, fieldId])),
      fieldLength,
      averageFieldLength: totals.map((total) => (ids.length === 0 ? 0 : total / ids.length)),
      storedFields: {},
      dirtCount: 0,
      index: intoTree ? [] : terms.map((t, n) => [t, serialized(postings[n] as Map<number, Postings>)]),
      serializationVersion: 2,
    },
    miniSearchOptions,
  );
  if (intoTree) insertTerms(mini, terms, postings);
  return mini;
}

/** One term's posting lists in MiniSearch's serialized form: field id → short id → frequency. */
function serialized(byField: Map<number, Postings>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [fieldId, postings] of byField) out[fieldId] = Object.fromEntries(postings);
  return out;
}
