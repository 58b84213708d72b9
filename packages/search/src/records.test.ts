import { describe, expect, it } from "vitest";
import { fieldWords, scanned } from "./analyze.js";
import { FIELDS } from "./fields.js";
import { Records } from "./records.js";

/** What `records` holds for document 0, field 0, as (term, count) in record order. */
function held(records: Records): [string, number][] {
  const out: [string, number][] = [];
  for (let r = 0; r < records.count; r++) {
    const key = records.keyOf.array[r] as number;
    out.push([records.terms[Math.floor(key / FIELDS.length)] as string, records.countOf.array[r] as number]);
  }
  return out;
}

/** A text read by the scan (`runs`, then `rest` from where it stopped) and as a list of words. */
function both(text: string): { scanned: [string, number][]; listed: [string, number][]; distinct: number[] } {
  const scan = new Records();
  let distinct = scan.runs(text, 0, 0);
  if (scan.stop < text.length) distinct += scan.rest(text, scan.stop, 0, 0);
  const list = new Records();
  const listed = list.field(fieldWords(text, "description"), 0, 0);
  return { scanned: held(scan), listed: held(list), distinct: [distinct, listed] };
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

  it("stops the ASCII scan at the first word it cannot read alone, and the rest reads on from there", () => {
    const records = new Records();
    const text = "plain words first, then user's files and café";
    records.runs(text, 0, 0);
    expect(records.stop).toBe(text.indexOf("user's"));
    expect(held(records).map(([t]) => t)).toEqual(["plain", "word", "first"]);
    records.rest(text, records.stop, 0, 0);
    expect(held(records).map(([t]) => t)).toEqual(["plain", "word", "first", "user", "file", "café"]);
    const plain = new Records();
    plain.runs("nothing unusual here", 0, 0);
    expect(plain.stop).toBe("nothing unusual here".length);
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
