import { loweredTerm } from "./analyze.js";
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

/** What {@link Records} finds of a word that is not in its table. */
const UNKNOWN = -2;

/** The apostrophes `words` leaves out, so that "don't" reads as "dont". */
const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;

/** A letter or digit of any script, as `words` reads them. */
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
/** Code points beyond ASCII met so far → whether each is a letter or digit. */
const wordPoints = new Map<number, boolean>();

/**
 * How many UTF-16 code units the letter or digit at `i` of `text` takes (its first, `c`): 1, 2
 * for one outside the BMP, 0 for any other character (a lone surrogate among them).
 */
function wordUnits(text: string, i: number, c: number): number {
  if (c < 128) return WORD_CHAR[c] as number;
  let point = c;
  if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low < 0xe000) point = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
  }
  let word = wordPoints.get(point);
  if (word === undefined) {
    word = LETTER_OR_DIGIT.test(String.fromCodePoint(point));
    wordPoints.set(point, word);
  }
  return word ? (point > 0xffff ? 2 : 1) : 0;
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
  readonly #byTerm = new Map<string, number>();
  readonly terms: string[] = [];
  // The arrays start small: they grow early, while the engine still interprets a process's
  // first fill, rather than in code it compiled before any of them had to grow.
  /** Per key (term × fields + field): its last record, -1 before the first. */
  readonly #lastAt = new Grow(64 * FIELDS.length, -1);
  /** Per record: its key, and how often its term is in its document's field. */
  readonly keyOf = new Grow(1 << 10);
  readonly countOf = new Grow(1 << 10);
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
      const n = this.#lookupWord(words[w] as string);
      if (n >= 0) distinct += this.#record(n * FIELDS.length + fieldId, first, keyOf, countOf);
    }
    return distinct;
  }

  /**
   * {@link field} for any field but a name with a capital (see `scanned`), from `from` on, for
   * the words most text is made of: ASCII letters and digits between ASCII separators, that the
   * table of the fill already holds. They are found by one scan of the text and looked up by
   * their characters, so that they need no string of their own. It stops at the first word that
   * is not one of them (new, or with an apostrophe or a character beyond ASCII in or before it):
   * {@link stop} says where (the text's length when none), and {@link word} reads that one. A
   * method apart from the rest, so that the engine compiles it small and early. Together they
   * record exactly what `field(fieldWords(text, field), fieldId, first)` does.
   */
  runs(text: string, from: number, fieldId: number, first: number): number {
    // At most one record per two characters (a word and a separator).
    const room = ((text.length - from) >> 1) + 1;
    const keyOf = this.keyOf.reserve(this.count + room);
    const countOf = this.countOf.reserve(this.count + room);
    let distinct = 0;
    const length = text.length;
    let i = from;
    while (i < length) {
      let c = text.charCodeAt(i);
      if (c < 128 && WORD_CHAR[c] === 0) {
        i++;
        continue;
      }
      if (c >= 128) break;
      const start = i;
      let hash = 0;
      do {
        hash = (Math.imul(hash, 31) + c) | 0;
        if (++i === length) break;
        c = text.charCodeAt(i);
      } while (c < 128 && WORD_CHAR[c] === 1);
      const n = i < length && (c >= 128 || c === APOSTROPHE) ? UNKNOWN : this.#find(text, start, i, hash);
      if (n === UNKNOWN) {
        i = start;
        break;
      }
      if (n >= 0) distinct += this.#record(n * FIELDS.length + fieldId, first, keyOf, countOf);
    }
    this.stop = i;
    return distinct;
  }

  /** Where {@link runs} or {@link word} stopped: the length of the text when at its end. */
  stop = 0;

  /**
   * Reads the word at `at` of `text`, any word (nothing when a separator is there), as `words`
   * does: letters and digits of any script, apostrophes left out. Records it (after
   * {@link runs} made room) and sets {@link stop} to where reading goes on; returns 1 for the
   * first record of its term in the field, else 0.
   */
  word(text: string, at: number, fieldId: number, first: number): number {
    const word = this.#read(text, at);
    const n = word === "" ? -1 : this.#lookupWord(word);
    if (n < 0) return 0;
    return this.#record(n * FIELDS.length + fieldId, first, this.keyOf.array, this.countOf.array);
  }

  /** The word at `start` ("" when none starts there); sets {@link stop} to where reading goes on. */
  #read(text: string, start: number): string {
    let i = start;
    let word = "";
    let from = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      const units = c < 128 ? (WORD_CHAR[c] as number) : wordUnits(text, i, c);
      if (units !== 0) i += units;
      else if ((c === APOSTROPHE || c === RIGHT_QUOTE) && i !== start) {
        // Left out of the word, which goes on after it.
        word += text.slice(from, i);
        from = ++i;
      } else break;
    }
    this.stop = i === start ? start + 1 : i;
    return i === start ? "" : word + text.slice(from, i);
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

  /** The words of the fill met so far: open addressing, each slot an entry number plus one (0: empty). */
  #slots = new Int32Array(1 << 8);
  readonly #entryWord: string[] = [];
  readonly #entryHash = new Grow(1 << 7);
  readonly #entryTerm = new Grow(1 << 7);

  /** The term number of `text[start..end)`, a word whose hash is `hash`, if in the table. */
  #find(text: string, start: number, end: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    const hashes = this.#entryHash.array;
    let s = hash & mask;
    for (;;) {
      const e = slots[s] as number;
      if (e === 0) return UNKNOWN;
      if (hashes[e - 1] === hash) {
        const word = this.#entryWord[e - 1] as string;
        if (word.length === end - start && sameChars(word, text, start)) {
          return this.#entryTerm.array[e - 1] as number;
        }
      }
      s = (s + 1) & mask;
    }
  }

  /** The term number of `word`, entered in the table when it is new. */
  #lookupWord(word: string): number {
    let hash = 0;
    for (let k = 0; k < word.length; k++) hash = (Math.imul(hash, 31) + word.charCodeAt(k)) | 0;
    const slots = this.#slots;
    const mask = slots.length - 1;
    let s = hash & mask;
    for (;;) {
      const e = slots[s] as number;
      if (e === 0) break;
      if (this.#entryWord[e - 1] === word) return this.#entryTerm.array[e - 1] as number;
      s = (s + 1) & mask;
    }
    return this.#insert(word, hash, s);
  }

  /**
   * Enters `word` (hash `hash`) in the empty slot `s` with its term number (-1: a stop word), and
   * returns that. A word with capitals takes the term of its lower case, which is looked up (and
   * entered) too, so that "Form" and "form" are stemmed once.
   */
  #insert(word: string, hash: number, s: number): number {
    const lower = word.toLowerCase();
    let n: number;
    let slot = s;
    if (lower !== word) {
      n = this.#lookupWord(lower);
      // Entering it may have taken the slot or grown the table.
      slot = this.#emptySlot(hash);
    } else n = this.#number(lower);
    const e = this.#entryWord.length;
    this.#entryWord.push(word);
    this.#entryHash.reserve(e)[e] = hash;
    this.#entryTerm.reserve(e)[e] = n;
    this.#slots[slot] = e + 1;
    // Kept at most half full, so that a probe ends soon.
    if ((e + 1) * 2 > this.#slots.length) this.#grow();
    return n;
  }

  /** The first empty slot for a word whose hash is `hash`. */
  #emptySlot(hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let s = hash & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    return s;
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

  /** The number of the term of a word in lower case (-1: a stop word), numbered when new. */
  #number(lower: string): number {
    const t = loweredTerm(lower);
    if (t === null) return -1;
    let n = this.#byTerm.get(t);
    if (n === undefined) {
      n = this.terms.length;
      this.terms.push(t);
      this.#byTerm.set(t, n);
      this.#lastAt.reserve(n * FIELDS.length + FIELDS.length - 1, -1);
    }
    return n;
  }
}
