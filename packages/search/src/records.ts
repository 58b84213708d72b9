import { term } from "./analyze.js";
import { FIELDS } from "./fields.js";

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
export class Records {
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
