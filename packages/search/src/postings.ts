/**
 * The documents holding one term in one field, with the term's frequency in each: the
 * `Map<shortId, frequency>` MiniSearch keeps in its term tree (see term-tree.ts), packed as a
 * range of two shared arrays (ids ascending) while it is only read. The first write (a later
 * `add` or `remove`) turns it into a plain `Map`. Reads walk the ids in order, so `get` checks
 * the slot after the last one found before searching.
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
