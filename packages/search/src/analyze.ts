import { stem } from "porter2";

/**
 * The stop words of the Snowball English stemmer (snowballstem.org), apostrophes removed to
 * match the tokenizer; contractions that would then read as words ("shell", "well", "id") are
 * left out. Dropped from fields and queries alike, so "help me fill in my form"
 * is searched as "help fill form".
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself " +
    "she her hers herself it its itself they them their theirs themselves what which who whom this " +
    "that these those am is are was were be been being have has had having do does did doing would " +
    "should could ought im youre hes shes theyre ive youve weve theyve youd theyd youll theyll " +
    "isnt arent wasnt werent hasnt havent hadnt doesnt dont " +
    "didnt wont wouldnt shant shouldnt cant cannot couldnt mustnt lets thats whos whats heres theres " +
    "whens wheres whys hows a an the and but if or because as until while of at by for with about " +
    "against between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more most " +
    "other some such no nor not only own same so than too very"
  ).split(" "),
);

/** Bumped whenever tokens or terms change, so a persisted index from another version is rebuilt. */
export const ANALYZER = "words+camel/porter2/snowball-stop/2";

const APOSTROPHES = /['\u2019]/g;
const WORD = /[\p{L}\p{N}]+/gu;
// Most text is printable ASCII, where a plain character class finds the same words much faster.
const NOT_ASCII = /[^\t\n\r -~]/;
const ASCII_WORD = /[A-Za-z0-9]+/g;
// Lower-to-upper ("pdfForm") and the last capital of a run before a lower ("XMLParser").
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

// What sends a text down the slower path: anything but printable ASCII, or an apostrophe.
const NOT_PLAIN = /[^\t\n\r -~]|'/;

/** Words of a text: runs of letters and digits; `-`, `_`, `.`, spaces and the rest separate them. */
export function words(text: string): string[] {
  // Most text is plain: one scan tells, and a plain character class finds its words fastest.
  if (!NOT_PLAIN.test(text)) return text.match(ASCII_WORD) ?? [];
  const plain = text.replace(APOSTROPHES, "");
  return plain.match(NOT_ASCII.test(plain) ? WORD : ASCII_WORD) ?? [];
}

// What a camelCase split needs: a capital letter.
const CAPITAL = /\p{Lu}/u;

/** Words of a skill name, camelCase parts included ("pdfFormFiller" → pdfFormFiller, pdf, Form, Filler). */
export function nameWords(name: string): string[] {
  const found = words(name);
  // Most names have no capital, so nothing to split: their words are the list.
  if (!CAPITAL.test(name)) return found;
  const out: string[] = [];
  for (let w = 0; w < found.length; w++) {
    const word = found[w] as string;
    if (CAPITAL.test(word)) {
      const parts = word.split(CAMEL);
      if (parts.length > 1) out.push(...parts);
    }
    out.push(word);
  }
  return out;
}

const ENGLISH = /^[a-z]+$/;
/** Terms already worked out: a catalog repeats a few thousand words, and stemming is the slow part. */
const memo = new Map<string, string | null>();
const MEMO_SIZE = 50_000;

/** The indexed form of a word: lower case, stemmed; `null` for a stop word. */
export function term(word: string): string | null {
  const known = memo.get(word);
  if (known !== undefined) return known;
  const out = loweredTerm(word.toLowerCase());
  if (memo.size >= MEMO_SIZE) memo.clear();
  if (word.length <= 40) memo.set(word, out);
  return out;
}

/** {@link term} of a word already in lower case, worked out afresh. */
export function loweredTerm(lower: string): string | null {
  // The stemmer is written for English letters; other scripts and numbers pass through.
  return STOP_WORDS.has(lower) ? null : ENGLISH.test(lower) ? stem(lower) : lower;
}

/**
 * Whether the words of a field are simply the runs of letters and digits of its text, apostrophes
 * left out (what `words` gives): true but for a name with a capital to split a camelCase word at.
 */
export function scanned(text: string, field: string | undefined): boolean {
  if (field !== "name") return true;
  // Most names are short and ASCII: a look at each character tells, with no Unicode class.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return false;
    if (c >= 128) return !CAPITAL.test(text);
  }
  return true;
}

/**
 * The words of a field that {@link term} turns into its terms, as typed: {@link term} lower-cases
 * each word (once per distinct word), as it does a query's, so both read a word alike.
 */
export function fieldWords(text: string, field: string | undefined): string[] {
  return field === "name" ? nameWords(text) : words(text);
}

/** The terms a field is indexed under, in order, repeats kept (they count in the ranking). */
export function fieldTerms(text: string, field: string | undefined): string[] {
  const out: string[] = [];
  for (const word of fieldWords(text, field)) {
    const t = term(word);
    if (t !== null) out.push(t);
  }
  return out;
}
