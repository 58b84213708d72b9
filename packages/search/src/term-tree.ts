// The one place this package reaches past MiniSearch's public API.
//
// What it touches: `_index`, the field (protected, undocumented) where MiniSearch 7 keeps its
// term tree: a `SearchableMap` from each term to a `Map` from field id to the term's posting
// list, itself a `Map` from a document's short id to the term's frequency there. Terms are put
// in with the tree's own `set`, each posting list a `Postings`: two shared typed arrays read
// through the `Map` methods MiniSearch calls on a posting list (get, has, size, keys, iteration),
// turned into a real `Map` by the first write (set, delete). And the three `Map`s it keeps of
// its documents, `_documentIds` (short id → id), `_idToShortId` (id → short id) and
// `_fieldLength` (short id → distinct terms per field id), filled with their own `set`. Nothing
// else is touched: counts and averages go in through `MiniSearch.loadJS`, the saved form comes
// out of `toJSON`.
//
// Why: MiniSearch's public ways in, `add` and `loadJS` of its serialized form, make a `Map` per
// term and field and an entry in it per posting, and `loadJS` reads its documents from objects
// keyed by short id (a string made and parsed back per document). For the bench's 10,000
// skills, a first `createSkillIndex` in a process took about 2.5 (`addAll`) and 2.3 (`loadJS`
// with the terms) times the CPU it takes this way, against a target of 150 ms for it.
//
// If MiniSearch changes: `termTreeReachable` checks, once per process, that a one-word index
// made the public way holds its term in `_index` and its document in those maps as expected;
// when it does not, the terms and documents go in through `loadJS` too (slower, the same
// results). What that check cannot see, MiniSearch reading a posting list through a method
// `Postings` lacks, fails the tests that compare an index filled here with the one
// `MiniSearch#add` builds (mini.test.ts); term-tree.test.ts names this file when a field is gone.
import MiniSearch from "minisearch";
import type { Postings } from "./postings.js";

/** What `_index` is taken to be: the tree's `get` and `set`, as `SearchableMap` has them. */
interface TermTree {
  get(term: string): unknown;
  set(term: string, entry: Map<number, Postings>): unknown;
}

/** What MiniSearch's document maps are taken to be. */
interface DocumentMaps {
  _documentIds: Map<number, unknown>;
  _idToShortId: Map<unknown, number>;
  _fieldLength: Map<number, number[]>;
}

let reachable: boolean | undefined;

/**
 * Whether MiniSearch keeps its terms and documents where {@link insertTerms} and
 * {@link insertDocuments} put them (checked once).
 */
export function termTreeReachable(): boolean {
  reachable ??= probe();
  return reachable;
}

/** Puts `terms[n]` with `postings[n]` (its posting list per field id) into `mini`'s term tree. */
export function insertTerms<T>(
  mini: MiniSearch<T>,
  terms: readonly string[],
  postings: readonly Map<number, Postings>[],
): void {
  const tree = treeOf(mini);
  if (tree === undefined) throw new Error("MiniSearch's term tree is out of reach");
  for (let n = 0; n < terms.length; n++) tree.set(terms[n] as string, postings[n] as Map<number, Postings>);
}

/**
 * Puts the documents `ids[shortId]` with their distinct-term counts per field id
 * (`lengths[shortId]`, kept, not copied) into `mini`, made by `loadJS` with none.
 */
export function insertDocuments<T>(mini: MiniSearch<T>, ids: readonly string[], lengths: number[][]): void {
  const maps = documentMapsOf(mini);
  if (maps === undefined) throw new Error("MiniSearch's document maps are out of reach");
  const { _documentIds: documentIds, _idToShortId: idToShortId, _fieldLength: fieldLength } = maps;
  for (let shortId = 0; shortId < ids.length; shortId++) {
    const id = ids[shortId] as string;
    documentIds.set(shortId, id);
    idToShortId.set(id, shortId);
    fieldLength.set(shortId, lengths[shortId] as number[]);
  }
}

function documentMapsOf(mini: object): DocumentMaps | undefined {
  const maps = mini as unknown as Partial<DocumentMaps>;
  return maps._documentIds instanceof Map &&
    maps._idToShortId instanceof Map &&
    maps._fieldLength instanceof Map
    ? (maps as DocumentMaps)
    : undefined;
}

function treeOf(mini: object): TermTree | undefined {
  const tree = (mini as unknown as { _index?: Partial<TermTree> })._index;
  return typeof tree?.get === "function" && typeof tree.set === "function" ? (tree as TermTree) : undefined;
}

function probe(): boolean {
  try {
    const mini = new MiniSearch<{ id: number; text: string }>({ fields: ["text"], autoVacuum: false });
    mini.add({ id: 7, text: "word word" });
    const entry = treeOf(mini)?.get("word");
    const postings = entry instanceof Map && entry.size === 1 ? entry.get(0) : undefined;
    const maps = documentMapsOf(mini);
    return (
      postings instanceof Map &&
      postings.size === 1 &&
      postings.get(0) === 2 &&
      maps?._documentIds.get(0) === 7 &&
      maps._idToShortId.get(7) === 0 &&
      maps._fieldLength.get(0)?.[0] === 1
    );
  } catch {
    return false;
  }
}
