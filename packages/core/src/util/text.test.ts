import { describe, expect, it } from "vitest";
import { codePoints, singleLineLength } from "./text.js";

describe("codePoints", () => {
  it("counts what iterating the text counts, lone surrogates included", () => {
    const cases = [
      "",
      "pdf",
      "café",
      "日本語",
      "😀",
      "a😀b𝐀c",
      "\uD83D", // a high surrogate alone
      "\uDE00", // a low surrogate alone
      "\uDE00\uD83D", // the two in the wrong order
      "x\uD83D\uD83D\uDE00y", // a lone high surrogate, then a pair
      "\uD83D\uDE00\uDE00",
    ];
    for (const text of cases) expect(codePoints(text), JSON.stringify(text)).toBe([...text].length);
  });

  it("agrees with iteration on random mixes of units, surrogates among them", () => {
    const units = [0x61, 0xe9, 0x65e5, 0xd83d, 0xde00, 0xdbff, 0xdc00, 0x20];
    let seed = 11;
    for (let round = 0; round < 2_000; round++) {
      let text = "";
      const length = round % 17;
      for (let i = 0; i < length; i++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        text += String.fromCharCode(units[(seed >>> 8) % units.length] as number);
      }
      expect(codePoints(text), JSON.stringify(text)).toBe([...text].length);
    }
  });

  it("gives Codex's single-line length: trimmed, whitespace runs as one space", () => {
    expect(singleLineLength("  two\n\t words 😀 ")).toBe("two words 😀".length - 1);
  });
});
