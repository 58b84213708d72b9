import { describe, expect, it } from "vitest";
import { dropInvalidXmlChars, escapeXml, toOneLine } from "./escape.js";

describe("escapeXml", () => {
  it("escapes the five XML special characters", () => {
    expect(escapeXml(`a & b < c > d " e ' f`)).toBe("a &amp; b &lt; c &gt; d &quot; e &apos; f");
    expect(escapeXml("&amp;")).toBe("&amp;amp;");
  });

  it("leaves ordinary text, tab, newline and carriage return alone", () => {
    const text = "Use when: editing PDFs.\n\tNext line\r\nlast";
    expect(escapeXml(text)).toBe(text);
    expect(escapeXml("")).toBe("");
  });

  it("drops the C0 controls XML 1.0 forbids, U+FFFE, U+FFFF and lone surrogates", () => {
    for (let c = 0; c < 0x20; c++) {
      const kept = c === 0x09 || c === 0x0a || c === 0x0d;
      expect(escapeXml(`a${String.fromCharCode(c)}b`)).toBe(kept ? `a${String.fromCharCode(c)}b` : "ab");
    }
    expect(escapeXml("x\uFFFEy\uFFFFz")).toBe("xyz");
    expect(escapeXml("a\uD800b\uDC00c")).toBe("abc");
    expect(escapeXml("\uDC00\uD800")).toBe(""); // reversed pair: two lone surrogates
  });

  it("keeps emoji, astral characters and right-to-left text whole", () => {
    const text = "😀 👩‍👩‍👧 𝔘 שלום مرحبا \u202E \uFFFD \uE000 \u00A0";
    expect(escapeXml(text)).toBe(text);
  });
});

describe("dropInvalidXmlChars", () => {
  it("drops only what XML forbids", () => {
    expect(dropInvalidXmlChars("<a>&\u0000\uFFFF\uD83D")).toBe("<a>&");
  });
});

describe("toOneLine", () => {
  it("turns each whitespace run holding a line break into one space", () => {
    expect(toOneLine("a\nb")).toBe("a b");
    expect(toOneLine("a  \r\n\t  b")).toBe("a b");
    expect(toOneLine("a\u2028b\u2029c\u0085d\ve\ff")).toBe("a b c d e f");
  });

  it("keeps runs without a line break as they are", () => {
    expect(toOneLine("a  b\tc")).toBe("a  b\tc");
  });

  it("drops control characters after joining lines", () => {
    expect(toOneLine("a\u0000b\u001b[31m")).toBe("ab[31m");
  });
});
