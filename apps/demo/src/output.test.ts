// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { relative, sep } from "node:path";
import { printable } from "@skill/core";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { cutStart, displayPath, fitWidth, width, widthUpTo } from "./output.js";

/** Every code point of the ranges output.ts measures without string-width. */
function narrowCodePoints(): string[] {
  const ranges: [number, number][] = [
    [0x20, 0x7e],
    [0xa0, 0xac],
    [0xae, 0x2ff],
    [0x370, 0x482],
    [0x48a, 0x4ff],
    [0x2010, 0x2027],
    [0x2030, 0x205e],
    [0x2190, 0x22ff],
    [0x2500, 0x257f],
  ];
  return ranges.flatMap(([from, to]) =>
    Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i)),
  );
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** What fitWidth did before its fast path: graphemes measured by string-width. */
function fitReference(flat: string, columns: number): string {
  if (stringWidth(flat) <= columns) return flat;
  if (columns < 1) return "";
  let out = "";
  let used = 0;
  for (const { segment } of segmenter.segment(flat)) {
    const w = stringWidth(segment);
    if (used + w > columns - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** What cutStart did before its fast path. */
function cutStartReference(text: string, columns: number): string {
  const flat = printable(text);
  if (stringWidth(flat) <= columns) return flat;
  if (columns < 1) return "";
  const parts = [...segmenter.segment(flat)].map((s) => s.segment);
  let out = "";
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const w = stringWidth(parts[i] as string);
    if (used + w > columns - 1) break;
    out = (parts[i] as string) + out;
    used += w;
  }
  return `…${out}`;
}

const MIXED = [
  "",
  "plain ascii",
  "café au lait — “quoted” … naïve ŝ ɐ ʰ",
  "line one\nline two\r\n\ttabbed\u007f",
  "日本語のテキスト",
  "emoji 👍🏽 and 👨‍👩‍👧 family",
  "e\u0301 combining and soft\u00adhyphen",
  "zero\u200bwidth\u2028separator",
  "\u001b[1mbold\u001b[22m text",
  "한국어 각",
  "①②③ ambiguous ±×÷",
];

describe("width", () => {
  it("gives each narrow code point one column, as string-width does", () => {
    for (const ch of narrowCodePoints()) {
      expect(stringWidth(ch), `U+${ch.codePointAt(0)?.toString(16)}`).toBe(1);
      expect(width(ch), `U+${ch.codePointAt(0)?.toString(16)}`).toBe(1);
    }
  });

  it("gives C0 controls and DEL no column, as string-width does", () => {
    for (let c = 0; c < 0x20; c++) {
      if (c === 0x1b) continue;
      expect(width(String.fromCharCode(c))).toBe(stringWidth(String.fromCharCode(c)));
    }
    expect(width("\u007f")).toBe(stringWidth("\u007f"));
  });

  it("measures narrow text of many code points as string-width does", () => {
    const all = narrowCodePoints();
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let n = 0; n < 200; n++) {
      const text = Array.from({ length: 1 + (next() % 60) }, () => all[next() % all.length]).join("");
      expect(width(text), text).toBe(stringWidth(text));
    }
  });

  it.each(MIXED)("measures %j as string-width does", (text) => {
    expect(width(text)).toBe(stringWidth(text));
  });

  it.each(MIXED)("counts %j up to a limit as min(string-width, limit)", (text) => {
    for (const limit of [0, 1, 3, 8, 15, 100, Number.POSITIVE_INFINITY])
      expect(widthUpTo(text, limit)).toBe(Math.min(stringWidth(text), limit));
  });

  it("counts a long wide text up to a limit without measuring all of it", () => {
    const long = "日本語のテキスト→ ".repeat(20_000);
    expect(widthUpTo(long, 40)).toBe(40);
    expect(fitWidth(long, 12)).toBe("日本語のテ…");
  });
});

describe("fitWidth and cutStart", () => {
  it.each(MIXED)("cut %j as graphemes measured by string-width", (text) => {
    const flat = printable(text);
    for (const columns of [0, 1, 3, 8, 15, 100]) {
      expect(fitWidth(flat, columns)).toBe(fitReference(flat, columns));
      expect(cutStart(text, columns)).toBe(cutStartReference(text, columns));
    }
  });
});

/** What displayPath did before its prefix test: `path.relative` for every path. */
function displayReference(path: string, cwd: string, home: string): string {
  if (!path.startsWith("/")) return printable(path);
  const fromCwd = relative(cwd, path);
  if (fromCwd && !fromCwd.startsWith("..") && !fromCwd.startsWith(sep)) return printable(fromCwd);
  const fromHome = relative(home, path);
  if (fromHome && !fromHome.startsWith("..") && !fromHome.startsWith(sep))
    return printable(`~${sep}${fromHome}`);
  return printable(path);
}

describe("displayPath", () => {
  const folders = [
    "/",
    "/home/ann",
    "/home/ann/project",
    "/home/ann/project/",
    "/home/ann/./project",
    "/srv//p",
  ];
  const paths = [
    "/home/ann/project/.agents/skills/pdf/SKILL.md",
    "/home/ann/project",
    "/home/ann/projects/x/SKILL.md",
    "/home/ann/.claude/skills/a/SKILL.md",
    "/home/ann/project/..odd/SKILL.md",
    "/home/ann/project/../other/SKILL.md",
    "/home/ann/project/./a/SKILL.md",
    "/home/ann/project/a/",
    "/home/ann/project//a",
    "/srv/p/a\u001b[31m/SKILL.md",
    "/elsewhere/SKILL.md",
    "/",
    "skill://skills/pdf/SKILL.md",
  ];
  it("gives what path.relative gives, for paths inside, equal to, beside and outside cwd and home", () => {
    for (const cwd of folders) {
      for (const home of folders) {
        for (const path of paths) {
          expect(displayPath(path, cwd, home), `${path} from ${cwd}, home ${home}`).toBe(
            displayReference(path, cwd, home),
          );
        }
      }
    }
  });
});
