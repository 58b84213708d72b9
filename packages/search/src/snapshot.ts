import type MiniSearch from "minisearch";
import { type Doc, FIELDS } from "./fields.js";
import type { Contents } from "./fill.js";
import { Postings } from "./postings.js";

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
 * `mini` as a {@link Snapshot}, read from its serialized form (`toJSON`): documents renumbered in
 * order, every posting of a document it holds.
 */
export function snapshotOf(mini: MiniSearch<Doc>): Snapshot {
  const { documentIds, fieldLength, index, nextId } = mini.toJSON();
  // Short id → position in `docs`, or -1.
  const position = new Int32Array(nextId).fill(-1);
  const docs: [string, ...number[]][] = [];
  // Integer keys enumerate in ascending order: short ids in the order documents were added.
  for (const key of Object.keys(documentIds)) {
    position[Number(key)] = docs.length;
    docs.push([String(documentIds[key]), ...(fieldLength[key] ?? FIELDS.map(() => 0))]);
  }
  const terms: [string, number, number[], number[]][] = [];
  for (const [t, byField] of index) {
    for (const fieldKey of Object.keys(byField)) {
      const frequencies = byField[fieldKey] as Record<string, number>;
      const positions: number[] = [];
      const counts: number[] = [];
      for (const idKey of Object.keys(frequencies)) {
        const at = position[Number(idKey)] ?? -1;
        if (at === -1) continue;
        positions.push(at);
        counts.push(frequencies[idKey] as number);
      }
      if (positions.length > 0) terms.push([t, Number(fieldKey), positions, counts]);
    }
  }
  return { docs, terms };
}

/**
 * The contents saved in `snapshot`, with only the documents at positions `keep` says yes to.
 * Throws on anything malformed (the caller builds afresh).
 */
export function contentsOf(snapshot: Snapshot, keep: (position: number, id: string) => boolean): Contents {
  const ids: string[] = [];
  const lengths: number[][] = [];
  const seen = new Set<string>();
  // Old position → new short id, or -1 for a document left out.
  const moved = new Int32Array(snapshot.docs.length).fill(-1);
  snapshot.docs.forEach((entry, position) => {
    const [id, ...counts] = entry;
    if (typeof id !== "string" || counts.length !== FIELDS.length || !counts.every(isCount)) {
      throw new Error(`malformed document ${position}`);
    }
    if (!keep(position, id)) return;
    if (seen.has(id)) throw new Error(`document ${id} repeated`);
    seen.add(id);
    moved[position] = ids.length;
    ids.push(id);
    lengths.push(counts);
  });
  const byTerm = new Map<string, (Postings | undefined)[]>();
  for (const entry of snapshot.terms) {
    const [t, fieldId] = entry;
    const postings = postingsOf(entry, moved);
    if (postings === undefined) continue;
    let byField = byTerm.get(t);
    if (byField === undefined) {
      byField = [];
      byTerm.set(t, byField);
    }
    if (byField[fieldId] !== undefined) throw new Error(`term ${t} repeated`);
    byField[fieldId] = postings;
  }
  const terms: string[] = [];
  const postings: Map<number, Postings>[] = [];
  for (const [t, byField] of byTerm) {
    const entry = new Map<number, Postings>();
    byField.forEach((frequencies, fieldId) => {
      if (frequencies !== undefined) entry.set(fieldId, frequencies);
    });
    terms.push(t);
    postings.push(entry);
  }
  return { ids, lengths, terms, postings };
}

/** The posting list of one saved entry, documents renumbered by `moved`; `undefined` when none is left. */
function postingsOf(entry: Snapshot["terms"][number], moved: Int32Array): Postings | undefined {
  const [t, fieldId, positions, counts] = entry;
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
  return ids.length === 0 ? undefined : new Postings(Int32Array.from(ids), Int32Array.from(frequencies));
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
