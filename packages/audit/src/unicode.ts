/** Characters that render as nothing (or reorder text) while a model still reads them. */
const HIDDEN =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is looked for on its own, combining or not
  /[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

const NAMES: Readonly<Record<number, string>> = {
  173: "soft hyphen",
  847: "combining grapheme joiner",
  1564: "arabic letter mark",
  4447: "hangul choseong filler",
  4448: "hangul jungseong filler",
  6158: "mongolian vowel separator",
  8203: "zero width space",
  8204: "zero width non-joiner",
  8205: "zero width joiner",
  8206: "left-to-right mark",
  8207: "right-to-left mark",
  8234: "left-to-right embedding",
  8235: "right-to-left embedding",
  8236: "pop directional formatting",
  8237: "left-to-right override",
  8238: "right-to-left override",
  8288: "word joiner",
  8289: "function application",
  8290: "invisible times",
  8291: "invisible separator",
  8292: "invisible plus",
  8294: "left-to-right isolate",
  8295: "right-to-left isolate",
  8296: "first strong isolate",
  8297: "pop directional isolate",
  12644: "hangul filler",
  65279: "zero width no-break space",
  65440: "halfwidth hangul filler",
};

function describe(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  if (cp >= 0xe0000 && cp <= 0xe007f) return `${hex} tag character`;
  if (cp >= 0xe0100 && cp <= 0xe01ef) return `${hex} variation selector`;
  return `${hex} ${NAMES[cp] ?? "invisible character"}`;
}

// biome-ignore lint/suspicious/noMisleadingCharacterClass: each code point is looked for on its own, combining or not
const PICTOGRAPH = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f\u20e3]/u;
const JOINING_LETTER = /[\p{L}\p{M}]/u;
const LATIN_OR_COMMON = /[\p{Script=Latin}\p{Script=Common}]/u;

function charBefore(text: string, index: number): string {
  const cp = text.codePointAt(index - 1);
  if (cp === undefined) return "";
  // The low half of a pair: step back to its high half.
  if (cp >= 0xdc00 && cp <= 0xdfff && index >= 2)
    return String.fromCodePoint(text.codePointAt(index - 2) ?? cp);
  return String.fromCodePoint(cp);
}

function charAfter(text: string, index: number): string {
  const cp = text.codePointAt(index);
  return cp === undefined ? "" : String.fromCodePoint(cp);
}

/**
 * Zero-width joiners and non-joiners have honest jobs: inside emoji sequences
 * (👨‍👩‍👧) and between letters of scripts that use them (Persian, Indic).
 */
function legitimateJoiner(text: string, index: number, cp: number): boolean {
  if (cp !== 0x200c && cp !== 0x200d) return false;
  const before = charBefore(text, index);
  const after = charAfter(text, index + 1);
  if (cp === 0x200d && PICTOGRAPH.test(before) && PICTOGRAPH.test(after)) return true;
  const letter = (c: string) => JOINING_LETTER.test(c) && !LATIN_OR_COMMON.test(c);
  return letter(before) && letter(after);
}

/** Every hidden character in `text` that is not an honest joiner, and not a BOM at offset 0. */
export function hiddenChars(text: string): { index: number; cp: number }[] {
  const found: { index: number; cp: number }[] = [];
  HIDDEN.lastIndex = 0;
  for (let m = HIDDEN.exec(text); m !== null; m = HIDDEN.exec(text)) {
    const cp = m[0].codePointAt(0) ?? 0;
    if (cp === 0xfeff && m.index === 0) continue;
    if (legitimateJoiner(text, m.index, cp)) continue;
    found.push({ index: m.index, cp });
  }
  return found;
}

/** A message for the hidden characters of one line: which ones, how many, and what tag characters spell. */
export function describeHidden(cps: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const cp of cps) counts.set(cp, (counts.get(cp) ?? 0) + 1);
  const kinds = [...counts].slice(0, 4).map(([cp, n]) => (n > 1 ? `${describe(cp)} ×${n}` : describe(cp)));
  if (counts.size > 4) kinds.push(`${counts.size - 4} more kinds`);
  let message = `${cps.length === 1 ? "an invisible character" : `${cps.length} invisible characters`} (${kinds.join(", ")})`;
  // Tag characters U+E0020–E007E mirror ASCII: show the text they spell.
  const spelled = cps
    .filter((cp) => cp >= 0xe0020 && cp <= 0xe007e)
    .map((cp) => String.fromCharCode(cp - 0xe0000))
    .join("");
  if (spelled.trim() !== "") {
    const shown = spelled.length > 60 ? `${spelled.slice(0, 59)}…` : spelled;
    message += ` spelling ${JSON.stringify(shown)}`;
  }
  return message;
}
