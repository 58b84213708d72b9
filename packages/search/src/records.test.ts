import { describe, expect, it } from "vitest";
import { fieldWords, scanned } from "./analyze.js";
import { FIELDS } from "./fields.js";
import { Records } from "./records.js";

/** What `records` holds from record `from` on, as (term, count) in record order. */
function held(records: Records, from = 0): [string, number][] {
  const out: [string, number][] = [];
  for (let r = from; r < records.count; r++) {
    const key = records.keyOf.array[r] as number;
    out.push([records.terms[Math.floor(key / FIELDS.length)] as string, records.countOf.array[r] as number]);
  }
  return out;
}

/** Records the words of `text` as the fill does a field it scans: `runs`, and `word` where it stops. */
function scan(records: Records, text: string, first: number): number {
  let distinct = records.runs(text, 0, 0, first);
  while (records.stop < text.length) {
    distinct += records.word(text, records.stop, 0, first);
    distinct += records.runs(text, records.stop, 0, first);
  }
  return distinct;
}

/** A text read by the scan and as a list of words. */
function both(text: string): { scanned: [string, number][]; listed: [string, number][]; distinct: number[] } {
  const scanning = new Records();
  const distinct = scan(scanning, text, 0);
  const list = new Records();
  const listed = list.field(fieldWords(text, "description"), 0, 0);
  return { scanned: held(scanning), listed: held(list), distinct: [distinct, listed] };
}

describe("Records", () => {
  it("reads a text by its characters as it reads the text's list of words", () => {
    const texts = [
      "Fill in a PDF form, then fill the form again: PDF forms.",
      "Don't use the user's files; don\u2019t ship 'quoted' words''.",
      "café naïve CAFÉ Naïve — 東京 → k8s",
      "Ελληνικά слово ٣ e\u0301 \u{1d400}\u{1d401} 😀 x\ud800y \udc00z",
      "tail apostrophe'",
      "\u2019",
      "éa",
      "a\u00a0b\u2028c\u0000d\u007fe",
      "",
    ];
    for (const text of texts) {
      const { scanned, listed, distinct } = both(text);
      expect(scanned, text).toEqual(listed);
      expect(distinct[0], text).toBe(distinct[1]);
    }
  });

  it("scans known ASCII words alone, and stops at a word that is new or not plain", () => {
    const records = new Records();
    scan(records, "plain words first", 0);
    const first = records.count;
    const text = "plain words first, then user's files and café";
    records.runs(text, 0, 0, first);
    expect(records.stop).toBe(text.indexOf("then"));
    expect(held(records, first).map(([t]) => t)).toEqual(["plain", "word", "first"]);
    records.word(text, records.stop, 0, first);
    records.runs(text, records.stop, 0, first);
    expect(records.stop).toBe(text.indexOf("user's"));
    records.word(text, records.stop, 0, first);
    expect(records.stop).toBe(text.indexOf(" files"));
    expect(held(records, first).map(([t]) => t)).toEqual(["plain", "word", "first", "user"]);
    records.runs("plain words", 0, 0, records.count);
    expect(records.stop).toBe("plain words".length);
  });

  it("stems a word once whatever its case, and gives each case the same term", () => {
    const { scanned } = both("Form form FORM Forms");
    expect(scanned).toEqual([["form", 4]]);
  });

  it("scans every field but a name with a capital", () => {
    expect(scanned("Don't — café", "description")).toBe(true);
    expect(scanned("pdf-form-filler", "name")).toBe(true);
    expect(scanned("pdfFormFiller", "name")).toBe(false);
    expect(scanned("émile-Éclair", "name")).toBe(false);
    expect(scanned("émile-éclair", "name")).toBe(true);
  });
});
