import { fieldWords, scanned } from "./analyze.js";
import { type Doc, FIELDS } from "./fields.js";
import { Postings } from "./postings.js";
import { Records } from "./records.js";

/**
 * What an index holds, as it is handed to MiniSearch: its documents in short-id order (0, 1, …)
 * with the distinct-term count of each field, and its terms, each with a posting list per field
 * id that holds it (`postings[n]` belongs to `terms[n]`).
 */
export interface Contents {
  readonly ids: readonly string[];
  readonly lengths: number[][];
  readonly terms: readonly string[];
  readonly postings: readonly Map<number, Postings>[];
}

/**
 * The contents of an index of `docs` (short ids in their order), in one pass: each word is looked
 * up once in a table of the fill, (term and field, document, count) recorded in flat arrays,
 * then sorted by term with one counting pass. Lengths and frequencies are the ones
 * `MiniSearch#add` records.
 */
export function fill(docs: readonly Doc[]): Contents {
  const records = new Records();
  const ids: string[] = [];
  const lengths: number[][] = [];
  // Per document: where its records start, and (last) where they end.
  const firstOf = new Int32Array(docs.length + 1);
  recordAll(docs, records, ids, lengths, firstOf);
  firstOf[docs.length] = records.count;
  return { ids, lengths, terms: records.terms, postings: byTerm(records, firstOf) };
}

// Each long loop of a fill is a function of its own that ends with it: the engine compiles a
// loop while it runs (on-stack replacement), and code after it that has not run yet would send
// the compiled function back to the interpreter.

/** Records the words of every document, noting its id, field lengths and first record. */
function recordAll(
  docs: readonly Doc[],
  records: Records,
  ids: string[],
  lengths: number[][],
  firstOf: Int32Array,
): void {
  for (let shortId = 0; shortId < docs.length; shortId++) {
    const doc = docs[shortId] as Doc;
    ids.push(doc.id);
    firstOf[shortId] = records.count;
    lengths.push(recordDoc(records, doc));
  }
}

/**
 * Records the words of one document; returns the distinct terms of each field. A function of its
 * own, called once a document, so that the engine compiles it early in the first fill.
 */
function recordDoc(records: Records, doc: Doc): number[] {
  const first = records.count;
  const counts = new Array<number>(FIELDS.length);
  for (let fieldId = 0; fieldId < FIELDS.length; fieldId++) {
    const field = FIELDS[fieldId] as (typeof FIELDS)[number];
    const text = doc[field];
    // Most skills leave some fields empty.
    if (text === "") counts[fieldId] = 0;
    else if (scanned(text, field)) counts[fieldId] = scan(records, text, fieldId, first);
    else counts[fieldId] = records.field(fieldWords(text, field), fieldId, first);
  }
  return counts;
}

/** Records the words of `text`, a field that is scanned; returns its distinct terms. */
function scan(records: Records, text: string, fieldId: number, first: number): number {
  let distinct = records.runs(text, 0, fieldId, first);
  while (records.stop < text.length) {
    distinct += records.word(text, records.stop, fieldId, first);
    distinct += records.runs(text, records.stop, fieldId, first);
  }
  return distinct;
}

/** Each term's posting lists, from records in document order (`firstOf`: where each document's records start). */
function byTerm(records: Records, firstOf: Int32Array): Map<number, Postings>[] {
  const F = FIELDS.length;
  const { terms, count } = records;
  // Counting sort by key; records are in document order, so each key's ids come out ascending.
  const starts = new Int32Array(terms.length * F + 1);
  countKeys(records.keyOf.array, count, starts);
  sumUp(starts);
  const shortIds = new Int32Array(count);
  const frequencies = new Int32Array(count);
  place(records, firstOf, starts.slice(0, terms.length * F), shortIds, frequencies);
  const postings = new Array<Map<number, Postings>>(terms.length);
  listAll(starts, shortIds, frequencies, postings);
  return postings;
}

/** `starts[key + 1]`: how many of the first `count` records have `key`. */
function countKeys(keyArray: Int32Array, count: number, starts: Int32Array): void {
  for (let i = 0; i < count; i++) {
    const k = (keyArray[i] as number) + 1;
    starts[k] = (starts[k] as number) + 1;
  }
}

/** Counts to where each key's run starts. */
function sumUp(starts: Int32Array): void {
  for (let k = 1; k < starts.length; k++) starts[k] = (starts[k] as number) + (starts[k - 1] as number);
}

/** Each record's document and count, at the next place of its key's run (`next`). */
function place(
  records: Records,
  firstOf: Int32Array,
  next: Int32Array,
  shortIds: Int32Array,
  frequencies: Int32Array,
): void {
  const keyArray = records.keyOf.array;
  const countArray = records.countOf.array;
  const documents = firstOf.length - 1;
  for (let shortId = 0; shortId < documents; shortId++) {
    const end = firstOf[shortId + 1] as number;
    for (let i = firstOf[shortId] as number; i < end; i++) {
      const k = keyArray[i] as number;
      const to = next[k] as number;
      next[k] = to + 1;
      shortIds[to] = shortId;
      frequencies[to] = countArray[i] as number;
    }
  }
}

/** `postings[n]`: term `n`'s posting list per field that holds it. */
function listAll(
  starts: Int32Array,
  shortIds: Int32Array,
  frequencies: Int32Array,
  postings: Map<number, Postings>[],
): void {
  const F = FIELDS.length;
  for (let n = 0; n < postings.length; n++) {
    const entry = new Map<number, Postings>();
    for (let fieldId = 0; fieldId < F; fieldId++) {
      const from = starts[n * F + fieldId] as number;
      const to = starts[n * F + fieldId + 1] as number;
      if (from !== to) entry.set(fieldId, new Postings(shortIds, frequencies, from, to));
    }
    postings[n] = entry;
  }
}
